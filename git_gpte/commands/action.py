"""``git gpte action``: the GitHub Action's entry point (issue -> pull request, pre-merge heal).

Reads the runner's environment (``GITHUB_EVENT_NAME``, ``GITHUB_EVENT_PATH``, ...), the action's
inputs (``GPTE_*`` variables, see ``git_gpte/action/settings.py``) and the token. Run by
``action.yml``; can be run by hand with the same variables set.
"""

from __future__ import annotations

import os

import click

from ..cli import AppContext
from .options import model_option


@click.command("action")
@model_option
@click.pass_obj
def command(app: AppContext, model: str | None) -> int:
    """Run as a GitHub Action: turn a labelled issue or a /gpte comment into a pull request,
    answer /gpte review comments with a commit on the pull request, or check (and heal) a pull
    request before merge.

    Inputs come from the environment: GITHUB_EVENT_NAME, GITHUB_EVENT_PATH, GITHUB_REPOSITORY,
    GITHUB_API_URL, GITHUB_SERVER_URL, GITHUB_RUN_ID, GITHUB_WORKSPACE, GITHUB_OUTPUT,
    GITHUB_STEP_SUMMARY, the token (GPTE_GITHUB_TOKEN or GITHUB_TOKEN; or, with GPTE_APP_ID and
    GPTE_APP_PRIVATE_KEY, a GitHub App installation token minted for the run) and the GPTE_*
    inputs of action.yml. Only people with write access (and an allowed author association) can
    trigger a run; the token is removed from the environment before any model call or program
    run.
    """
    from ..action.flow import run
    from ..action.settings import ActionSettings

    settings = ActionSettings.from_env(os.environ, app.cwd)
    return run(
        settings,
        model or os.environ.get("MODEL_NAME") or None,
        verbose=app.verbose,
        quiet=app.quiet,
    )
