"""Text shown on a terminal, with every control sequence taken out.

Much of what git-gpte prints came from somewhere it does not trust: the model's reply (streamed
live, file names, refusal reasons), the program under test (``run``, ``heal``), stored replies
(``log show``). A terminal obeys escape sequences in that text: OSC 52 writes the clipboard, OSC 0
sets the title, CSI clears the screen or moves the cursor to overwrite what was shown (a
``curl … | sh`` line in run.sh can be made invisible before the user confirms it), and C1
characters (U+0080–U+009F) do the same on terminals that honour them.

:func:`install` puts a filter in front of ``sys.stdout`` and ``sys.stderr`` for the whole command,
so every writer is covered, not just the ones someone remembered. It keeps newlines and tabs;
a carriage return becomes a newline (it could otherwise overwrite a line); every other C0/C1
control and every escape sequence is removed. git-gpte prints no colours of its own; anything
that should one day must write to :attr:`SafeTextStream.raw`, after filtering what it wraps.
"""

from __future__ import annotations

import re
import sys
from typing import Any, TextIO

# Complete sequences: CSI, OSC (ended by BEL or ST), DCS/SOS/PM/APC strings (ended by ST),
# other two-character escapes, and their 8-bit C1 forms.
_SEQUENCE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b\][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)"
    r"|\x1b[PX^_][^\x1b\x9c]*(?:\x1b\\|\x9c)"
    r"|\x1b[ -/]*[0-OQ-WYZ\\`-~]"
    r"|\x9b[0-?]*[ -/]*[@-~]"
    r"|\x9d[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)"
    r"|[\x90\x98\x9e\x9f][^\x1b\x9c]*(?:\x1b\\|\x9c)"
)
# The start of a sequence that may be completed by the next piece of a stream.
_OPEN_TAIL = re.compile(
    r"(?:\x1b(?:\[[0-?]*[ -/]*|\][^\x07\x1b\x9c]*\x1b?|[PX^_][^\x1b\x9c]*\x1b?|[ -/]*)?"
    r"|\x9b[0-?]*[ -/]*|\x9d[^\x07\x1b\x9c]*\x1b?|[\x90\x98\x9e\x9f][^\x1b\x9c]*\x1b?|\r)\Z"
)
# Whatever control is left once the sequences are gone (newline and tab are kept).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# An unfinished sequence longer than this is not waited for: it is dropped.
_MAX_PENDING = 4096
# Lone surrogates: bytes of a file name that are not UTF-8, as git output is decoded.
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def strip_controls(text: str) -> str:
    """``text`` without escape sequences or control characters (``\\n`` and ``\\t`` kept; a
    carriage return becomes a newline, ``\\r\\n`` one newline)."""
    if not _needs_work(text):
        return text
    text = _SEQUENCE.sub("", text)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _CONTROL.sub("", text)


def _needs_work(text: str) -> bool:
    return _CONTROL.search(text) is not None


class ControlFilter:
    """:func:`strip_controls` for text that arrives in pieces (a streamed reply, a program's
    output): a sequence split between two pieces is held back until it is complete."""

    def __init__(self) -> None:
        self._pending = ""

    def feed(self, text: str) -> str:
        text = self._pending + text
        self._pending = ""
        if not _needs_work(text):
            return text
        text = _SEQUENCE.sub("", text)
        tail = _OPEN_TAIL.search(text)
        if tail is not None and tail.start() < len(text):
            held = text[tail.start() :]
            text = text[: tail.start()]
            if len(held) <= _MAX_PENDING:
                self._pending = held
        return strip_controls(text)

    def finish(self) -> str:
        """What is left at the end (an unfinished sequence is dropped)."""
        held, self._pending = self._pending, ""
        return "\n" if held == "\r" else ""


class SafeTextStream:
    """A text stream that writes to ``raw`` with every control sequence removed.

    It has no ``buffer`` on purpose: writers that look for one (click) then write text here
    instead of bytes around the filter.
    """

    def __init__(self, raw: TextIO) -> None:
        self.raw = raw
        self._filter = ControlFilter()

    def write(self, text: str) -> int:
        shown = self._filter.feed(text)
        if _SURROGATE.search(shown):  # a name that is not UTF-8: show its bytes as \xNN
            shown = shown.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        self.raw.write(shown)
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self.raw.flush()

    def finish(self) -> None:
        """Write what an unfinished sequence held back, and flush."""
        self.raw.write(self._filter.finish())
        self.raw.flush()

    def __getattr__(self, name: str) -> Any:  # encoding, errors, isatty, fileno, ...
        if name == "buffer":
            raise AttributeError(name)
        return getattr(self.raw, name)


def install() -> tuple[SafeTextStream, SafeTextStream]:
    """Filter ``sys.stdout`` and ``sys.stderr`` from now on; returns the two filters."""
    out, err = SafeTextStream(sys.stdout), SafeTextStream(sys.stderr)
    sys.stdout, sys.stderr = out, err
    return out, err
