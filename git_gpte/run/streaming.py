"""A program's output on our stdout, as it arrives: capped, and inert in GitHub Actions.

``run`` and ``heal`` both stream the output of code an LLM wrote; in a workflow that output
must not be able to issue workflow commands (set outputs, add masks), so it is wrapped in a
``::stop-commands::`` block with a random token.
"""

from __future__ import annotations

import codecs
import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

import click

# Output beyond this much is not streamed (a runaway log would flood the terminal or CI log);
# the captured tail is printed when the run ends instead.
STREAM_LIMIT = 1024 * 1024


class Streamer:
    """Copies the program's output to our stdout as it arrives, up to a limit.

    The output is decoded (bad UTF-8 replaced) and written as text, so it passes the terminal
    filter every command's stdout has (git_gpte.terminal): a program under test cannot send
    escape sequences to the user's terminal.
    """

    def __init__(self, out: TextIO, limit: int = STREAM_LIMIT) -> None:
        self.out = out
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
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
        self.out.write(self.decoder.decode(chunk, final=self.cut))
        self.out.flush()
        self.written += len(chunk)
        if chunk:
            self.at_line_start = chunk.endswith(b"\n")
        if self.cut:
            click.echo(
                "\n[git-gpte: output is too long to stream; its end is shown when the run ends]",
                err=True,
            )


@contextmanager
def workflow_commands_stopped(streamer: Streamer | None) -> Iterator[None]:
    """In GitHub Actions, keep the streamed output from issuing workflow commands."""
    if streamer is None or os.environ.get("GITHUB_ACTIONS") != "true":
        yield
        return
    token = secrets.token_hex(16)
    click.echo(f"::stop-commands::{token}")
    try:
        yield
    finally:
        start = "" if streamer.at_line_start else "\n"
        click.echo(f"{start}::{token}::")
