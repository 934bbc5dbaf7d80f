"""Blank lines and comments a rewrite changed on the way, given back.

Asked that werkzeug's ``secure_filename`` raise TypeError for a non-str, the 1.5B model wrote
the check, and on the way took out the three blank lines that set the function's steps apart
and reworded a comment; the diff a reviewer reads was three times the change. A stretch of
lines that only lost blank lines, or whose comment lines were replaced by other comment lines,
is put back (a comment line dropped alone too), unless the request is about comments, wording
or layout.
"""

from __future__ import annotations

import ast
import difflib

from .intent import asks_about_wording
from .wholefile import Repair


def keep_layout(before: str, after: str, request: str = "") -> Repair | None:
    """``after`` with the blank lines it only lost, and the comment lines it only reworded,
    as ``before`` has them; None when there are none, the request is about comments, wording
    or layout, or the result would not parse."""
    if asks_about_wording(request):
        return None
    old, new = before.split("\n"), after.split("\n")
    lines: list[str] = []
    blanks = comments = 0
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        was, now = old[i1:i2], new[j1:j2]
        if tag in ("delete", "replace") and _layout(was) and (not now or _layout(now)):
            lines += was
            blanks += max(0, _blank(was) - _blank(now))
            comments += len(was) - _blank(was)
        else:
            lines += now
    if not blanks and not comments:
        return None
    repaired = "\n".join(lines)
    try:
        ast.parse(repaired)
    except (SyntaxError, ValueError):
        return None
    said = [f"{blanks} blank line(s)"] if blanks else []
    said += [f"{comments} comment line(s)"] if comments else []
    return Repair(repaired, f"put back {' and '.join(said)} the reply had changed on the way")


def _layout(lines: list[str]) -> bool:
    """Whether every line is blank or a comment (a deleted stretch: blank only)."""
    return all(not line.strip() or line.strip().startswith("#") for line in lines)


def _blank(lines: list[str]) -> int:
    return sum(1 for line in lines if not line.strip())
