"""The runner's environment and the action's inputs, read once at the start.

``action.yml`` passes every input to ``git gpte action`` through ``env:`` under the names below
(never through ``${{ }}`` inside a script). A hand-run ``git gpte action`` reads the same
variables, so the two behave the same. The model is taken the way every command takes it:
``--model`` or ``MODEL_NAME``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..errors import UsageError
from .sanitize import DEFAULT_MAX_CHARS

BOT_IDENTITY = ("github-actions[bot]", "41898282+github-actions[bot]@users.noreply.github.com")

# input name -> (environment variable, default, one-line description). action.yml declares each
# with this default and passes it through this variable (tests/action/test_yaml.py holds them
# together), except max-prompt-chars: a setting for hand runs, not an input of the action.
INPUTS: dict[str, tuple[str, str, str]] = {
    "github-token": (
        "GPTE_GITHUB_TOKEN",
        "",
        "token for the API and the push (falls back to GITHUB_TOKEN)",
    ),
    "app-id": (
        "GPTE_APP_ID",
        "",
        "GitHub App id (or client id): with app-private-key, its installation token is used",
    ),
    "app-private-key": (
        "GPTE_APP_PRIVATE_KEY",
        "",
        "the GitHub App's private key (PEM); pass a secret",
    ),
    "trigger-label": ("GPTE_TRIGGER_LABEL", "gpte", "label that starts a run on an issue"),
    "trigger-phrase": ("GPTE_TRIGGER_PHRASE", "/gpte", "comment prefix that starts a run"),
    "allowed-associations": (
        "GPTE_ALLOWED_ASSOCIATIONS",
        "OWNER,MEMBER,COLLABORATOR",
        "author associations allowed to trigger",
    ),
    "allowed-bots": ("GPTE_ALLOWED_BOTS", "", "bot logins allowed to trigger (comma-separated)"),
    "base-branch": (
        "GPTE_BASE_BRANCH",
        "",
        "branch the pull request targets (default: the repository's default branch)",
    ),
    "branch-prefix": (
        "GPTE_BRANCH_PREFIX",
        "gpte/issue-",
        "prefix of the branch; the issue number follows",
    ),
    "draft": ("GPTE_DRAFT", "true", "open the pull request as a draft"),
    "self-heal": (
        "GPTE_SELF_HEAL",
        "true",
        "run the heal command after the edit and heal failures",
    ),
    "heal-command": (
        "GPTE_HEAL_COMMAND",
        "",
        "command that checks the result (default: bash run.sh when run.sh exists)",
    ),
    "max-attempts": ("GPTE_MAX_ATTEMPTS", "3", "heal attempts at most"),
    "timeout-minutes": ("GPTE_TIMEOUT_MINUTES", "10", "time limit for one run of the heal command"),
    "heal-docker": (
        "GPTE_HEAL_DOCKER",
        "false",
        "run the heal command in a Docker container, away from the job's processes and tokens",
    ),
    "max-prompt-chars": (
        "GPTE_MAX_PROMPT_CHARS",
        str(DEFAULT_MAX_CHARS),
        "issue text beyond this is cut",
    ),
    "issue-number": ("GPTE_ISSUE_NUMBER", "", "issue to work on for workflow_dispatch"),
}

# Variables holding secrets: masked in the log, removed from our own environment once read so no
# child process (the program under test above all) can inherit them.
SECRET_VARIABLES = (
    "GPTE_GITHUB_TOKEN",
    "GPTE_APP_PRIVATE_KEY",
    "GITHUB_TOKEN",
    "GH_TOKEN",
    "ACTIONS_RUNTIME_TOKEN",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
    "ACTIONS_ID_TOKEN_REQUEST_URL",
)


def _bool(name: str, value: str) -> bool:
    text = value.strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise UsageError(f"{name}: expected true or false, got {value!r}")


def _int(name: str, value: str, minimum: int = 0) -> int:
    try:
        number = int(value.strip())
    except ValueError:
        raise UsageError(f"{name}: expected a whole number, got {value!r}") from None
    if number < minimum:
        raise UsageError(f"{name}: must be at least {minimum}, got {number}")
    return number


def _list(value: str) -> tuple[str, ...]:
    return tuple(p.strip() for p in value.replace("\n", ",").split(",") if p.strip())


@dataclass
class ActionSettings:
    event_name: str
    event_path: str
    repository: str
    api_url: str
    server_url: str
    run_id: str
    workspace: str
    output_path: str | None
    summary_path: str | None
    token: str = field(repr=False)
    app_id: str
    app_private_key: str = field(repr=False)
    trigger_label: str
    trigger_phrase: str
    allowed_associations: tuple[str, ...]
    allowed_bots: tuple[str, ...]
    base_branch: str | None
    branch_prefix: str
    draft: bool
    self_heal: bool
    heal_command: str | None
    max_attempts: int
    timeout_minutes: int
    heal_docker: bool
    max_prompt_chars: int
    issue_number: int | None

    @property
    def run_url(self) -> str | None:
        if not self.run_id:
            return None
        return f"{self.server_url.rstrip('/')}/{self.repository}/actions/runs/{self.run_id}"

    @property
    def commit_url(self) -> str:
        """This repository's commit page, without the commit: ``…/owner/repo/commit/``."""
        return f"{self.server_url.rstrip('/')}/{self.repository}/commit/"

    def pull_url(self, number: int) -> str:
        return f"{self.server_url.rstrip('/')}/{self.repository}/pull/{number}"

    @classmethod
    def from_env(cls, environ: Mapping[str, str], cwd: str) -> ActionSettings:
        def inp(name: str) -> str:
            var, default, _ = INPUTS[name]
            value = environ.get(var, "")
            return value.strip() if value.strip() else default

        missing = [
            v
            for v in ("GITHUB_EVENT_NAME", "GITHUB_EVENT_PATH", "GITHUB_REPOSITORY")
            if not environ.get(v)
        ]
        if missing:
            raise UsageError(
                f"not running in GitHub Actions: {', '.join(missing)} not set",
                hint="it reads the runner's event; see docs/action.md",
            )
        token = (
            environ.get("GPTE_GITHUB_TOKEN")
            or environ.get("GITHUB_TOKEN")
            or environ.get("GH_TOKEN")
            or ""
        )
        issue = inp("issue-number")
        app_id, app_key = inp("app-id"), inp("app-private-key")
        if bool(app_id) != bool(app_key):
            given, absent = ("app-id", "app-private-key")[:: 1 if app_id else -1]
            raise UsageError(
                f"{given} is set but {absent} is not: a GitHub App needs both",
                hint="or leave both empty to use github-token",
            )
        return cls(
            event_name=environ["GITHUB_EVENT_NAME"],
            event_path=environ["GITHUB_EVENT_PATH"],
            repository=environ["GITHUB_REPOSITORY"],
            api_url=environ.get("GITHUB_API_URL") or "https://api.github.com",
            server_url=environ.get("GITHUB_SERVER_URL") or "https://github.com",
            run_id=environ.get("GITHUB_RUN_ID", ""),
            workspace=environ.get("GITHUB_WORKSPACE") or cwd,
            output_path=environ.get("GITHUB_OUTPUT") or None,
            summary_path=environ.get("GITHUB_STEP_SUMMARY") or None,
            token=token,
            app_id=app_id,
            app_private_key=app_key,
            trigger_label=inp("trigger-label"),
            trigger_phrase=inp("trigger-phrase"),
            allowed_associations=tuple(a.upper() for a in _list(inp("allowed-associations"))),
            allowed_bots=tuple(b.lower() for b in _list(inp("allowed-bots"))),
            base_branch=inp("base-branch") or None,
            branch_prefix=inp("branch-prefix"),
            draft=_bool("draft", inp("draft")),
            self_heal=_bool("self-heal", inp("self-heal")),
            heal_command=inp("heal-command") or None,
            max_attempts=_int("max-attempts", inp("max-attempts"), 1),
            timeout_minutes=_int("timeout-minutes", inp("timeout-minutes"), 1),
            heal_docker=_bool("heal-docker", inp("heal-docker")),
            max_prompt_chars=_int("max-prompt-chars", inp("max-prompt-chars"), 200),
            issue_number=_int("issue-number", issue, 1) if issue else None,
        )


def scrub_secrets(environ: dict[str, str] | os._Environ[str]) -> None:
    """Remove the GitHub token (and the runner's own tokens) from this process's environment.

    Read them first: after this, nothing we start — git hooks, the heal command, the LLM SDKs —
    can find them. LLM keys stay (the LLM layer needs them; the run layer drops them for run.sh).
    """
    for name in SECRET_VARIABLES:
        environ.pop(name, None)
