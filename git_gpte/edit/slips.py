"""Names an edit misspells by a leading underscore, put right as an editor's quick fix does.

The 1.5B model wrote ``PRIORITY_BY_NAME`` for its module's ``_PRIORITY_BY_NAME`` and, told
that the name is undefined and asked "did you mean '_PRIORITY_BY_NAME'?", wrote it the same way
three times (bench/solve.py: todo/priority-value-error). A name that nothing defines, whose
only difference from a name the module defines at its top level is the leading underscore,
can mean nothing else.
"""

from __future__ import annotations

import ast
from collections.abc import Collection

from .wholefile import Repair


def underscore_slips(before: str | None, after: str, local: Collection[str] = ()) -> Repair | None:
    """``after`` with each name it reads and nothing defines, which ``before`` did not leave
    undefined, spelled as the one top-level name of the module it differs from by a leading
    underscore (``X`` for ``_X``, ``_X`` for ``X``); None when there is none. ``local`` is
    unused (the signature of the other whole-file repairs)."""
    from .pycheck import defined_names, undefined_names

    now = undefined_names(after)
    try:
        tree = ast.parse(after)
    except (SyntaxError, ValueError):
        return None
    if not now:
        return None
    had = (undefined_names(before) or set()) if before is not None else set()
    defined = defined_names(tree)
    fixes: dict[str, str] = {}
    for name in sorted(now - had):
        other = name[1:] if name.startswith("_") else f"_{name}"
        if other in defined and other not in now:
            fixes[name] = other
    if not fixes:
        return None
    places = sorted(
        (node.lineno, node.col_offset, node.id)
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and node.id in fixes and isinstance(node.ctx, ast.Load)
    )
    lines = after.split("\n")
    for row, col, name in reversed(places):
        line = lines[row - 1]
        if line[col : col + len(name)] != name:  # a column counted in bytes, past non-ASCII
            return None
        lines[row - 1] = line[:col] + fixes[name] + line[col + len(name) :]
    text = "\n".join(lines)
    left = undefined_names(text)
    if left is None or set(fixes) & left:
        return None
    said = ", ".join(f"{new} for {old}" for old, new in fixes.items())
    return Repair(text, f"used the module's own {said} ({len(places)} place(s))")
