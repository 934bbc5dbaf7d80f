"""The one-line invitation to review a run, shown after ``improve``/``heal`` on a terminal.

Only a hint, never a question: it is shown when both standard input and output are terminals,
not in CI, and not when the user has turned feedback off. It imports nothing heavy, so
commands may call it freely.
"""

from __future__ import annotations

import os
import sys

CI_VARIABLES = ("CI", "GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE", "JENKINS_URL", "TF_BUILD")


def in_ci(environ: dict[str, str] | None = None) -> bool:
    env = os.environ if environ is None else environ
    return any(env.get(name) not in (None, "", "0", "false") for name in CI_VARIABLES)


def _feedback_off(cwd: str | None) -> bool:
    from ..git.config import read_gpte_config

    value = read_gpte_config(cwd or os.getcwd()).get("gpte.feedback", "")
    return value.strip().lower() in ("false", "no", "off", "0")


def review_hint(run_id: str, *, cwd: str | None = None) -> str | None:
    """The hint line for ``run_id``, or None when it should not be shown."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()) or in_ci():
        return None
    if _feedback_off(cwd):
        return None
    return f"How did it go? git gpte review {run_id}"
