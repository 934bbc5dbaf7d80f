"""The environment the program under test sees: the user's, minus anything that grants access.

Code written by an LLM runs here, so credentials must not reach it. Variables are removed by
rule, not by a list of names someone remembered: :data:`SCRUB_RULES` is the whole rule set, one
row per rule with an example it removes, and README.md shows the same table (a test keeps the two
in step). Name rules look at the ``_``-separated parts of the upper-cased name, so ``TOKEN``
matches ``NODE_AUTH_TOKEN`` but not ``TOKENIZERS_PARALLELISM``. Value rules catch credentials
under any name (a URL with a password, an ``Authorization:`` header). Users add their own names
or ``fnmatch`` patterns with ``git config gpte.scrubEnv``.
"""

from __future__ import annotations

import fnmatch
import itertools
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from ..git.env import STRIPPED

# Exact names that hand out access without looking like it.
_EXACT = frozenset(
    {
        "SSH_AUTH_SOCK",
        "GIT_ASKPASS",
        "SSH_ASKPASS",
        # Files a GitHub Actions step writes to change later steps (GITHUB_ENV can set
        # LD_PRELOAD or NODE_OPTIONS for them): untrusted code must not be pointed at them.
        "GITHUB_ENV",
        "GITHUB_PATH",
        "GITHUB_OUTPUT",
        "GITHUB_STATE",
        "GITHUB_STEP_SUMMARY",
        # Would redirect git commands in the script to the user's repository or index.
        *STRIPPED,
        # `git -c http.extraheader=… gpte run` hands its -c options to every git below it here.
        "GIT_CONFIG_PARAMETERS",
        "GIT_CONFIG_COUNT",
        "DOCKER_AUTH_CONFIG",
    }
)
_PREFIXES = ("OPENAI_", "ANTHROPIC_", "AZURE_OPENAI_", "ACTIONS_", "GPTE_", "INPUT_")
_SUBSTRINGS = ("PASSWORD", "PASSWD", "SECRET")
_PARTS = frozenset(
    {"TOKEN", "TOKENS", "SECRET", "SECRETS", "CREDENTIAL", "CREDENTIALS", "APIKEY", "AUTH"}
)
_PAIRS = frozenset({("API", "KEY"), ("ACCESS", "KEY"), ("PRIVATE", "KEY"), ("SECRET", "KEY")})
_LAST = frozenset({"KEY", "DSN", "WEBHOOK", "PASS", "PWD", "PAT", "COOKIE"})
# A URL that carries a password: postgres://user:pw@host/db (DATABASE_URL, REDIS_URL, ...).
_URL_WITH_PASSWORD = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]*:[^/\s@]+@")
# An HTTP credential header in a value (git's http.extraheader, curl options, ...).
_AUTH_HEADER = re.compile(r"\b(?:proxy-)?authorization\s*:|\bbearer\s+[A-Za-z0-9._~+/-]{8,}", re.I)


def _parts(name: str) -> list[str]:
    return [part for part in name.upper().split("_") if part]


@dataclass(frozen=True)
class ScrubRule:
    """One row of the table: the rule as documented, a variable it removes, and the test."""

    rule: str
    example: str
    matches: Callable[[str, str], bool]  # (name, value) -> remove?


SCRUB_RULES: tuple[ScrubRule, ...] = (
    ScrubRule(
        "prefix `OPENAI_`, `ANTHROPIC_`, `AZURE_OPENAI_`, `GPTE_` (LLM settings)",
        "OPENAI_API_KEY",
        lambda n, v: n.upper().startswith((*_PREFIXES[:3], "GPTE_")),
    ),
    ScrubRule(
        "prefix `ACTIONS_` (Actions runtime and OIDC tokens)",
        "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
        lambda n, v: n.upper().startswith("ACTIONS_"),
    ),
    ScrubRule(
        "prefix `INPUT_` (the Action's inputs, keys among them)",
        "INPUT_OPENAI-API-KEY",
        lambda n, v: n.upper().startswith("INPUT_"),
    ),
    ScrubRule(
        "a part `TOKEN(S)`, `SECRET(S)`, `CREDENTIAL(S)`, `APIKEY`, `AUTH`",
        "NPM_CONFIG__AUTH",
        lambda n, v: any(part in _PARTS for part in _parts(n)),
    ),
    ScrubRule(
        "`PASSWORD`, `PASSWD`, `SECRET` anywhere in the name",
        "DBPASSWORD",
        lambda n, v: any(word in n.upper() for word in _SUBSTRINGS),
    ),
    ScrubRule(
        "parts `API_KEY`, `ACCESS_KEY`, `PRIVATE_KEY`, `SECRET_KEY`",
        "AWS_ACCESS_KEY_ID",
        lambda n, v: any(pair in _PAIRS for pair in itertools.pairwise(_parts(n))),
    ),
    ScrubRule(
        "last part `KEY`, `DSN`, `PASS`, `PWD`, `PAT`, `COOKIE`, or a part `WEBHOOK`",
        "SMTP_PASS",
        lambda n, v: (
            (n.upper() != "PWD" and _parts(n)[-1:] != [] and _parts(n)[-1] in _LAST)
            or "WEBHOOK" in _parts(n)
        ),
    ),
    ScrubRule(
        "`GIT_CONFIG_PARAMETERS`, `GIT_CONFIG_COUNT`, `GIT_CONFIG_KEY_<n>`, `GIT_CONFIG_VALUE_<n>`"
        " (`git -c` options, e.g. an `http.extraheader` with a token)",
        "GIT_CONFIG_VALUE_0",
        lambda n, v: (
            n.upper() in ("GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT")
            or re.fullmatch(r"GIT_CONFIG_(?:KEY|VALUE)_\d+", n.upper()) is not None
        ),
    ),
    ScrubRule(
        "`BUNDLE_<HOST>__<DOMAIN>` (Bundler source credentials)",
        "BUNDLE_GEMS__EXAMPLE__COM",
        lambda n, v: n.upper().startswith("BUNDLE_") and "__" in n,
    ),
    ScrubRule(
        "`SSH_AUTH_SOCK`, `GIT_ASKPASS`, `SSH_ASKPASS`, `DOCKER_AUTH_CONFIG`",
        "SSH_AUTH_SOCK",
        lambda n, v: n.upper() in _EXACT,
    ),
    ScrubRule(
        "the Actions command files `GITHUB_ENV`, `GITHUB_PATH`, `GITHUB_OUTPUT`, `GITHUB_STATE`, "
        "`GITHUB_STEP_SUMMARY`",
        "GITHUB_ENV",
        lambda n, v: n.upper() in _EXACT,
    ),
    ScrubRule(
        "git variables that would point the script's git at your repository (`GIT_DIR`, "
        "`GIT_WORK_TREE`, `GIT_INDEX_FILE`, `GIT_COMMON_DIR`, `GIT_OBJECT_DIRECTORY`, …)",
        "GIT_INDEX_FILE",
        lambda n, v: n.upper() in _EXACT,
    ),
    ScrubRule(
        "any value that is a URL with a password (`postgres://user:pw@host/db`)",
        "DATABASE_URL=postgres://app:pw@db/app",
        lambda n, v: bool(_URL_WITH_PASSWORD.match(v.strip())),
    ),
    ScrubRule(
        "any value holding an `Authorization:` header or a `Bearer` token",
        "CURL_OPTS=-H Authorization: Bearer abcdef123456",
        lambda n, v: bool(_AUTH_HEADER.search(v)),
    ),
)


def _removed_by_rules(name: str, value: str) -> bool:
    return any(rule.matches(name, value) for rule in SCRUB_RULES)


def is_secret_name(name: str) -> bool:
    """True for variable names the built-in rules remove (whatever their value)."""
    return _removed_by_rules(name, "")


def is_secret_value(value: str) -> bool:
    """True for values that carry credentials whatever the variable is called."""
    return _removed_by_rules("VALUE", value)


def parse_name_list(text: str | None) -> tuple[str, ...]:
    """``"FOO, BAR BAZ_*"`` -> ``("FOO", "BAR", "BAZ_*")`` (commas and/or whitespace)."""
    if not text:
        return ()
    return tuple(name for name in re.split(r"[\s,]+", text) if name)


def scrub_environment(
    environ: Mapping[str, str], extra: Iterable[str] = ()
) -> tuple[dict[str, str], list[str]]:
    """(the environment to give the program, the sorted names that were removed).

    ``extra`` holds names or ``fnmatch`` patterns (``MYCORP_*``), matched case-sensitively
    as the environment itself is on POSIX.
    """
    patterns = tuple(extra)
    kept: dict[str, str] = {}
    removed: list[str] = []
    for name, value in environ.items():
        if _removed_by_rules(name, value) or any(fnmatch.fnmatchcase(name, p) for p in patterns):
            removed.append(name)
        else:
            kept[name] = value
    return kept, sorted(removed)
