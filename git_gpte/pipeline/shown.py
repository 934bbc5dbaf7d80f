"""What the model is shown of the base commit when the context is selected, not sent whole.

A :class:`Shown` starts as the context selection's picks (whole files and excerpts, read at the
base) plus its map, grows when the model asks for more, and tells the retry step which files the
model saw whole (a refused hunk in a file it saw only in part is answered with the region around
the hunk, not the whole file). How much to select is :mod:`.context_choice`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ..context import ContextSelection, MapEntry, render_map
from ..context.languages import is_test
from ..context.rules import explicit_paths, secret_content_reason
from ..git import Repository, decode_text
from ..prompts.messages import Part, file_lines

if TYPE_CHECKING:
    pass

# Lines shown on each side of a line the failing output points at (heal).
PIN_MARGIN = 15


def merge_ranges(ranges: Iterable[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """Sorted ranges with overlapping and adjacent ones joined."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(ranges):
        if merged and start <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return tuple(merged)


@dataclass
class Shown:
    """The parts of files shown so far (path -> part, in the order shown) and the map.

    ``everything``: every file was sent whole (``--context all``): there is no ranking, no map
    and nothing more to ask for."""

    parts: dict[str, Part] = field(default_factory=dict)
    map_text: str = ""
    selection: ContextSelection | None = None
    skipped: dict[str, str] = field(default_factory=dict)
    everything: bool = False

    def seen_whole(self, path: str) -> bool:
        part = self.parts.get(path)
        return part is not None and part.whole

    def add(self, part: Part) -> Part:
        """Show ``part`` too: a whole file replaces its excerpts; ranges join those shown."""
        old = self.parts.get(part.path)
        if old is not None and not part.whole and not old.whole:
            part = Part(part.path, part.text, merge_ranges(old.ranges + part.ranges))
        elif old is not None and old.whole:
            part = old
        self.parts[part.path] = part
        return part

    @property
    def texts(self) -> dict[str, str]:
        """The whole text at the base of every file shown in whole or in part."""
        return {path: part.text for path, part in self.parts.items()}

    def summary(self) -> list[dict[str, Any]]:
        """What was shown, for the run log and reports: path, whole or ranges."""
        return [
            {"path": p.path, "whole": p.whole, "ranges": [list(r) for r in p.ranges]}
            for p in self.parts.values()
        ]


def shown_from_selection(
    repo: Repository, selection: ContextSelection, pathspecs: Sequence[str] = ()
) -> Shown:
    """The selection's picks read at the base. A file holding a key is left out (the selection
    ranks by path; this is the content check the whole-file selection makes too) unless a
    pathspec named it."""
    named = explicit_paths(pathspecs)
    shown = Shown(map_text=render_map(selection), selection=selection)
    shown.skipped.update(selection.skipped)
    for pick in selection.picks:
        text = decode_text(repo.read_blob(pick.blob))
        if text is None:
            shown.skipped[pick.path] = "binary or not UTF-8"
            continue
        held = secret_content_reason(text) if pick.path not in named else None
        if held is not None:
            shown.skipped[pick.path] = held
            continue
        ranges = () if pick.whole else tuple((r.start, r.end) for r in pick.ranges)
        shown.add(Part(pick.path, text, ranges))
    # What is described (dry run, run log) is what is sent: without the picks left out here.
    shown.selection = replace(
        selection,
        picks=tuple(p for p in selection.picks if p.path in shown.parts),
        skipped=dict(shown.skipped),
    )
    return shown


def add_pins(
    repo: Repository,
    base: str,
    shown: Shown,
    pins: Sequence[tuple[str, int]],
    allowed: frozenset[str],
) -> list[str]:
    """Show the lines around each pinned (path, line) not shown yet; returns what was added.

    Only paths the selection's rules allow are read (the pins come from program output)."""
    from ..git.repo import TreeEntry

    entries: dict[str, TreeEntry] | None = None
    added: list[str] = []
    for path, line in pins:
        if path not in allowed or shown.seen_whole(path):
            continue
        part = shown.parts.get(path)
        if part is None:
            if entries is None:
                entries = {e.path: e for e in repo.tree_entries(base)}
            entry = entries.get(path)
            text = decode_text(repo.read_blob(entry.sha)) if entry is not None else None
            if text is None or secret_content_reason(text) is not None:
                continue
        else:
            text = part.text
        count = len(file_lines(text))
        if not 1 <= line <= count:
            continue
        start, end = max(1, line - PIN_MARGIN), min(count, line + PIN_MARGIN)
        if part is not None and any(s <= line <= e for s, e in part.ranges):
            continue
        shown.add(Part(path, text, ((start, end),)))
        added.append(f"{path}:{start}-{end}")
    return added


def by_rank(shown: Shown) -> list[Part]:
    """The parts, best-ranked file first. The selection lists its picks in the order it chose
    them (small files whole before the chunks of a long one), which is not their rank: seen,
    a 47-line ``__init__.py`` came before the 662-line module the request was about."""
    picks = shown.selection.picks if shown.selection is not None else ()
    score = {pick.path: pick.score for pick in picks}
    parts = list(shown.parts.values())
    return sorted(parts, key=lambda part: -score.get(part.path, float("-inf")))


# A file ranked below this share of the best file's score is a stray for a model answering in
# file blocks: a small model writes out the files it is shown, and seen, asked to make parse_rate
# raise ValueError, it answered twice with the 47-token pyproject.toml (score 0.001 against the
# module's 2.16) shown first beside the module, and nothing else (bench/solve.py,
# ratelimit/parse-rate-errors). Tests of the module rank near 0.03 and stay.
STRAY_SHARE = 0.01


def in_rank_order(shown: Shown, stray_share: float = 0.0) -> Shown:
    """``shown`` with its parts best-ranked first (see :func:`by_rank`) and, with
    ``stray_share``, without the files ranked below that share of the best (a pin, which the
    ranking did not choose, always stays)."""
    picks = shown.selection.picks if shown.selection is not None else ()
    score = {pick.path: pick.score for pick in picks}
    top = max(score.values(), default=0.0)
    out = Shown(
        map_text=shown.map_text, selection=shown.selection, skipped=dict(shown.skipped),
        everything=shown.everything,
    )  # fmt: skip
    for part in by_rank(shown):
        if part.path in score and top > 0 and score[part.path] < stray_share * top:
            continue
        out.add(part)
    if shown.selection is not None:
        kept = tuple(p for p in shown.selection.picks if p.path in out.parts)
        out.selection = replace(shown.selection, picks=kept)
    return out


def whole_only(shown: Shown, budget: int, count: Callable[[str], int]) -> Shown:
    """``shown`` for a model that writes files out whole: every file it sees, it sees whole,
    and besides the best-ranked file only those the request points at.

    An excerpt is a file such a model cannot edit (written out whole it would lose the lines
    not shown) and, measured with a small model, one it confuses with the files around it. So
    the files are taken in the selection's order, whole, while they fit ``budget`` (``count``
    gives a text's tokens); an excerpted file that does not fit whole is named in the map
    instead. The best-ranked file comes first and is always kept (whole if it fits, else as
    it was: the plan then asks for diffs).

    A further source file is shown only when the request points at it (names it, its module
    or a name it defines; tests stay, as examples of use the model is told to keep): a small
    model writes out every file it is shown. Seen with the 1.5B model, asked to make
    ``queries.overdue()`` skip completed tasks, it was sent four files of a package whole
    (3,649 tokens out, 462 s), rewrote them all, and made up names in two it had no reason
    to touch; a file ranked only by its words is named in the map instead. The budget is
    spent as if it were shown, so that the files below it (tests, ranked last) are shown
    exactly when they were, and what is shown is always part of what was: given the budget
    freed, a ``test_store.py`` never shown before was, and the model began writing it out,
    then wrote its module as an elided excerpt, twice (inventory/low-stock-boundary, solved
    before); without it, solved again (bench/solve.py).

    When the best-ranked file is too long to show whole, the plan asks for its definitions
    (or diffs) instead, and ``shown`` is returned as it is: excerpts chosen for the budget.
    Made whole, the files below it came on top of its excerpt, past the budget (cachetools:
    a 4,096-token budget sent as ~8,100 tokens, 210 s of reading for the 1.5B model)."""
    ranked = by_rank(shown)
    if ranked and not ranked[0].whole and count(ranked[0].text) > budget:
        return shown
    out = Shown(selection=shown.selection, skipped=dict(shown.skipped))
    spent = 0
    dropped: list[str] = []
    unpointed: list[str] = []
    for n, part in enumerate(ranked):
        cost = count(part.text)
        if spent + cost <= budget or (n == 0 and part.whole):
            spent += cost  # as if shown: what is left for the files below it stays as it was
            if n == 0 or _worth_writing(shown, part.path):
                out.add(Part(part.path, part.text))
            else:
                unpointed.append(part.path)
        else:
            dropped.append(part.path)
    named = [f"{path}  (too long to show whole here)" for path in dropped]
    named += [f"{path}  (not shown)" for path in unpointed]
    lines = [shown.map_text.rstrip()] if shown.map_text.strip() else []
    out.map_text = "\n".join(lines + named)
    if shown.selection is not None:
        by_path = dict(zip(dropped + unpointed, named, strict=True))
        out.selection = _as_sent(shown.selection, out, by_path, count)
    return out


def _as_sent(
    selection: ContextSelection, sent: Shown, named: dict[str, str], count: Callable[[str], int]
) -> ContextSelection:
    """``selection`` as :func:`whole_only` sends it (what ``--dry-run`` and the run log show):
    the picks sent whole marked so, those only named moved to the map."""
    picks = []
    for pick in selection.picks:
        part = sent.parts.get(pick.path)
        if part is not None and part.whole and not pick.whole:
            pick = replace(pick, whole=True, ranges=(), tokens=pick.file_tokens)
        if part is not None:
            picks.append(pick)
    score = {pick.path: pick.score for pick in selection.picks}  # a pin has none
    further = [MapEntry(p, score.get(p, 0.0), (), count(line)) for p, line in named.items()]
    return replace(selection, picks=tuple(picks), map=(*selection.map, *further))


def _worth_writing(shown: Shown, path: str) -> bool:
    """A file past the first that a model writing whole files is shown: one the request points
    at, a test, or one the selection did not choose (a pin, a file asked for)."""
    picks = {pick.path: pick for pick in shown.selection.picks} if shown.selection else {}
    pick = picks.get(path)
    return pick is None or pick.pointed or is_test(path)
