"""Workflow commands, step outputs and the job summary.

Everything the runner interprets goes through here. Text we did not write (LLM replies, output of
the program under test, issue text echoed back) is printed between ``::stop-commands::<token>``
and ``::<token>::`` so a line such as ``::set-output`` or ``::add-mask`` inside it is shown, not
obeyed. The token is random per block, so the text cannot guess it and end the block early.
"""

from __future__ import annotations

import os
import secrets
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TextIO


def escape_data(value: str) -> str:
    """The escaping the runner expects for a workflow command's message."""
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


class WorkflowCommands:
    """Writes workflow commands to one stream (the same one the pipeline's console uses, so the
    runner sees them in order)."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stdout
        self._stopped: str | None = None

    def _emit(self, line: str) -> None:
        self.stream.write(line + "\n")
        self.stream.flush()

    def command(self, name: str, message: str = "", **props: str) -> None:
        """Emit one command of ours. Inside an untrusted block (a warning about the status comment
        while the pipeline runs) the block is closed for that one line and reopened with a new
        token, so the command is obeyed and the text around it still is not."""
        text = ",".join(f"{k}={escape_property(v)}" for k, v in props.items())
        line = f"::{name}{' ' + text if text else ''}::{escape_data(message)}"
        if self._stopped is None:
            self._emit(line)
            return
        self.resume()
        self._emit(line)
        self.stop()

    def mask(self, value: str | None) -> None:
        """Ask the runner to hide ``value`` in the log; each line of a multi-line value alone."""
        if not value:
            return
        for line in value.splitlines():
            if line.strip():
                self.command("add-mask", line.strip())

    def group(self, title: str) -> None:
        """Start a collapsed section of the log (ended by :meth:`endgroup`)."""
        self.command("group", title)

    def endgroup(self) -> None:
        self.command("endgroup")

    def notice(self, message: str, title: str | None = None) -> None:
        self.command("notice", message, **({"title": title} if title else {}))

    def warning(self, message: str) -> None:
        self.command("warning", message)

    def error(self, message: str, title: str | None = None) -> None:
        self.command("error", message, **({"title": title} if title else {}))

    def stop(self) -> str:
        """Stop command processing; returns the token that resumes it."""
        token = secrets.token_hex(16)
        self._emit(f"::stop-commands::{token}")
        self._stopped = token
        return token

    def resume(self) -> None:
        if self._stopped is not None:
            self._emit(f"::{self._stopped}::")
            self._stopped = None

    @contextmanager
    def untrusted(self) -> Iterator[None]:
        """Everything printed inside is shown verbatim, never interpreted."""
        if self._stopped is not None:  # already inside a block
            yield
            return
        self.stop()
        try:
            yield
        finally:
            self.resume()

    def print_untrusted(self, text: str) -> None:
        with self.untrusted():
            self.stream.write(text if text.endswith("\n") else text + "\n")
            self.stream.flush()


def error_line(message: str) -> None:
    """The one ``git-gpte: error: ...`` line on stderr, as the CLI writes for errors it raises:
    for a flow that handles its failure itself (reports it, then returns the exit code)."""
    sys.stderr.write(f"git-gpte: error: {message}\n")
    sys.stderr.flush()


def _delimiter(values: Mapping[str, str]) -> str:
    while True:
        token = f"ghadelimiter_{secrets.token_hex(12)}"
        if not any(token in v for v in values.values()):
            return token


def write_outputs(path: str | None, values: Mapping[str, str]) -> None:
    """Append step outputs to ``$GITHUB_OUTPUT`` in the multi-line form, which no value can break
    out of (the delimiter is random and checked against every value)."""
    if not path:
        return
    delim = _delimiter(values)
    with open(path, "a", encoding="utf-8") as handle:
        for name, value in values.items():
            handle.write(f"{name}<<{delim}{os.linesep}{value}{os.linesep}{delim}{os.linesep}")


def write_summary(path: str | None, markdown: str) -> None:
    """Append Markdown to ``$GITHUB_STEP_SUMMARY``."""
    if not path:
        return
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(markdown.rstrip("\n") + "\n")
