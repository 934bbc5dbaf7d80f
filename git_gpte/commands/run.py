"""``git gpte run``: run the entrypoint (or a configured command) of a commit, safely.

The commit (HEAD by default) is checked out into a temporary worktree, the entrypoint is shown
and confirmed, and it runs there with a timeout and a scrubbed environment. The user's checkout
is never touched, and uncommitted changes are not part of the run (it runs the commit).
"""

from __future__ import annotations

import os
import secrets
import sys
from typing import TYPE_CHECKING, BinaryIO

import click

from ..cli import AppContext
from ..errors import RunError
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

# Output beyond this much is not streamed (a runaway log would flood the terminal or CI log);
# the captured tail is printed when the run ends instead.
STREAM_LIMIT = 1024 * 1024


class _Streamer:
    """Copies the program's output to our stdout as it arrives, up to a limit."""

    def __init__(self, out: BinaryIO, limit: int = STREAM_LIMIT) -> None:
        self.out = out
        self.limit = limit
        self.written = 0
        self.cut = False
        self.at_line_start = True

    def __call__(self, chunk: bytes) -> None:
        if self.cut:
            return
        room = self.limit - self.written
        if len(chunk) > room:
            chunk = chunk[:room]
            self.cut = True
        self.out.write(chunk)
        self.out.flush()
        self.written += len(chunk)
        if chunk:
            self.at_line_start = chunk.endswith(b"\n")
        if self.cut:
            click.echo(
                "\n[git-gpte: output is too long to stream; its end is shown when the run ends]",
                err=True,
            )


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
    from ..config import Settings
    from ..git.repo import Repository
    from ..run import RunOptions, preview, require_confirmation, run_commit

    repo = Repository.discover(app.cwd)
    commit = repo.resolve_commit(base)
    settings = Settings.load(app.cwd, repo.root)
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

    streamer = None if app.quiet else _Streamer(sys.stdout.buffer)
    stop_token = _stop_workflow_commands(streamer is not None)
    try:
        result = run_commit(repo, commit, options, on_output=streamer)
    finally:
        if stop_token:
            start = "" if streamer is None or streamer.at_line_start else "\n"
            click.echo(f"{start}::{stop_token}::")
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


def _stop_workflow_commands(streaming: bool) -> str | None:
    """In GitHub Actions, keep the program's output from issuing workflow commands."""
    if not streaming or os.environ.get("GITHUB_ACTIONS") != "true":
        return None
    token = secrets.token_hex(16)
    click.echo(f"::stop-commands::{token}")
    return token


def _show_end(app: AppContext, result: RunResult, streamer: _Streamer | None) -> None:
    if streamer is None or app.quiet:
        return
    if streamer.cut:
        excerpt = result.output_excerpt()
        click.echo(
            ("" if streamer.at_line_start else "\n") + excerpt, nl=not excerpt.endswith("\n")
        )
    elif result.output_bytes and not result.output_tail.endswith("\n"):
        click.echo()
