"""Placing one hunk in a file: strict about where, honest about how sure.

The key is the hunk's whole old side (context and removed lines together); the ``@@`` line number
is only a hint. Matching goes exact, then whitespace-insensitive, then fuzzy on *lines* (an
alignment that tolerates skipped, invented and slightly different lines: see ``align``). When two
places match alike, the hint decides only if it clearly points at one; otherwise the hunk is
refused.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from .align import CONTEXT_SIM, REMOVED_SIM, Alignment, align_lines, line_similarity
from .indent import reindent
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


def _trivial(line: str) -> bool:
    text = line.strip()
    return len(text) < 4 or not any(c.isalnum() for c in text)


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


@dataclass
class Placement:
    """Where a hunk goes: file lines ``start:end`` (0-based) become ``ops``' new side.

    ``ops`` is the corrected hunk: ``(op, text, file_line)``, file_line set for lines taken from
    the file (context and removed), None for added lines.
    """

    start: int
    end: int
    ops: list[tuple[Op, str, int | None]]
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
    where = ", ".join(str(s + 1) for s in sorted(starts)[:6])
    if hint is None:
        return (
            None,
            f"the lines occur {len(starts)} times (at lines {where}) "
            "and the hunk has no line number",
        )
    ranked = sorted(starts, key=lambda s: abs(s - hint))
    d1, d2 = abs(ranked[0] - hint), abs(ranked[1] - hint)
    if d1 <= HINT_TOLERANCE and d2 >= 2 * d1 + HINT_MARGIN:
        return ranked[0], ""
    if d1 == 0 and d2 >= EXACT_HINT_MARGIN:
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
    pos = joined.find(needle)
    line, counted = 0, 0
    while pos >= 0 and len(starts) < limit:
        line += joined.count("\n", counted, pos)
        counted = pos
        starts.append(line)
        pos = joined.find(needle, pos + 1)
    return starts


def _similar(removed: str, added: str) -> bool:
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
    old_idx = [k for k, (op, _) in enumerate(ops) if op != "+"]
    old = [ops[k][1] for k in old_idx]
    if not old:
        if is_blank(text.keys):
            return Placement(0, 0, [(op, t, None) for op, t in ops], "insert")
        return Refusal(NOTHING_TO_PLACE_BY)
    for method, joined, block in (
        ("exact", text.joined, old),
        ("whitespace", text.joined_norms, [norm(x) for x in old]),
    ):
        starts = find_block(joined, block)
        if starts:
            start, why = choose_by_hint(starts, hint)
            if start is None:
                return Refusal(why, _candidate(text, starts[0], starts[0] + len(old), 1.0))
            mapping = {k: start + i for i, k in enumerate(old_idx)}
            notes = (
                ["whitespace differs from the file; the file's lines were kept"]
                if method == "whitespace"
                else []
            )
            placed = _finish(ops, mapping, start, start + len(old), text, method, notes)  # type: ignore[arg-type]
            if isinstance(placed, Placement):
                placed.choices = starts if len(starts) > 1 else []
            return placed
        dup = _already_applied(ops, joined, method == "whitespace", hint)
        if dup is not None:
            return dup
    if intends_change is None:
        intends_change = any(op != " " for op, _ in ops)
    return _fuzzy(ops, old_idx, old, text, hint, intends_change)


def _already_applied(
    ops: list[tuple[Op, str]], joined: str, loose: bool, hint: int | None
) -> Placement | None:
    """A hunk whose result is already in the file (given twice) is not applied again.

    Only when that result occurs once, and near the header's line number when there is one:
    a short new side can also match some other place by coincidence, and then calling the
    hunk done would report an edit that was never made.
    """
    if not any(op == "+" and t.strip() for op, t in ops):
        return None
    new = [t for op, t in ops if op != "-"]
    if loose:
        new = [norm(t) for t in new]
    starts = find_block(joined, new, limit=2)
    if len(starts) != 1:
        return None
    s = starts[0]
    if hint is not None and abs(s - hint) > max(DUPLICATE_DISTANCE, 3 * len(new)):
        return None
    return Placement(
        s,
        s,
        [],
        "exact",
        [f"already in the file at line {s + 1}; not applied twice"],
        duplicate=True,
    )


def _candidate(text: TextLines, start: int, end: int, score: float) -> Candidate:
    start = max(0, start)
    end = min(len(text), max(end, start + 1))
    return Candidate(start + 1, end, score, text.keys[start:end])


def _fuzzy(
    ops: list[tuple[Op, str]],
    old_idx: list[int],
    old: list[str],
    text: TextLines,
    hint: int | None,
    intends_change: bool,
) -> Placement | Refusal:
    n = len(old)
    norms_old = [norm(x) for x in old]
    kinds: list[Op] = [ops[k][0] for k in old_idx]
    votes: Counter[int] = Counter()
    for i, key in enumerate(norms_old):
        if not key:
            continue
        positions = find_block(text.joined_norms, [key], limit=51)
        if len(positions) > 50:
            continue
        for p in positions:
            votes[p - i] += 1
    if not votes:
        _fuzzy_votes(votes, norms_old, text)
    if hint is not None and 0 <= hint < len(text):
        votes[hint] += 1
    if not votes:
        return Refusal("none of the hunk's lines are in the file")
    starts: list[int] = []
    for s, _ in votes.most_common():
        if all(abs(s - t) > 2 for t in starts):
            starts.append(s)
        if len(starts) >= 8:
            break
    slack = max(6, n)
    found: dict[int, Alignment] = {}
    windows: list[tuple[int, int]] = []  # overlapping windows merged: each line aligned once
    for lo, hi in sorted((max(0, s - 3), min(len(text), s + n + slack)) for s in starts):
        if lo >= hi:
            continue
        if windows and lo <= windows[-1][1]:
            windows[-1] = (windows[-1][0], max(hi, windows[-1][1]))
        else:
            windows.append((lo, hi))
    cells = n * sum(hi - lo for lo, hi in windows)
    if cells > MAX_ALIGN_CELLS:
        # Aligning line by line costs hunk lines x file lines: a 3,000-line block in a
        # 20,000-line file would take minutes. Past this size, refuse and say why.
        return Refusal(
            f"the hunk's {n} lines do not occur in the file as written, and a hunk this long "
            "is too long to place by similarity; send it in smaller pieces, copied exactly"
        )
    for lo, hi in windows:
        al = align_lines(norms_old, kinds, text.norms, lo, hi)
        if al is not None and (al.first not in found or found[al.first].score < al.score):
            found[al.first] = al
    if not found:
        return Refusal("none of the hunk's lines are in the file")
    best = max(found.values(), key=lambda a: a.score)
    # One alignment per window finds only the best place in it: look again beside the best
    # place, so a near-copy that shares a window with it is still seen as a rival.
    for lo, hi in windows:
        for a, b in ((lo, min(hi, best.first)), (max(lo, best.last + 1), hi)):
            if b - a < 1:
                continue
            al = align_lines(norms_old, kinds, text.norms, a, b)
            if al is not None and (al.first not in found or found[al.first].score < al.score):
                found[al.first] = al
    ranked = sorted(found.values(), key=lambda a: -a.score)
    best = ranked[0]
    rivals = [
        a
        for a in ranked[1:]
        if a.score >= best.score - TIE_SCORE and (a.first > best.last or a.last < best.first)
    ]
    choices: list[int] = []
    if rivals:
        # A line found verbatim outweighs one that only resembles: among places that score
        # alike, those with the most exactly matching lines stay in the running. Only when
        # that leaves several does the line number get a say.
        tied = [best, *rivals]
        most = max(a.exact for a in tied)
        tied = [a for a in tied if a.exact == most]
        if len(tied) > 1:
            start, why = choose_by_hint([a.first for a in tied], hint)
            if start is None:
                return Refusal(
                    "the hunk matches several places about equally well: " + why,
                    _candidate(text, best.first, best.last + 1, best.score),
                )
            choices = [a.first for a in tied]
            best = next(a for a in tied if a.first == start)
        else:
            best = tied[0]
    candidate = _candidate(text, best.first, best.last + 1, best.score)
    problem = _check_alignment(ops, old_idx, old, kinds, best, text)
    if problem:
        return Refusal(problem, candidate)
    mapping = {old_idx[i]: j for i, (j, _) in best.pairs.items()}
    notes = _alignment_notes(old_idx, old, kinds, best, text)
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


def _fuzzy_votes(votes: Counter[int], norms_old: list[str], text: TextLines) -> None:
    """Anchors for a hunk none of whose lines is in the file verbatim: the closest lines."""
    from rapidfuzz import fuzz, process

    longest = sorted(range(len(norms_old)), key=lambda i: -len(norms_old[i]))[:3]
    for i in longest:
        if len(norms_old[i]) < 8:
            continue
        for _, _, p in process.extract(
            norms_old[i], text.norms, scorer=fuzz.ratio, score_cutoff=80, limit=10
        ):
            votes[p - i] += 1


def _check_alignment(
    ops: list[tuple[Op, str]],
    old_idx: list[int],
    old: list[str],
    kinds: list[Op],
    al: Alignment,
    text: TextLines,
) -> str:
    """Why this fuzzy placement is not safe to apply, or "" when it is."""
    nonblank = [i for i, o in enumerate(old) if o.strip()]
    matched = [i for i in nonblank if i in al.pairs]
    strong = [i for i in matched if al.pairs[i][1] >= REMOVED_SIM]
    if not nonblank:
        return "the hunk's context is only blank lines"
    missing_removed = [old[i] for i in nonblank if kinds[i] == "-" and i not in al.pairs]
    if missing_removed:
        return "lines to remove are not in the file: " + "; ".join(
            repr(x.strip()) for x in missing_removed[:3]
        )
    if len(matched) < MIN_MATCHED * len(nonblank) or len(strong) < min(2, len(nonblank)):
        return (
            f"only {len(matched)} of the hunk's {len(nonblank)} non-blank context/removed lines "
            "were found near each other in the file"
        )
    span_norms = set(text.norms[max(0, al.first - len(old)) : al.last + len(old) + 1])
    for i in nonblank:
        if i not in al.pairs and norm(old[i]) in span_norms:
            return f"the hunk puts {old[i].strip()!r} in a different order than the file has it"
    matched_lines = {j for j, _ in al.pairs.values()}
    skipped = [j for j in range(al.first, al.last + 1) if j not in matched_lines]
    if len([j for j in skipped if text.norms[j]]) > max(6, len(old)):
        return f"{len(skipped)} file lines inside the hunk's range are missing from it"
    added = [norm(t) for op, t in ops if op == "+" and not _trivial(t)]
    for j in skipped:
        if _trivial(text.keys[j]):
            continue
        for a in added:
            if line_similarity(text.norms[j], a) >= 0.8:
                return (
                    f"file line {j + 1} {text.keys[j].strip()!r} is missing from the hunk but "
                    "resembles an added line: cannot tell whether it should be kept or replaced"
                )
    return ""


def _alignment_notes(
    old_idx: list[int], old: list[str], kinds: list[Op], al: Alignment, text: TextLines
) -> list[str]:
    notes = []
    invented = [old[i] for i in range(len(old)) if i not in al.pairs]
    if invented:
        shown = "; ".join(repr(x.strip()) for x in invented if x.strip())[:160]
        notes.append(
            f"left out {len(invented)} line(s) the file does not have"
            + (f" ({shown})" if shown else "")
        )
    matched_lines = {j for j, _ in al.pairs.values()}
    skipped = [j for j in range(al.first, al.last + 1) if j not in matched_lines]
    if skipped:
        notes.append(f"kept {len(skipped)} file line(s) the hunk skipped")
    differ = sum(1 for _, s in al.pairs.values() if s < 1.0)
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
        moved = reindent(ops, mapping, text.keys, _similar)
        if isinstance(moved, str):
            return Refusal(moved, _candidate(text, start, end, 1.0))
        if moved.note:
            ops, notes = moved.ops, [*notes, moved.note]
    out: list[tuple[Op, str, int | None]] = []
    nxt = start
    for k, (op, t) in enumerate(ops):
        if op == "+":
            out.append(("+", t, None))
            continue
        j = mapping.get(k)
        if j is None:
            continue  # a line the file does not have
        while nxt < j:
            out.append((" ", text.keys[nxt], nxt))
            nxt += 1
        out.append((op, text.keys[j], j))
        nxt = j + 1
    # Added lines at the edges that repeat the file's neighbouring lines were context.
    first_ctx = next((x for x, o in enumerate(out) if o[0] == " "), len(out))
    lead = [x for x in range(first_ctx) if out[x][0] == "+"]
    for m in range(len(lead), 0, -1):
        s0 = start - m
        head = [out[x][1] for x in lead[:m]]
        if (
            s0 >= 0
            and not all(_trivial(t) for t in head)
            and all(norm(t) == text.norms[s0 + x] for x, t in enumerate(head))
        ):
            drop = set(lead[:m])
            out = [(" ", text.keys[s0 + x], s0 + x) for x in range(m)] + [
                o for x, o in enumerate(out) if x not in drop
            ]
            notes = [
                *notes,
                f"{m} added line(s) already precede the hunk in the file; not added twice",
            ]
            start = s0
            break
    last_ctx = max((x for x, o in enumerate(out) if o[0] == " "), default=-1)
    trail = [x for x in range(last_ctx + 1, len(out)) if out[x][0] == "+"]
    for c in range(len(trail), 0, -1):
        tail = [out[x][1] for x in trail[len(trail) - c :]]
        if (
            end + c <= len(text)
            and not all(_trivial(t) for t in tail)
            and all(norm(t) == text.norms[end + x] for x, t in enumerate(tail))
        ):
            drop = set(trail[len(trail) - c :])
            out = [o for x, o in enumerate(out) if x not in drop] + [
                (" ", text.keys[end + x], end + x) for x in range(c)
            ]
            notes = [
                *notes,
                f"{c} added line(s) already follow the hunk in the file; not added twice",
            ]
            end += c
            break
    if unit:
        fixed = [(op, _tabs(t, unit) if op == "+" else t, j) for op, t, j in out]
        if fixed != out:
            out = fixed
            notes = [*notes, f"added lines indented with tabs like the file ({unit} spaces each)"]
    return Placement(start, end, out, method, notes)


def _lead(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _tab_unit(ops: list[tuple[Op, str]], mapping: dict[int, int], text: TextLines) -> int:
    """Spaces per tab when the hunk indents with spaces what the file indents with tabs, else 0.

    Only a consistent mapping counts (every indented pair agrees): then added lines written with
    spaces would mix indentation styles in the file (a TabError in Python).
    """
    units: set[int] = set()
    for k, j in mapping.items():
        mine, theirs = _lead(ops[k][1]), _lead(text.keys[j])
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


def _tabs(line: str, unit: int) -> str:
    lead = _lead(line)
    if not lead or set(lead) != {" "}:
        return line
    return "\t" * (len(lead) // unit) + " " * (len(lead) % unit) + line[len(lead) :]
