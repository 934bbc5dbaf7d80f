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
    """An indentation in words, for the report: "1 tab and 2 spaces"."""
    tabs, spaces = prefix.count("\t"), prefix.count(" ")
    parts = [f"{tabs} tab{'s' * (tabs != 1)}"] if tabs else []
    parts += [f"{spaces} space{'s' * (spaces != 1)}"] if spaces else []
    return " and ".join(parts)


@dataclass
class Reindented:
    """The hunk with its added lines at the file's depth, and what moved, for the report."""

    ops: list[tuple[Op, str]]
    note: str  # "" when nothing moved


@dataclass(frozen=True)
class _Evidence:
    """What the placed lines show: the hunk, the file line each matched hunk line landed on,
    and how each matched (non-blank) line's indentation relates to its file line's."""

    ops: Sequence[tuple[Op, str]]
    mapping: dict[int, int]
    file_lines: Sequence[str]
    shifts: dict[int, Shift]


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
        index: shift_between(ops[index][1], file_lines[file_line])
        for index, file_line in mapping.items()
        if ops[index][1].strip() and file_lines[file_line].strip()
    }
    distinct = set(shifts.values())
    if distinct <= {SAME}:
        return Reindented(list(ops), "")
    added = [index for index, (op, line) in enumerate(ops) if op == "+" and line.strip()]
    if not added:
        return Reindented(list(ops), "")
    evidence = _Evidence(ops, mapping, file_lines, shifts)
    one_depth = len({lead(ops[index][1]) for index in shifts}) == 1
    if len(distinct) == 1:
        (shift,) = distinct
        return _by_one_shift(evidence, added, shift, one_depth)
    # All at one depth in the reply, several in the file: the reply lost its nesting, so a
    # line that matched at its own depth says nothing about the depth of what was added.
    return _run_by_run(evidence, added, similar, flattened=one_depth)


def _by_one_shift(
    evidence: _Evidence, added: list[int], shift: Shift, one_depth: bool
) -> Reindented | str:
    """Every matched line is off by the same ``shift``: the added lines move by it too."""
    ops = evidence.ops
    if shift[0] == "?":
        sample = next(iter(evidence.shifts))
        return (
            f"the hunk indents {ops[sample][1].strip()!r} with {lead(ops[sample][1])!r} "
            f"where the file has {lead(evidence.file_lines[evidence.mapping[sample]])!r}; "
            "cannot tell how to indent the added lines"
        )
    if shift[0] == "+" and one_depth:
        # The matched lines are all at one depth, so whether the reply dropped just their
        # common indentation or all of it cannot be seen: the added lines' own nesting is
        # trusted only where it is visible, or where they are flat anyway.
        for block in _change_blocks(ops):
            plus = [index for index in block if index in added]
            if plus and not _visible(ops, block, plus):
                return _uneven(ops, plus)
    moved = {index: _moved(ops[index][1], shift) for index in added}
    if any(line is None for line in moved.values()):
        return _uneven(ops, [index for index, line in moved.items() if line is None])
    deeper = "deeper" if shift[0] == "+" else "less deep"
    note = (
        f"added lines indented {_describe(shift[1])} {deeper}, as the lines the hunk "
        "matched are in the file"
    )
    return Reindented(_with(ops, moved), note)


def _run_by_run(
    evidence: _Evidence,
    added: list[int],
    similar: Callable[[str, str], bool],
    flattened: bool,
) -> Reindented | str:
    """The matched lines are off by different shifts: each run of added lines is moved by the
    shift of the lines it belongs with (see :func:`_run_moves`), or the hunk is refused."""
    ops = evidence.ops
    moved: dict[int, str | None] = {}
    for block in _change_blocks(ops):
        plus = [index for index in block if index in added]
        if not plus:
            continue
        run = _run_moves(evidence, block, plus, similar, flattened)
        if isinstance(run, str):
            return run
        moved.update(run)
    if any(line is None for line in moved.values()):
        return _uneven(ops, [index for index, line in moved.items() if line is None])
    if not any(moved[index] != ops[index][1] for index in moved):
        return Reindented(list(ops), "")
    note = "added lines moved line by line to the file's depth (the hunk lost its indentation)"
    return Reindented(_with(ops, moved), note)


def _run_moves(
    evidence: _Evidence,
    block: list[int],
    plus: list[int],
    similar: Callable[[str, str], bool],
    flattened: bool,
) -> dict[int, str | None] | str:
    """The added lines ``plus`` of one change ``block``, moved (None: cannot be), or why
    their depth cannot be told. Empty when they stay as written.

    They take the shift of the lines they replace, or of the lines around them when they only
    insert (or when the reply was ``flattened``), when those agree; else each takes the shift
    of the similar removed line it replaces, one by one.
    """
    ops, shifts = evidence.ops, evidence.shifts
    minus = [index for index in block if ops[index][0] == "-" and index in shifts]
    before = [index for index in shifts if index < block[0]][-1:]
    after = [index for index in shifts if index > block[-1]][:1]
    if not flattened and _agrees(evidence, plus, minus, before, after):
        return {}  # at the file's depth already: a neighbour's lost indentation is not theirs
    if minus and not flattened:
        anchors = [shifts[index] for index in minus]
    else:
        # Lost nesting: added lines may sit at the depth of what they replace or of what
        # comes before or after them; only where all of those agree is the depth known.
        anchors = [shifts[index] for index in before + minus + after]
    found = set(anchors)
    if found == {SAME} and not flattened:
        return {}  # drift elsewhere; the lines around these match the file as written
    enough = len(anchors) >= (1 if minus else 2)
    common = next(iter(found)) if len(found) == 1 and enough else None
    if (
        common is not None
        and common[0] != "?"
        and not (flattened and not _visible(ops, block, plus))
    ):
        return {index: _moved(ops[index][1], common) for index in plus}
    if len(minus) == len(plus) and all(
        similar(ops[removed][1], ops[replacement][1]) and shifts[removed][0] != "?"
        for removed, replacement in zip(minus, plus, strict=True)
    ):
        return {
            replacement: _moved(ops[replacement][1], shifts[removed])
            for removed, replacement in zip(minus, plus, strict=True)
        }
    return _uneven(ops, plus)


def _agrees(
    evidence: _Evidence,
    plus: list[int],
    minus: list[int],
    before: list[int],
    after: list[int],
) -> bool:
    """Whether a run of added lines already sits at the file's depth, whatever the lines
    around it lost: indented like the file's first line it replaces, or, when it only inserts,
    like a neighbour the reply copied exactly (not one that opens a block: what follows that is
    deeper)."""
    ops, shifts, file_lines, mapping = (
        evidence.ops,
        evidence.shifts,
        evidence.file_lines,
        evidence.mapping,
    )
    depth = lead(ops[plus[0]][1])
    if minus:
        return depth == lead(file_lines[mapping[minus[0]]])
    exact = [index for index in after if shifts[index] == SAME]
    exact += [
        index
        for index in before
        if shifts[index] == SAME and not ops[index][1].rstrip().endswith(_OPENERS)
    ]
    return any(depth == lead(file_lines[mapping[index]]) for index in exact)


def _with(ops: Sequence[tuple[Op, str]], moved: dict[int, str | None]) -> list[tuple[Op, str]]:
    """``ops`` with the added lines that moved in their new place."""
    return [
        (op, moved.get(index) or line if op == "+" else line)
        for index, (op, line) in enumerate(ops)
    ]


def _uneven(ops: Sequence[tuple[Op, str]], where: list[int]) -> str:
    """The refusal for added lines whose depth cannot be told, naming the first of them."""
    first = ops[where[0]][1].strip()
    return (
        "the hunk's lines are indented differently from the file's, unevenly: cannot tell how "
        f"deep to indent the added line {first!r}; copy the lines with the file's indentation"
    )


def _change_blocks(ops: Sequence[tuple[Op, str]]) -> list[list[int]]:
    """Runs of consecutive removed/added lines, as hunk line indexes."""
    blocks: list[list[int]] = []
    for index, (op, _) in enumerate(ops):
        if op == " ":
            continue
        if blocks and blocks[-1][-1] == index - 1:
            blocks[-1].append(index)
        else:
            blocks.append([index])
    return blocks


def _visible(ops: Sequence[tuple[Op, str]], block: list[int], plus: list[int]) -> bool:
    """Whether the depth of a run of added lines can be told from the reply's own text.

    Not when the run lost its internal nesting (see :func:`_flat`), nor when its change
    ``block`` follows a line that opens a block and the run is not indented deeper than it:
    the run belongs inside the block, at a depth the reply no longer shows.
    """
    if not _flat(ops, plus):
        return False
    before = [line for op, line in ops[: block[0]] if op != "+" and line.strip()][-1:]
    return not (
        before
        and before[0].rstrip().endswith(_OPENERS)
        and len(lead(ops[plus[0]][1])) <= len(lead(before[0]))
    )


def _flat(ops: Sequence[tuple[Op, str]], plus: list[int]) -> bool:
    """Whether a run of added lines that lost its indentation was at one depth anyway."""
    if len(plus) == 1:
        return True
    lines = [ops[index][1] for index in plus]
    if len({lead(line) for line in lines}) > 1:
        return True  # the reply kept the run's own nesting: moving it keeps that
    opens = any(line.rstrip().endswith(_OPENERS) for line in lines[:-1])
    closes = any(line.strip().startswith(_CLOSERS) for line in lines[1:])
    return not opens and not closes
