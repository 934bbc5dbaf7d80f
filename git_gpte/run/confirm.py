"""Asking before code runs, and refusing where nobody can be asked.

Shared by ``run`` and ``heal``: the preview is shown, then a yes/no question on a terminal;
with ``--yes`` no question; on a non-terminal without ``--yes`` a refusal, because a script
written by an LLM must not run just because stdin happened to be a pipe.
"""

from __future__ import annotations

import sys
from typing import TextIO

import click

from ..errors import Interrupted, UsageError


def require_confirmation(
    preview_text: str,
    *,
    yes: bool,
    quiet: bool = False,
    stdin: TextIO | None = None,
    question: str = "Run it?",
) -> None:
    """Return when running is confirmed; raise UsageError (no terminal) or Interrupted (no)."""
    if yes:
        if not quiet:
            click.echo(preview_text, err=True)
        return
    stream = stdin if stdin is not None else sys.stdin
    if stream is None or not stream.isatty():
        raise UsageError(
            "refusing to run code without confirmation: standard input is not a terminal",
            hint="pass --yes after reviewing what will run",
        )
    click.echo(preview_text, err=True)
    if not click.confirm(question, default=False, err=True):
        raise Interrupted("not run: declined")
