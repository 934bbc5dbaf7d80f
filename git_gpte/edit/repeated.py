"""Noticing a reply that starts writing out again a whole file it already wrote.

A small model asked for whole files sometimes writes a file, then the same file again, line
for line: on a small machine that second copy costs as long as the first and adds nothing. Once
a file block under a path already written has begun with the same lines as the earlier block
(enough of them to be sure, or all of a short one), the reply has said everything it will: it
can be cut before the second copy's path line. A second block that differs from the first within
those lines is a correction and is let through (one that differs only further down is taken
for a copy: the first is kept, and the checks judge it). Pure functions on text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping

# How many identical lines of a second block make it a copy (all of them for a shorter block).
SAME_LINES = 20
# A path line, as the prompt shows one too: "File: x.py (only these definitions of it; ...)".
_PATH_LINE = re.compile(r"^(?:File:\s*)?[`*]*([\w./-]+\.\w+)[`*]*:?(?:\s+\([^)]*\))?$")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")


Judge = Callable[[str], "tuple[int, str] | None"]


def repeated_file(text: str) -> tuple[int, str] | None:
    """Where to cut ``text`` (the start of the repeating block's path line) and a note saying
    why, when it has begun a file block that copies an earlier block for the same path, or
    has written out again, under another path, an earlier block of at least SAME_LINES lines
    (its first OTHER_PATH_LINES lines, or all of a shorter one), or begins a block for a path
    with SAME_LINES lines in a row of an earlier block for it (see _runs_again). Seen on
    jinja: the 1.5B model wrote the same 40 lines under ``utils.py``, ``filters.py``,
    ``environment.py`` and on, to its 4,096-token cap (over 12 minutes)."""
    written: dict[str, list[str]] = {}
    blocks: dict[str, list[list[str]]] = {}  # every block so far, by path
    for start, path, body in _blocks(text):
        for other, written_there in written.items():
            if other != path and _copied_elsewhere(body, written_there):
                return (
                    start,
                    f"the reply began writing what it wrote under {other} again, under {path}; "
                    "stopped it there",
                )
        earlier = written.get(path)
        if earlier is None:
            written[path] = body
        elif _copies(body, earlier):
            return (
                start,
                f"the reply began writing {path} out a second time, unchanged; stopped it there",
            )
        if any(_runs_again(body, block) for block in blocks.get(path, [])):
            return (
                start,
                f"the reply began writing again lines it wrote for {path}; stopped it there",
            )
        blocks.setdefault(path, []).append(body)
    return None


def _runs_again(body: list[str], earlier: list[str]) -> bool:
    """Whether a block for a path begins with SAME_LINES lines that an earlier block for it
    holds in a row, anywhere: in the definitions format a reply writes several blocks for one
    file, and seen (minimark/ordered-start) the 1.5B model wrote the same class's method in
    block after block, each beginning elsewhere in it, to its 4,096-token cap (531 s)."""
    if len(body) < SAME_LINES:
        return False
    run = "\n".join(line.rstrip() for line in body[:SAME_LINES])
    return f"\n{run}\n" in "\n" + "\n".join(line.rstrip() for line in earlier) + "\n"


# How many lines of an earlier block written again under another path make a copy: more than a
# shared license header and imports.
OTHER_PATH_LINES = 40


def _copied_elsewhere(body: list[str], earlier: list[str]) -> bool:
    if len(earlier) < SAME_LINES:
        return False
    needed = min(OTHER_PATH_LINES, len(earlier))
    return len(body) >= needed and body[:needed] == earlier[:needed]


def kept_file(kept: frozenset[str]) -> Judge:
    """A judge like :func:`repeated_file` for files that stay as they are (the tests a check
    runs): once the reply, after at least one other file block, begins a block for one of them,
    it has written what will be used; cut it before that block's path line."""

    def judge(text: str) -> tuple[int, str] | None:
        for number, (start, path, _) in enumerate(_blocks(text)):
            if path in kept and number:
                return (
                    start,
                    f"the reply began writing {path}, which stays as it is; stopped it there",
                )
        return None

    return judge


def copied_unasked(current: Callable[[str], str | None], asked: frozenset[str]) -> Judge:
    """A judge for a retry that asked about the files ``asked``: once the reply, after at
    least one other file block, begins a block for another file that copies it as it is now
    (``current(path)``), it has written what will be used; cut it before that block's path
    line. Seen: asked again about one print() left in inventory/store.py, the 1.5B model wrote
    store.py and then four other files out unchanged, 3,466 tokens in 564 s."""
    texts: dict[str, list[str] | None] = {}

    def judge(text: str) -> tuple[int, str] | None:
        for number, (start, path, body) in enumerate(_blocks(text)):
            if not number or path in asked:
                continue
            if path not in texts:
                now = current(path)
                texts[path] = now.split("\n") if now is not None else None
            lines = texts[path]
            if lines is not None and _copies(body, lines):
                return (
                    start,
                    f"the reply began writing {path} out as it is, which the retry did not "
                    "ask about; stopped it there",
                )
        return None

    return judge


# How many lines in a row of a file that stays as it is, inside a block for another file,
# make that block a copy of it; of them, at least this many must hold code (not blank lines).
KEPT_LINES = 6
KEPT_CODE_LINES = 4


def kept_copied_into(kept: Mapping[str, str], current: Callable[[str], str | None]) -> Judge:
    """A judge for a file block that goes on, with no path line of its own, to copy a file
    that stays as it is (``kept``: path to text; the tests a check runs): cut at the first
    copied line, so the block ends where the file's own lines did. Seen: asked for a
    ``__repr__`` of ``Polygon``, the 1.5B model wrote geometry.py out whole with the method at
    its end, then went on in the same block with the functions of tests/test_geometry.py, to
    its output cap (4,110 tokens, 454 s on two cores). Lines the block's own file holds
    (``current(path)``) are not taken for a copy: two files may share a few lines."""
    windows = {w: path for path, text in kept.items() for w in _windows(text.split("\n"))}
    own: dict[str, set[tuple[str, ...]]] = {}

    def judge(text: str) -> tuple[int, str] | None:
        if not windows:
            return None
        lines = text.split("\n")
        starts = _line_starts(lines)
        for start, path, body in _blocks(text):
            if path in kept:
                continue
            if path not in own:
                now = current(path)
                own[path] = _windows(now.split("\n")) if now is not None else set()
            first = starts.index(start) + 2
            for index in range(len(body) - KEPT_LINES + 1):
                window = tuple(line.rstrip() for line in body[index : index + KEPT_LINES])
                if window in windows and window not in own[path]:
                    return (
                        starts[first + index],
                        f"the reply began copying {windows[window]}, which stays as it is, "
                        f"into {path}; "
                        "stopped it there",
                    )
        return None

    return judge


def _windows(lines: list[str]) -> set[tuple[str, ...]]:
    """Every KEPT_LINES lines in a row of ``lines`` (right-stripped) holding enough code."""
    stripped = [line.rstrip() for line in lines]
    return {
        window
        for window in (
            tuple(stripped[i : i + KEPT_LINES]) for i in range(len(stripped) - KEPT_LINES + 1)
        )
        if sum(1 for line in window if line.strip()) >= KEPT_CODE_LINES
    }


def _blocks(text: str) -> Iterator[tuple[int, str, list[str]]]:
    """Each file block begun so far: where its path line starts, the path, its complete lines
    (up to its closing fence, or all that has come)."""
    lines = text.split("\n")
    complete = len(lines) - 1  # the last piece may be a line still being written
    starts = _line_starts(lines)
    index = 0
    while index < complete - 1:
        header = _PATH_LINE.match(lines[index].strip())
        fence = _FENCE.match(lines[index + 1])
        if header is None or fence is None:
            index += 1
            continue
        body, end = _body(lines, index + 2, complete, fence.group(1))
        yield starts[index], header.group(1), body
        index = end + 1


# How many lines in a row, numbered one after the other as the prompt shows files, make a
# block a copy of the prompt rather than code.
NUMBERED_LINES = 12
_NUMBERED = re.compile(r"^\s*(\d+)(?: |$)")


def numbered_copy(text: str) -> tuple[int, str] | None:
    """Where to cut ``text`` when a fenced block has begun copying a file as the prompt shows
    it, each line under its number: what follows is the file as it was, numbers and all (the
    1.5B model, asked for the definitions it changes, wrote an excerpt out so to its output
    cap, twenty minutes on two cores, then answered right when asked again: minimark). Cut
    before the block's heading line (or its fence, when it has none)."""
    lines = text.split("\n")
    complete = len(lines) - 1
    starts = _line_starts(lines)
    fence_at: int | None = None
    run, last = 0, -1
    for index in range(complete):
        line = lines[index]
        if _FENCE.match(line):
            fence_at = None if fence_at is not None else index
            run, last = 0, -1
            continue
        found = _NUMBERED.match(line) if fence_at is not None else None
        number = int(found.group(1)) if found else -1
        run = run + 1 if found and number == last + 1 else (1 if found else 0)
        last = number
        if run >= NUMBERED_LINES and fence_at is not None:
            heading = fence_at - 1
            cut = heading if heading >= 0 and lines[heading].strip() else fence_at
            return (
                starts[cut],
                "the reply began copying a file as it was shown, line numbers and all; "
                "stopped it there",
            )
    return None


# How the prompt heads an excerpt, and marks the lines it leaves out (prompts/messages.py).
_EXCERPT_HEADING = re.compile(r"^(?:File:\s*)?\S+ \(excerpt: lines ")
_NOT_SHOWN = re.compile(r"^⋮ \(lines \d+-\d+ not shown\)")


def excerpt_copy(text: str) -> tuple[int, str] | None:
    """Where to cut ``text`` when it has begun writing out an excerpt as the prompt shows it:
    under the prompt's own excerpt heading, or with the lines the prompt marks as not shown.
    What follows is the file as it was (the 1.5B model wrote the method it changed, then the
    excerpt's other parts to its output cap: 4,075 tokens in 538 s on two cores,
    ledger/transfer-same-account; before a dozen numbered lines, the heading says it). Cut
    before the block's heading line (or its fence, when it has none)."""
    lines = text.split("\n")
    starts = _line_starts(lines)
    fence_at: int | None = None
    for index in range(len(lines) - 1):
        line = lines[index]
        if _FENCE.match(line):
            fence_at = None if fence_at is not None else index
            continue
        if fence_at is None and _EXCERPT_HEADING.match(line.strip()):
            cut = index
        elif fence_at is not None and _NOT_SHOWN.match(line.strip()):
            heading = fence_at - 1
            cut = heading if heading >= 0 and lines[heading].strip() else fence_at
        else:
            continue
        return (
            starts[cut],
            "the reply began copying an excerpt as it was shown; stopped it there",
        )
    return None


def first_cut(*judges: Judge) -> Judge:
    """The judges together: the earliest cut any of them finds."""

    def judge(text: str) -> tuple[int, str] | None:
        cuts = [cut for cut in (j(text) for j in judges) if cut is not None]
        return min(cuts, key=lambda cut: cut[0]) if cuts else None

    return judge


def _line_starts(lines: list[str]) -> list[int]:
    starts, offset = [], 0
    for line in lines:
        starts.append(offset)
        offset += len(line) + 1
    return starts


def _body(lines: list[str], first: int, complete: int, fence: str) -> tuple[list[str], int]:
    """A block's complete lines from ``first`` up to its closing fence (or the text so far),
    and the index of that fence."""
    closer = re.compile(rf"^\s*{re.escape(fence[0])}{{{len(fence)},}}\s*$")
    index = first
    while index < complete and not closer.match(lines[index]):
        index += 1
    return lines[first:index], index


def _copies(body: list[str], earlier: list[str]) -> bool:
    """Whether ``body`` (so far) is the start of ``earlier`` and long enough to say so."""
    needed = min(SAME_LINES, len(earlier))
    return needed > 0 and len(body) >= needed and body[:needed] == earlier[:needed]


def copied_from(path: str, block: str, shown: Mapping[str, str], request: str) -> str | None:
    """The other file of ``shown`` (path → its text) whose whole text ``block``, written for
    ``path``, is (trailing white space and blank lines at either end aside), unless the
    request names that file; None when there is none. A block holding no code line is never
    a copy: an empty ``__init__.py`` is not another file's text."""
    text = _plain(block)
    if not any(line and not line.lstrip().startswith("#") for line in text.split("\n")):
        return None
    for other, other_text in sorted(shown.items()):
        if other == path or other in request or _plain(other_text) != text:
            continue
        return other
    return None


def _plain(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.split("\n")).strip("\n")
