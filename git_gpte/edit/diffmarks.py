"""A whole file written with the retry's diff markers still on some of its lines.

A retry after a failing check shows the edits so far as a unified diff. Asked for the whole
file again, the 1.5B model wrote the file with the diff's lines pasted in as they were shown:
``+    if not text.isdigit() ...`` and context lines still led by the diff's space, which do
not parse
(bench/solve.py: invoice/value-error, twice). Taking the markers off (``+`` lines kept,
``-`` lines dropped, context lines given back their own indentation) is what was meant.
"""

from __future__ import annotations

from .wholefile import Repair, parses


def unmark_diff(before: str, after: str) -> Repair | None:
    """``after`` with the diff markers taken off its marked lines, when ``after`` does not
    parse and that makes it parse; None otherwise. A ``-`` line counts only when it is a line
    of ``before``; a context line (one space, then a line of ``before``) only beside marked
    lines."""
    if parses(after):
        return None
    had = set(before.split("\n"))
    lines = after.split("\n")
    marked = [_mark(line, had) for line in lines]
    for i, mark in enumerate(marked):
        if mark != " ":
            continue
        near = [m for m in marked[max(0, i - 3) : i + 4] if m in ("+", "-")]
        marked[i] = " " if near else ""
    out: list[str] = []
    taken = 0
    for line, mark in zip(lines, marked, strict=True):
        if mark == "-":
            taken += 1
            continue
        if mark in ("+", " "):
            taken += 1
            line = line[1:]
        out.append(line)
    text = "\n".join(out)
    if not taken or not parses(text):
        return None
    return Repair(text, f"took the diff markers off {taken} line(s) the reply copied from a diff")


def _mark(line: str, had: set[str]) -> str:
    """``+``, ``-`` or `` `` for a line that looks copied from a diff, else ""."""
    if line.startswith("+") and not line.startswith("+++"):
        return "+"
    if line.startswith("-") and not line.startswith("---") and line[1:] in had:
        return "-"
    if line.startswith(" ") and line[1:] in had and line not in had and line.strip():
        return " "
    return ""
