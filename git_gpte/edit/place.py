"""Placing one hunk in a file: strict about where, honest about how sure.

The key is the hunk's whole old side (context and removed lines together); the ``@@`` line number
is only a hint. Matching goes exact, then whitespace-insensitive, then fuzzy on *lines* (an
alignment that tolerates skipped, invented and slightly different lines: see ``align``). When two
places match alike, the hint decides only if it clearly points at one; otherwise the hunk is
refused.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from .align import CONTEXT_SIM, REMOVED_SIM, Alignment, align_lines, line_similarity
from .indent import lead, reindent
from .model import Candidate, Op

Method = Literal["exact", "whitespace", "fuzzy", "insert"]

# Ties between equally good places: the nearest to the hint wins only when it is this close...
HINT_TOLERANCE = 40
# ...and every other place is at least this much farther (2*d + HINT_MARGIN).
HINT_MARGIN = 5
# A number that names one copy exactly decides when the next copy is at least this far.
EXACT_HINT_MARGIN = 2
TIE_SCORE = 0.08  # fuzzy candidates closer than this (per line) score alike
# The most alignment cells (hunk lines x file lines looked at) a fuzzy placement may cost:
# about a second on a small machine (bench/apply.py's largest near-miss cases stay under it).
MAX_ALIGN_CELLS = 1_500_000
MIN_MATCHED = 0.6  # share of the old side's non-blank lines that must be found

# Where fuzzy placement looks: each old-side line found verbatim votes for the start it implies.
# A line found more often than this says nothing about where the hunk goes (a lone "else:").
MAX_ANCHOR_COPIES = 50
MAX_STARTS = 8  # the most-voted starts aligned, at most this many...
SAME_START_DISTANCE = 2  # ...counting starts this close as one
WINDOW_BEFORE = 3  # file lines looked at before a start (the reply may have dropped some)
MIN_WINDOW_SLACK = 6  # and after the hunk's length, at least this many (or the length again)


# How far from the header's line a hunk's result may be found and still count as "given twice".
DUPLICATE_DISTANCE = 40


# One rule for added lines with nothing to place them by (a hunk with no context and no removed
# lines, or an empty SEARCH): they fill a new or empty file, and are refused on a file with text.
NOTHING_TO_PLACE_BY = (
    "the edit has only added lines and nothing to place them by (no context lines, or an empty "
    "SEARCH), and the file is not empty; include 2-3 unchanged lines from around the insertion"
)


def is_blank(lines: Sequence[str]) -> bool:
    """True for a file with no text at all (no lines, or only blank ones)."""
    return not any(line.strip() for line in lines)


def norm(line: str) -> str:
    """A line with all whitespace removed: the whitespace-insensitive key."""
    return line.replace(" ", "").replace("\t", "").replace("\f", "").replace("\v", "")


def _is_trivial(line: str) -> bool:
    """A line too short or too bare (``)``, ``else:``) to tell one place from another."""
    text = line.strip()
    return len(text) < 4 or not any(char.isalnum() for char in text)


class TextLines:
    """A file split into lines for matching; rebuilds text keeping its bytes and style."""

    def __init__(self, text: str) -> None:
        self.bom = "\ufeff" if text.startswith("\ufeff") else ""
        body = text[len(self.bom) :]
        self.final_newline = body.endswith("\n")
        raw = body.split("\n")
        if self.final_newline or body == "":
            raw.pop()
        self.raw = raw
        crlf = sum(1 for line in raw if line.endswith("\r"))
        self.crlf = crlf > 0 and crlf * 2 >= len(raw)
        if "\r" in body:
            self.keys = [line[:-1] if line.endswith("\r") else line for line in raw]
        else:
            self.keys = raw
        self._norms: list[str] | None = None
        self._joined: str | None = None
        self._joined_norms: str | None = None

    def __len__(self) -> int:
        return len(self.keys)

    # Searches run on the whole text joined with newlines (str.find is C speed), so even a
    # 50,000-line file costs a few milliseconds and no per-line Python loop.
    @property
    def joined(self) -> str:
        if self._joined is None:
            self._joined = "\n" + "\n".join(self.keys) + "\n"
        return self._joined

    @property
    def joined_norms(self) -> str:
        if self._joined_norms is None:
            self._joined_norms = norm(self.joined)
        return self._joined_norms

    @property
    def norms(self) -> list[str]:
        if self._norms is None:
            self._norms = self.joined_norms[1:-1].split("\n") if self.keys else []
        return self._norms

    def new_line(self, text: str) -> str:
        """An added line in this file's newline style."""
        return text + "\r" if self.crlf else text

    def render(self, raw: list[str], final_newline: bool) -> str:
        if not raw:
            return self.bom
        return self.bom + "\n".join(raw) + ("\n" if final_newline else "")


# A line of a placed hunk: (op, text, file line), the file line None for an added line.
PlacedLine = tuple[Op, str, int | None]


@dataclass
class Placement:
    """Where a hunk goes: file lines ``start:end`` (0-based) become ``ops``' new side.

    ``ops`` is the corrected hunk: ``(op, text, file_line)``, file_line set for lines taken from
    the file (context and removed), None for added lines.
    """

    start: int
    end: int
    ops: list[PlacedLine]
    method: Method
    notes: list[str] = field(default_factory=list)
    duplicate: bool = False
    # The equally good starts the line number chose among (empty: the content alone decided).
    choices: list[int] = field(default_factory=list)

    @property
    def changes(self) -> bool:
        return any(op != " " for op, _, _ in self.ops)


@dataclass
class Refusal:
    reason: str
    candidate: Candidate | None = None


def choose_by_hint(starts: list[int], hint: int | None) -> tuple[int | None, str]:
    """The one start to use among equally good ``starts`` (0-based), or None and why not."""
    if len(starts) == 1:
        return starts[0], ""
    where = ", ".join(str(start + 1) for start in sorted(starts)[:6])
    if hint is None:
        return (
            None,
            f"the lines occur {len(starts)} times (at lines {where}) "
            "and the hunk has no line number",
        )
    ranked = sorted(starts, key=lambda start: abs(start - hint))
    nearest, runner_up = abs(ranked[0] - hint), abs(ranked[1] - hint)
    if nearest <= HINT_TOLERANCE and runner_up >= 2 * nearest + HINT_MARGIN:
        return ranked[0], ""
    if nearest == 0 and runner_up >= EXACT_HINT_MARGIN:
        # The number names one copy exactly: strong evidence, unless the copies are so close
        # that a number one off (the commonest slip) would name the other.
        return ranked[0], ""
    return None, (
        f"the lines occur {len(starts)} times (at lines {where}) and the hunk's line number "
        f"{hint + 1} does not clearly pick one"
    )


def find_block(joined: str, block: Sequence[str], limit: int = 1000) -> list[int]:
    """Every 0-based start where ``block`` occurs as consecutive lines of ``joined``."""
    if not block:
        return []
    needle = "\n" + "\n".join(block) + "\n"
    starts: list[int] = []
    position = joined.find(needle)
    line, counted = 0, 0
    while position >= 0 and len(starts) < limit:
        line += joined.count("\n", counted, position)
        counted = position
        starts.append(line)
        position = joined.find(needle, position + 1)
    return starts


def _reads_as_edit(removed: str, added: str) -> bool:
    """Whether an added line reads as an edited version of the removed line beside it."""
    return line_similarity(norm(removed), norm(added)) >= CONTEXT_SIM


def locate(
    ops: list[tuple[Op, str]],
    text: TextLines,
    hint: int | None,
    *,
    intends_change: bool | None = None,
) -> Placement | Refusal:
    """Place one (normalised) hunk in ``text``; ``hint`` is the 0-based line the header names."""
    old_indexes = [index for index, (op, _) in enumerate(ops) if op != "+"]
    old = [ops[index][1] for index in old_indexes]
    if not old:
        if is_blank(text.keys):
            return Placement(0, 0, [(op, line, None) for op, line in ops], "insert")
        return Refusal(NOTHING_TO_PLACE_BY)
    searches: tuple[tuple[Method, str, list[str]], ...] = (
        ("exact", text.joined, old),
        ("whitespace", text.joined_norms, [norm(line) for line in old]),
    )
    for method, joined, block in searches:
        starts = find_block(joined, block)
        if starts:
            start, why = choose_by_hint(starts, hint)
            if start is None:
                return Refusal(why, _candidate(text, starts[0], starts[0] + len(old), 1.0))
            mapping = {index: start + offset for offset, index in enumerate(old_indexes)}
            notes = (
                ["whitespace differs from the file; the file's lines were kept"]
                if method == "whitespace"
                else []
            )
            placed = _finish(ops, mapping, start, start + len(old), text, method, notes)
            if isinstance(placed, Placement):
                placed.choices = starts if len(starts) > 1 else []
            return placed
        duplicate = _already_applied(ops, joined, method == "whitespace", hint)
        if duplicate is not None:
            return duplicate
    if intends_change is None:
        intends_change = any(op != " " for op, _ in ops)
    return _place_by_similarity(ops, old_indexes, text, hint, intends_change)


def _already_applied(
    ops: list[tuple[Op, str]], joined: str, loose: bool, hint: int | None
) -> Placement | None:
    """A hunk whose result is already in the file (given twice) is not applied again.

    Only when that result occurs once, and near the header's line number when there is one:
    a short new side can also match some other place by coincidence, and then calling the
    hunk done would report an edit that was never made.
    """
    if not any(op == "+" and line.strip() for op, line in ops):
        return None
    new = [line for op, line in ops if op != "-"]
    if loose:
        new = [norm(line) for line in new]
    starts = find_block(joined, new, limit=2)
    if len(starts) != 1:
        return None
    start = starts[0]
    if hint is not None and abs(start - hint) > max(DUPLICATE_DISTANCE, 3 * len(new)):
        return None
    return Placement(
        start,
        start,
        [],
        "exact",
        [f"already in the file at line {start + 1}; not applied twice"],
        duplicate=True,
    )


def _candidate(text: TextLines, start: int, end: int, score: float) -> Candidate:
    """The place shown with a refusal: lines ``start:end``, at least one, within the file."""
    start = max(0, start)
    end = min(len(text), max(end, start + 1))
    return Candidate(start + 1, end, score, text.keys[start:end])


def _place_by_similarity(
    ops: list[tuple[Op, str]],
    old_indexes: list[int],
    text: TextLines,
    hint: int | None,
    intends_change: bool,
) -> Placement | Refusal:
    """Fuzzy placement, for a hunk whose old side is not in the file as written.

    Align the old side where its lines vote for, pick the best alignment (refusing a tie the
    line number cannot settle), and refuse it unless enough of the hunk was found, in order.
    """
    old = [ops[index][1] for index in old_indexes]
    old_norms = [norm(line) for line in old]
    kinds: list[Op] = [ops[index][0] for index in old_indexes]
    starts = _likely_starts(old_norms, text, hint)
    if not starts:
        return Refusal("none of the hunk's lines are in the file")
    windows = _windows(starts, len(old), len(text))
    if len(old) * sum(high - low for low, high in windows) > MAX_ALIGN_CELLS:
        # Aligning line by line costs hunk lines x file lines: a 3,000-line block in a
        # 20,000-line file would take minutes. Past this size, refuse and say why.
        return Refusal(
            f"the hunk's {len(old)} lines do not occur in the file as written, and a hunk this "
            "long is too long to place by similarity; send it in smaller pieces, copied exactly"
        )
    found = _alignments(old_norms, kinds, text.norms, windows)
    if not found:
        return Refusal("none of the hunk's lines are in the file")
    chosen = _choose_alignment(found, hint, text)
    if isinstance(chosen, Refusal):
        return chosen
    best, choices = chosen
    candidate = _candidate(text, best.first, best.last + 1, best.score)
    problem = _check_alignment(ops, old, kinds, best, text)
    if problem:
        return Refusal(problem, candidate)
    mapping = {old_indexes[index]: line for index, (line, _) in best.pairs.items()}
    notes = _alignment_notes(old, best)
    result = _finish(ops, mapping, best.first, best.last + 1, text, "fuzzy", notes)
    if isinstance(result, Refusal):
        return result
    result.choices = choices
    if not result.changes and intends_change:
        return Refusal(
            "once the lines that are not in the file are left out, this hunk changes nothing "
            "(lines meant to be added must start with '+')",
            candidate,
        )
    return result


def _likely_starts(old_norms: list[str], text: TextLines, hint: int | None) -> list[int]:
    """Where the hunk may start, most likely first: aligning everywhere would cost too much.

    Each old-side line found in the file (the closest lines when none is) votes for the start
    it implies; the header's line number votes too. Starts a few lines apart count as one.
    """
    votes: Counter[int] = Counter()
    for index, line in enumerate(old_norms):
        if not line:
            continue
        positions = find_block(text.joined_norms, [line], limit=MAX_ANCHOR_COPIES + 1)
        if len(positions) > MAX_ANCHOR_COPIES:
            continue
        for position in positions:
            votes[position - index] += 1
    if not votes:
        votes = _votes_by_resemblance(old_norms, text)
    if hint is not None and 0 <= hint < len(text):
        votes[hint] += 1
    starts: list[int] = []
    for start, _ in votes.most_common():
        if all(abs(start - other) > SAME_START_DISTANCE for other in starts):
            starts.append(start)
        if len(starts) >= MAX_STARTS:
            break
    return starts


def _votes_by_resemblance(old_norms: list[str], text: TextLines) -> Counter[int]:
    """Anchors for a hunk none of whose lines is in the file verbatim: the closest lines."""
    from rapidfuzz import fuzz, process

    votes: Counter[int] = Counter()
    longest = sorted(range(len(old_norms)), key=lambda index: -len(old_norms[index]))[:3]
    for index in longest:
        if len(old_norms[index]) < 8:
            continue
        for _, _, position in process.extract(
            old_norms[index], text.norms, scorer=fuzz.ratio, score_cutoff=80, limit=10
        ):
            votes[position - index] += 1
    return votes


def _windows(starts: list[int], hunk_length: int, file_length: int) -> list[tuple[int, int]]:
    """The file ranges to align in, one around each start; overlapping ones are merged, so
    each file line is aligned once."""
    slack = max(MIN_WINDOW_SLACK, hunk_length)
    around = (
        (max(0, start - WINDOW_BEFORE), min(file_length, start + hunk_length + slack))
        for start in starts
    )
    windows: list[tuple[int, int]] = []
    for low, high in sorted(around):
        if low >= high:
            continue
        if windows and low <= windows[-1][1]:
            windows[-1] = (windows[-1][0], max(high, windows[-1][1]))
        else:
            windows.append((low, high))
    return windows


def _alignments(
    old_norms: list[str], kinds: list[Op], file_norms: list[str], windows: list[tuple[int, int]]
) -> dict[int, Alignment]:
    """The best alignment found at each first file line, in all the windows.

    One alignment per window finds only the best place in it: look again beside the best
    place, so a near-copy that shares a window with it is still seen as a rival.
    """
    found = _best_per_start(
        {}, (align_lines(old_norms, kinds, file_norms, low, high) for low, high in windows)
    )
    if not found:
        return found
    best = max(found.values(), key=lambda alignment: alignment.score)
    beside = [
        (low, high)
        for window_low, window_high in windows
        for low, high in (
            (window_low, min(window_high, best.first)),
            (max(window_low, best.last + 1), window_high),
        )
        if high - low >= 1
    ]
    return _best_per_start(
        found, (align_lines(old_norms, kinds, file_norms, low, high) for low, high in beside)
    )


def _best_per_start(
    found: dict[int, Alignment], alignments: Iterable[Alignment | None]
) -> dict[int, Alignment]:
    """``found`` with each new alignment kept where it beats the one at its first line."""
    kept = dict(found)
    for alignment in alignments:
        if alignment is None:
            continue
        if alignment.first not in kept or kept[alignment.first].score < alignment.score:
            kept[alignment.first] = alignment
    return kept


def _choose_alignment(
    found: dict[int, Alignment], hint: int | None, text: TextLines
) -> tuple[Alignment, list[int]] | Refusal:
    """The best alignment and the starts the line number chose among (empty: the score alone
    decided), or a refusal when places score alike and the line number cannot tell them apart.
    """
    ranked = sorted(found.values(), key=lambda alignment: -alignment.score)
    best = ranked[0]
    rivals = [
        alignment
        for alignment in ranked[1:]
        if alignment.score >= best.score - TIE_SCORE
        and (alignment.first > best.last or alignment.last < best.first)
    ]
    if not rivals:
        return best, []
    # A line found verbatim outweighs one that only resembles: among places that score alike,
    # those with the most exactly matching lines stay in the running. Only when that leaves
    # several does the line number get a say.
    tied = [best, *rivals]
    most = max(alignment.exact for alignment in tied)
    tied = [alignment for alignment in tied if alignment.exact == most]
    if len(tied) == 1:
        return tied[0], []
    start, why = choose_by_hint([alignment.first for alignment in tied], hint)
    if start is None:
        return Refusal(
            "the hunk matches several places about equally well: " + why,
            _candidate(text, best.first, best.last + 1, best.score),
        )
    return next(alignment for alignment in tied if alignment.first == start), [
        alignment.first for alignment in tied
    ]


def _check_alignment(
    ops: list[tuple[Op, str]],
    old: list[str],
    kinds: list[Op],
    alignment: Alignment,
    text: TextLines,
) -> str:
    """Why this fuzzy placement is not safe to apply, or "" when it is."""
    pairs = alignment.pairs
    nonblank = [index for index, line in enumerate(old) if line.strip()]
    matched = [index for index in nonblank if index in pairs]
    strong = [index for index in matched if pairs[index][1] >= REMOVED_SIM]
    if not nonblank:
        return "the hunk's context is only blank lines"
    missing_removed = [
        old[index] for index in nonblank if kinds[index] == "-" and index not in pairs
    ]
    if missing_removed:
        return "lines to remove are not in the file: " + "; ".join(
            repr(line.strip()) for line in missing_removed[:3]
        )
    if len(matched) < MIN_MATCHED * len(nonblank) or len(strong) < min(2, len(nonblank)):
        return (
            f"only {len(matched)} of the hunk's {len(nonblank)} non-blank context/removed lines "
            "were found near each other in the file"
        )
    nearby = set(text.norms[max(0, alignment.first - len(old)) : alignment.last + len(old) + 1])
    for index in nonblank:
        if index not in pairs and norm(old[index]) in nearby:
            return f"the hunk puts {old[index].strip()!r} in a different order than the file has it"
    skipped = _skipped_file_lines(alignment)
    if len([line for line in skipped if text.norms[line]]) > max(6, len(old)):
        return f"{len(skipped)} file lines inside the hunk's range are missing from it"
    added = [norm(line) for op, line in ops if op == "+" and not _is_trivial(line)]
    for line in skipped:
        if _is_trivial(text.keys[line]):
            continue
        if any(line_similarity(text.norms[line], new) >= 0.8 for new in added):
            return (
                f"file line {line + 1} {text.keys[line].strip()!r} is missing from the hunk but "
                "resembles an added line: cannot tell whether it should be kept or replaced"
            )
    return ""


def _skipped_file_lines(alignment: Alignment) -> list[int]:
    """The file lines inside the aligned range that no hunk line pairs with."""
    matched = {line for line, _ in alignment.pairs.values()}
    return [line for line in range(alignment.first, alignment.last + 1) if line not in matched]


def _alignment_notes(old: list[str], alignment: Alignment) -> list[str]:
    """What fuzzy placement corrected, for the report: every difference it forgave."""
    notes = []
    invented = [old[index] for index in range(len(old)) if index not in alignment.pairs]
    if invented:
        shown = "; ".join(repr(line.strip()) for line in invented if line.strip())[:160]
        notes.append(
            f"left out {len(invented)} line(s) the file does not have"
            + (f" ({shown})" if shown else "")
        )
    skipped = _skipped_file_lines(alignment)
    if skipped:
        notes.append(f"kept {len(skipped)} file line(s) the hunk skipped")
    differ = sum(1 for _, similarity in alignment.pairs.values() if similarity < 1.0)
    if differ:
        notes.append(f"{differ} line(s) differ slightly from the file; the file's text was kept")
    return notes


def _finish(
    ops: list[tuple[Op, str]],
    mapping: dict[int, int],
    start: int,
    end: int,
    text: TextLines,
    method: Method,
    notes: list[str],
) -> Placement | Refusal:
    """The corrected hunk: file lines for context, skipped lines kept, added lines as given
    (moved to the file's depth when the matched lines show the reply's indentation is off)."""
    unit = _tab_unit(ops, mapping, text)
    if not unit:
        moved = reindent(ops, mapping, text.keys, _reads_as_edit)
        if isinstance(moved, str):
            return Refusal(moved, _candidate(text, start, end, 1.0))
        if moved.note:
            ops, notes = moved.ops, [*notes, moved.note]
    placed = _with_file_lines(ops, mapping, start, text)
    placed, start, note = _drop_repeated_leading(placed, start, text)
    notes = [*notes, note] if note else notes
    placed, end, note = _drop_repeated_trailing(placed, end, text)
    notes = [*notes, note] if note else notes
    if unit:
        tabbed = [
            (op, _with_tabs(line, unit) if op == "+" else line, file_line)
            for op, line, file_line in placed
        ]
        if tabbed != placed:
            placed = tabbed
            notes = [*notes, f"added lines indented with tabs like the file ({unit} spaces each)"]
    return Placement(start, end, placed, method, notes)


def _with_file_lines(
    ops: list[tuple[Op, str]], mapping: dict[int, int], start: int, text: TextLines
) -> list[PlacedLine]:
    """The hunk in the file's words: each placed line as the file has it, the file lines the
    hunk skipped kept as context, lines the file does not have left out, added lines as given.
    """
    placed: list[PlacedLine] = []
    next_line = start
    for index, (op, line) in enumerate(ops):
        if op == "+":
            placed.append(("+", line, None))
            continue
        file_line = mapping.get(index)
        if file_line is None:
            continue  # a line the file does not have
        while next_line < file_line:
            placed.append((" ", text.keys[next_line], next_line))
            next_line += 1
        placed.append((op, text.keys[file_line], file_line))
        next_line = file_line + 1
    return placed


def _drop_repeated_leading(
    placed: list[PlacedLine], start: int, text: TextLines
) -> tuple[list[PlacedLine], int, str]:
    """Added lines at the top that repeat the file lines just above the hunk were context the
    reply marked ``+``: they become context (the hunk starts earlier), not a second copy.

    Returns the hunk, its start and a note ("" when nothing repeated).
    """
    first_context = next(
        (position for position, (op, _, _) in enumerate(placed) if op == " "), len(placed)
    )
    leading = [position for position in range(first_context) if placed[position][0] == "+"]
    for count in range(len(leading), 0, -1):
        above = start - count
        repeated = [placed[position][1] for position in leading[:count]]
        if (
            above >= 0
            and not all(_is_trivial(line) for line in repeated)
            and all(norm(line) == text.norms[above + row] for row, line in enumerate(repeated))
        ):
            dropped = set(leading[:count])
            context: list[PlacedLine] = [
                (" ", text.keys[above + row], above + row) for row in range(count)
            ]
            rest = [line for position, line in enumerate(placed) if position not in dropped]
            note = f"{count} added line(s) already precede the hunk in the file; not added twice"
            return context + rest, above, note
    return placed, start, ""


def _drop_repeated_trailing(
    placed: list[PlacedLine], end: int, text: TextLines
) -> tuple[list[PlacedLine], int, str]:
    """Added lines at the bottom that repeat the file lines just below the hunk were context:
    they become context (the hunk ends later), not a second copy.

    Returns the hunk, its end and a note ("" when nothing repeated).
    """
    last_context = max(
        (position for position, (op, _, _) in enumerate(placed) if op == " "), default=-1
    )
    trailing = [
        position for position in range(last_context + 1, len(placed)) if placed[position][0] == "+"
    ]
    for count in range(len(trailing), 0, -1):
        repeated = [placed[position][1] for position in trailing[len(trailing) - count :]]
        if (
            end + count <= len(text)
            and not all(_is_trivial(line) for line in repeated)
            and all(norm(line) == text.norms[end + row] for row, line in enumerate(repeated))
        ):
            dropped = set(trailing[len(trailing) - count :])
            rest = [line for position, line in enumerate(placed) if position not in dropped]
            context: list[PlacedLine] = [
                (" ", text.keys[end + row], end + row) for row in range(count)
            ]
            note = f"{count} added line(s) already follow the hunk in the file; not added twice"
            return rest + context, end + count, note
    return placed, end, ""


def _tab_unit(ops: list[tuple[Op, str]], mapping: dict[int, int], text: TextLines) -> int:
    """Spaces per tab when the hunk indents with spaces what the file indents with tabs, else 0.

    Only a consistent mapping counts (every indented pair agrees): then added lines written with
    spaces would mix indentation styles in the file (a TabError in Python).
    """
    units: set[int] = set()
    for index, file_line in mapping.items():
        mine, theirs = lead(ops[index][1]), lead(text.keys[file_line])
        tabs = len(theirs) - len(theirs.lstrip("\t"))
        spaces = len(theirs) - tabs
        if theirs != "\t" * tabs + " " * spaces or (mine and set(mine) != {" "}):
            return 0  # the file's indentation is not tabs then spaces, or the reply's not spaces
        if tabs == 0:
            if len(mine) != spaces:
                return 0
            continue
        if (len(mine) - spaces) % tabs or len(mine) <= spaces:
            return 0
        units.add((len(mine) - spaces) // tabs)
    return units.pop() if len(units) == 1 else 0


def _with_tabs(line: str, unit: int) -> str:
    """An added line's space indentation as the file's tabs, ``unit`` spaces to a tab."""
    indentation = lead(line)
    if not indentation or set(indentation) != {" "}:
        return line
    return (
        "\t" * (len(indentation) // unit)
        + " " * (len(indentation) % unit)
        + line[len(indentation) :]
    )
