"""Added lines at the file's depth when the reply's lines lost (or gained) indentation.

A hunk placed ignoring whitespace (a SEARCH block copied without its indentation, say) keeps the
file's own text for the lines it matched, but its added lines are the reply's: written as given
they land at the wrong depth (``x = 10`` at column 0 inside a method: an IndentationError),
while the report calls the edit a safe correction. The matched lines show how the reply's
indentation relates to the file's; this module moves the added lines the same way, or says why
it cannot be told.

Pure functions: lines in, lines (or a reason to refuse) out.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .model import Op

# How a reply line's indentation relates to its file line's: ("=", "") the same; ("+", P) the
# file has P in front of the reply's; ("-", P) the reply has P in front of the file's; ("?", "")
# neither is a prefix of the other (tabs against spaces, say).
Shift = tuple[str, str]
SAME: Shift = ("=", "")

# A line ending like this opens a deeper level (or continues onto the next line); a line
# starting like this closes one. Used only to tell whether a run of added lines that lost its
# indentation was flat to begin with.
_OPENERS = (":", "{", "(", "[", ",", "\\", "=>", "->", " do", " then", "|")
_CLOSERS = ("}", ")", "]", "else", "elif", "except", "finally", "catch", "end", "fi", "done")


def lead(line: str) -> str:
    """The line's indentation (leading spaces and tabs)."""
    return line[: len(line) - len(line.lstrip(" \t"))]


def shift_between(reply_line: str, file_line: str) -> Shift:
    """How ``reply_line``'s indentation relates to ``file_line``'s.

    One space short counts as the same: that is a diff's context line that lost its leading
    space (the ``+`` lines kept theirs and are right as written), not lost indentation.
    """
    mine, theirs = lead(reply_line), lead(file_line)
    if mine == theirs or theirs == " " + mine:
        return SAME
    if theirs.endswith(mine):
        return ("+", theirs[: len(theirs) - len(mine)])
    if mine.endswith(theirs):
        return ("-", mine[: len(mine) - len(theirs)])
    return ("?", "")


def _moved(line: str, shift: Shift) -> str | None:
    """``line`` moved by ``shift``; None when it lacks the indentation to take away."""
    if not line.strip() or shift == SAME:
        return line if line.strip() else ""
    kind, prefix = shift
    if kind == "+":
        return prefix + line
    if kind == "-" and lead(line).startswith(prefix):
        return line[len(prefix) :]
    return None


def _describe(prefix: str) -> str:
    tabs, spaces = prefix.count("\t"), prefix.count(" ")
    parts = [f"{tabs} tab{'s' * (tabs != 1)}"] if tabs else []
    parts += [f"{spaces} space{'s' * (spaces != 1)}"] if spaces else []
    return " and ".join(parts)


@dataclass
class Reindented:
    ops: list[tuple[Op, str]]
    note: str  # "" when nothing moved


def reindent(
    ops: Sequence[tuple[Op, str]],
    mapping: dict[int, int],
    file_lines: Sequence[str],
    similar: Callable[[str, str], bool],
) -> Reindented | str:
    """``ops`` with the added lines moved to the file's depth, or why that cannot be told.

    ``mapping``: hunk line index -> file line for every context/removed line that was placed.
    ``similar(a, b)``: whether added line ``b`` is an edited version of removed line ``a``.

    One shift for every matched line: every added line takes it. Shifts that vary (the reply
    flattened nested code, or drifted on a few lines): each run of added lines takes the shift
    of the lines it replaces, or of the lines around it when it only inserts, when those agree;
    a run that lost its own nesting is moved only if it was flat (no line opens a block) or
    replaces as many similar lines one by one. Anything else is refused.
    """
    shifts = {
        k: shift_between(ops[k][1], file_lines[j])
        for k, j in mapping.items()
        if ops[k][1].strip() and file_lines[j].strip()
    }
    kinds = set(shifts.values())
    if kinds <= {SAME}:
        return Reindented(list(ops), "")
    added = [k for k, (op, t) in enumerate(ops) if op == "+" and t.strip()]
    if not added:
        return Reindented(list(ops), "")
    one_depth = len({lead(ops[k][1]) for k in shifts}) == 1
    if len(kinds) == 1:
        (shift,) = kinds
        if shift[0] == "?":
            sample = next(iter(shifts))
            return (
                f"the hunk indents {ops[sample][1].strip()!r} with {lead(ops[sample][1])!r} "
                f"where the file has {lead(file_lines[mapping[sample]])!r}; cannot tell how to "
                "indent the added lines"
            )
        if shift[0] == "+" and one_depth:
            # The matched lines are all at one depth, so whether the reply dropped just their
            # common indentation or all of it cannot be seen: the added lines' own nesting is
            # trusted only where it is visible, or where they are flat anyway.
            for block in _change_blocks(ops):
                plus = [k for k in block if k in added]
                if plus and not _visible(ops, block, plus):
                    return _uneven(ops, plus)
        moved = {k: _moved(ops[k][1], shift) for k in added}
        if any(v is None for v in moved.values()):
            return _uneven(ops, [k for k, v in moved.items() if v is None])
        deeper = "deeper" if shift[0] == "+" else "less deep"
        note = (
            f"added lines indented {_describe(shift[1])} {deeper}, as the lines the hunk "
            "matched are in the file"
        )
        return Reindented(_with(ops, moved), note)
    # All at one depth in the reply, several in the file: the reply lost its nesting, so a
    # line that matched at its own depth says nothing about the depth of what was added.
    flattened = one_depth
    moved = {}
    for block in _change_blocks(ops):
        plus = [k for k in block if k in added]
        if not plus:
            continue
        minus = [k for k in block if ops[k][0] == "-" and k in shifts]
        before = [k for k in shifts if k < block[0]][-1:]
        after = [k for k in shifts if k > block[-1]][:1]
        if not flattened and _agrees(ops, plus, minus, before, after, shifts, mapping, file_lines):
            continue  # at the file's depth already: a neighbour's lost indentation is not theirs
        if minus and not flattened:
            anchors = [shifts[k] for k in minus]
        else:
            # Lost nesting: added lines may sit at the depth of what they replace or of what
            # comes before or after them; only where all of those agree is the depth known.
            anchors = [shifts[k] for k in before + minus + after]
        found = set(anchors)
        if found == {SAME} and not flattened:
            continue  # drift elsewhere; the lines around these match the file as written
        one = next(iter(found)) if len(found) == 1 and len(anchors) >= (1 if minus else 2) else None
        if one is not None and one[0] != "?" and not (flattened and not _visible(ops, block, plus)):
            moved.update({k: _moved(ops[k][1], one) for k in plus})
            continue
        if len(minus) == len(plus) and all(
            similar(ops[a][1], ops[b][1]) and shifts[a][0] != "?"
            for a, b in zip(minus, plus, strict=True)
        ):
            moved.update(
                {b: _moved(ops[b][1], shifts[a]) for a, b in zip(minus, plus, strict=True)}
            )
            continue
        return _uneven(ops, plus)
    if any(v is None for v in moved.values()):
        return _uneven(ops, [k for k, v in moved.items() if v is None])
    if not any(moved[k] != ops[k][1] for k in moved):
        return Reindented(list(ops), "")
    note = "added lines moved line by line to the file's depth (the hunk lost its indentation)"
    return Reindented(_with(ops, moved), note)


def _agrees(
    ops: Sequence[tuple[Op, str]],
    plus: list[int],
    minus: list[int],
    before: list[int],
    after: list[int],
    shifts: dict[int, Shift],
    mapping: dict[int, int],
    file_lines: Sequence[str],
) -> bool:
    """Whether a run of added lines already sits at the file's depth, whatever the lines
    around it lost: indented like the file's first line it replaces, or, when it only inserts,
    like a neighbour the reply copied exactly (not one that opens a block: what follows that is
    deeper)."""
    depth = lead(ops[plus[0]][1])
    if minus:
        return depth == lead(file_lines[mapping[minus[0]]])
    exact = [k for k in after if shifts[k] == SAME]
    exact += [k for k in before if shifts[k] == SAME and not ops[k][1].rstrip().endswith(_OPENERS)]
    return any(depth == lead(file_lines[mapping[k]]) for k in exact)


def _with(ops: Sequence[tuple[Op, str]], moved: dict[int, str | None]) -> list[tuple[Op, str]]:
    return [(op, moved.get(k) or t if op == "+" else t) for k, (op, t) in enumerate(ops)]


def _uneven(ops: Sequence[tuple[Op, str]], where: list[int]) -> str:
    first = ops[where[0]][1].strip()
    return (
        "the hunk's lines are indented differently from the file's, unevenly: cannot tell how "
        f"deep to indent the added line {first!r}; copy the lines with the file's indentation"
    )


def _change_blocks(ops: Sequence[tuple[Op, str]]) -> list[list[int]]:
    """Runs of consecutive removed/added lines, as hunk line indexes."""
    blocks: list[list[int]] = []
    for k, (op, _) in enumerate(ops):
        if op == " ":
            continue
        if blocks and blocks[-1][-1] == k - 1:
            blocks[-1].append(k)
        else:
            blocks.append([k])
    return blocks


def _visible(ops: Sequence[tuple[Op, str]], block: list[int], plus: list[int]) -> bool:
    """Whether the depth of a run of added lines can be told from the reply's own text.

    Not when the run lost its internal nesting (see :func:`_flat`), nor when its change
    ``block`` follows a line that opens a block and the run is not indented deeper than it:
    the run belongs inside the block, at a depth the reply no longer shows.
    """
    if not _flat(ops, plus):
        return False
    before = [t for op, t in ops[: block[0]] if op != "+" and t.strip()][-1:]
    return not (
        before
        and before[0].rstrip().endswith(_OPENERS)
        and len(lead(ops[plus[0]][1])) <= len(lead(before[0]))
    )


def _flat(ops: Sequence[tuple[Op, str]], plus: list[int]) -> bool:
    """Whether a run of added lines that lost its indentation was at one depth anyway."""
    if len(plus) == 1:
        return True
    texts = [ops[k][1] for k in plus]
    if len({lead(t) for t in texts}) > 1:
        return True  # the reply kept the run's own nesting: moving it keeps that
    opens = any(t.rstrip().endswith(_OPENERS) for t in texts[:-1])
    closes = any(t.strip().startswith(_CLOSERS) for t in texts[1:])
    return not opens and not closes
