"""``git gpte run``: run the entrypoint (or a configured command) of a commit, safely.

The commit (HEAD by default) is checked out into a temporary worktree, the entrypoint is shown
and confirmed, and it runs there with a timeout and a scrubbed environment. The user's checkout
is never touched, and uncommitted changes are not part of the run (it runs the commit).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from ..cli import AppContext
from ..errors import RunError
from ..run.streaming import Streamer, workflow_commands_stopped
from .options import (
    command_option,
    docker_option,
    entrypoint_option,
    run_timeout_option,
    run_yes_option,
)

if TYPE_CHECKING:
    from ..git.repo import Repository
    from ..run import RunResult


@click.command("run")
@entrypoint_option
@command_option
@click.option("--base", default="HEAD", show_default=True, metavar="REV", help="Commit to run.")
@run_timeout_option
@run_yes_option
@docker_option
@click.pass_obj
def command(
    app: AppContext,
    entrypoint: str | None,
    command_text: str | None,
    base: str,
    timeout: float | None,
    yes: bool,
    docker: bool,
) -> int:
    """Run the entrypoint of a commit in a temporary worktree, with a timeout and no secrets.

    Shows the script (or command) and asks before running it; the commit is checked out into a
    temporary git worktree, so your working tree, index and uncommitted changes are neither used
    nor touched. Exits 0 when the program exits 0, and 8 when it fails or times out.
    """
    from ..git.config import load_settings
    from ..git.repo import Repository
    from ..run import RunOptions, preview, require_confirmation, run_commit

    repo = Repository.discover(app.cwd)
    commit = repo.resolve_commit(base)
    settings = load_settings(app.cwd, repo.root)
    options = RunOptions.resolve(
        settings,
        entrypoint=entrypoint,
        command=command_text,
        timeout=timeout,
        docker=docker or None,
    )
    options.environment().check()
    text = preview(repo, commit, options)
    _note_uncommitted(app, repo, commit)
    require_confirmation(text, yes=yes, quiet=app.quiet)

    streamer = None if app.quiet else Streamer(sys.stdout)
    with workflow_commands_stopped(streamer):
        result = run_commit(repo, commit, options, on_output=streamer)
    _show_end(app, result, streamer)
    if not result.success:
        raise RunError(result.summary())
    app.echo(result.summary(), err=True)
    return 0


def _note_uncommitted(app: AppContext, repo: Repository, commit: str) -> None:
    """Say so when the work tree has changes the run will not see (it runs the commit)."""
    if not repo.has_commits():
        return
    dirty = repo.dirty_paths()
    if dirty and repo.resolve_commit("HEAD") == commit:
        app.echo(
            f"note: {len(dirty)} file(s) with uncommitted changes are not part of this run; "
            f"it runs commit {commit[:12]}",
            err=True,
        )


def _show_end(app: AppContext, result: RunResult, streamer: Streamer | None) -> None:
    if streamer is None or app.quiet:
        return
    if streamer.cut:
        excerpt = result.output_excerpt()
        click.echo(
            ("" if streamer.at_line_start else "\n") + excerpt, nl=not excerpt.endswith("\n")
        )
    elif result.output_bytes and not result.output_tail.endswith("\n"):
        click.echo()
