"""How pipelines talk to the person (or CI log) watching them.

Pipelines never call ``print``: they take a :class:`Console`, so the same code streams tokens live
on a terminal, prints a quiet progress line in CI, and stays silent under ``--quiet`` or when a
command's output is JSON.
"""

from __future__ import annotations

import sys
from typing import TextIO


class Console:
    """Messages go to stderr so stdout stays clean for results (and ``--json``)."""

    def __init__(
        self,
        *,
        quiet: bool = False,
        verbose: bool = False,
        stream: TextIO | None = None,
        live: bool | None = None,
    ) -> None:
        self.quiet = quiet
        self.verbose = verbose
        self.out = stream if stream is not None else sys.stderr
        # Live token streaming only on a terminal; CI gets progress lines instead.
        self.live = (not quiet) and (self.out.isatty() if live is None else live)

    def info(self, message: str) -> None:
        if not self.quiet:
            self._write(message + "\n")

    def detail(self, message: str) -> None:
        """Shown only with ``--verbose``."""
        if self.verbose and not self.quiet:
            self._write(message + "\n")

    def warn(self, message: str) -> None:
        """Always shown (even with ``--quiet``): something the user must know."""
        self._write(f"warning: {message}\n")

    def token(self, text: str) -> None:
        """One streamed piece of an LLM reply."""
        if self.live:
            self._write(text)

    def end_stream(self, summary: str = "") -> None:
        """Close a streamed reply; off a terminal, one line saying how much arrived."""
        if self.live:
            self._write("\n")
        elif summary and not self.quiet:
            self._write(summary + "\n")

    def _write(self, text: str) -> None:
        self.out.write(text)
        self.out.flush()
