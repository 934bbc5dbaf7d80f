"""Filling a budget by exact counts, where o200k can be loaded.

Packing counts by estimates (tokens.py) that sit near the 95th percentile of the real ratio, so
that a selection does not go over its budget: on locbench's public tasks the selections used
88-92 % of their budgets in real o200k tokens. Where the encoding is on this machine, the
selection is counted exactly, and what the estimates overshot is spent on more chunks in rank
order on top of it, kept only if the exact count of the whole still fits. Elsewhere (no cached
encoding) the estimates stand. Loading the encoding costs ~0.3 s, once per process, and as much
as the rest of a warm selection on 2,000 files: so the index keeps the counts by their texts'
digests (:class:`RememberedCounts`), and the encoding is loaded only for a text it has not
counted before.

How a selection is counted is how the budget's owner charges it: a whole file its text, an
excerpt its lines plus EXCERPT_OVERHEAD (pack.py).
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from importlib.util import find_spec

from .model import LineRange, MapEntry, Pick
from .pack import EXCERPT_OVERHEAD, Packing, pack
from .rank import Ranking
from .store import IndexStore
from .tokens import estimate_tokens, o200k_cached, token_mode

Counter = Callable[[str], int]
# Texts of the picked files by path (read from the repository when needed).
Texts = Callable[[Sequence[Pick]], Mapping[str, str]]
# The share of the estimates' overshoot spent on more: all of it, else half.
TRIES = (1.0, 0.5)
# What the chunks leave of the budget, the excerpts of the best files grow into, by up to this
# many lines at each end: a changed line is often just past an excerpt (the next definition's
# signature, a decorator, the blank line a new one goes after). On 427 tasks of 22
# repositories, Python covered +0.4 / +1.4 / +1.4 points at 4k / 8k / 16k; up to 40 lines
# (the first file taking what is left) gained less.
GROW_LINES = 5
# How often a selection the estimates put over its budget is packed again in a smaller one
# before picks are dropped from its end.
SHRINKS = 3


class EncodingUnavailable(Exception):
    """The encoding could not be loaded when a text needed counting (the estimates stand)."""


class O200k:
    """Exact o200k counts, the encoding loaded at the first count (see the module's
    docstring)."""

    name = "o200k_base"

    def __init__(self) -> None:
        self._encode: Callable[[str], list[int]] | None = None

    def __call__(self, text: str) -> int:
        if self._encode is None:
            self._encode = _o200k_encode()
        return len(self._encode(text))


def _o200k_encode() -> Callable[[str], list[int]]:
    try:
        import tiktoken

        encoding = tiktoken.get_encoding(O200k.name)
    except Exception:  # a broken cache, an old tiktoken: the estimates stand
        raise EncodingUnavailable(O200k.name) from None
    return functools.partial(encoding.encode, disallowed_special=())


@functools.lru_cache(maxsize=1)
def o200k_counter() -> Counter | None:
    """Exact o200k counts, when budgets count in o200k, the encoding is cached here (never a
    download: offline that would wait on the network) and tiktoken is installed. Counting
    raises :class:`EncodingUnavailable` when the encoding does not load after all."""
    if token_mode() != "o200k" or not o200k_cached() or find_spec("tiktoken") is None:
        return None
    return O200k()


class RememberedCounts:
    """``count``, by way of the counts the index keeps: a text counted by an earlier run is not
    counted again; :meth:`keep` stores this run's new counts."""

    def __init__(self, count: O200k, store: IndexStore) -> None:
        self._count = count
        self._store = store
        self._prefix = count.name.encode() + b"\0"
        self.new: dict[bytes, int] = {}

    def __call__(self, text: str) -> int:
        digest = hashlib.sha1(self._prefix + text.encode("utf-8", "surrogatepass")).digest()
        tokens = self.new.get(digest)
        if tokens is None:
            tokens = self._store.count(digest)
        if tokens is None:
            tokens = self.new[digest] = self._count(text)
        return tokens

    def keep(self) -> None:
        self._store.keep_counts(self.new)


def cost(picks: Sequence[Pick], texts: Mapping[str, str], count: Counter) -> int:
    """The picks' exact tokens, charged as the budget is."""
    total = 0
    for pick in picks:
        text = texts[pick.path]
        if pick.whole:
            total += count(text)
            continue
        lines = _lines(text)
        for span in pick.ranges:
            total += count("".join(lines[span.start - 1 : span.end])) + EXCERPT_OVERHEAD
    return total


def _lines(text: str) -> list[str]:
    """The text's lines as git numbers them (``\n`` ends a line), each with its newline."""
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    return lines


def estimated(picks: Sequence[Pick]) -> int:
    """The picks' tokens as packing estimated them."""
    return sum(p.tokens + (0 if p.whole else EXCERPT_OVERHEAD * len(p.ranges)) for p in picks)


def fill(
    ranking: Ranking,
    packing: Packing,
    budget: int,
    map_budget: int,
    texts: Texts,
    count: Counter,
) -> tuple[list[Pick], list[MapEntry], bool]:
    """``packing``'s picks (``Packing(ranking, budget, map_budget)``), or more on top of them
    whose exact count still fits ``budget``, its excerpts grown into what is left
    (GROW_LINES); and whether the picks' token counts are exact.

    Only more on top: packed again with a larger budget, the selection chose differently
    (a larger file whole early, fewer excerpts after) and lost two tasks of the public split
    at 32k that the estimates' selection covered."""
    picks, entries = packing.result()
    if not picks:
        return picks, entries, False
    count = functools.lru_cache(maxsize=None)(count)  # each text is counted once
    known = dict(texts(picks))
    chosen, entries = _chosen(ranking, packing, budget, map_budget, (texts, known), count)
    return counted(grown(chosen, known, count, budget), known, count), entries, True


def _chosen(
    ranking: Ranking,
    packing: Packing,
    budget: int,
    map_budget: int,
    reading: tuple[Texts, dict[str, str]],
    count: Counter,
) -> tuple[list[Pick], list[MapEntry]]:
    """The picks :func:`fill` keeps, before they grow; ``reading``: how to read the texts of
    more picks, and the texts read so far (added to)."""
    picks, entries = packing.result()
    texts, known = reading
    spent = cost(picks, known, count)
    guess = estimated(picks)
    if spent > budget:
        return _fewer(ranking, (budget, map_budget), (picks, entries), reading, count)
    if spent <= 0 or spent == budget or guess <= spent:
        return picks, entries
    for share in TRIES:
        extra = int(budget * share * (guess / spent - 1))
        more, more_entries = packing.more(extra)
        known.update(texts([p for p in more if p.path not in known]))
        if cost(more, known, count) <= budget:
            return more, more_entries
    return picks, entries


def _fewer(
    ranking: Ranking,
    budgets: tuple[int, int],
    packed: tuple[list[Pick], list[MapEntry]],
    reading: tuple[Texts, dict[str, str]],
    count: Counter,
) -> tuple[list[Pick], list[MapEntry]]:
    """The estimates fell short (rare: text the pieces undercount, such as emoji-dense release
    notes): packed again in a budget smaller by as much as they fell short, up to SHRINKS
    times, and at the last the packing's picks from the end dropped until the rest fits. A
    selection is never over its budget."""
    budget, map_budget = budgets
    texts, known = reading
    picks, entries = packed
    target, spent = budget, cost(picks, known, count)
    for _ in range(SHRINKS):
        target = int(target * budget / max(spent, 1))
        picks, entries = pack(ranking, target, map_budget)
        known.update(texts([p for p in picks if p.path not in known]))
        spent = cost(picks, known, count)
        if spent <= budget:
            return picks, entries
    while picks and spent > budget:  # each pick is charged on its own: drop the last
        spent -= cost(picks[-1:], known, count)
        picks = picks[:-1]
    return picks, entries


def grown(picks: list[Pick], texts: Mapping[str, str], count: Counter, budget: int) -> list[Pick]:
    """The picks with the excerpts of each file, best first, grown by up to GROW_LINES lines
    at both ends into what they leave of ``budget``. Each added line is charged on its own
    (a line counted apart seldom comes to less than inside a longer text), and the whole is
    counted again at the end: over the budget, the picks stay as they were."""
    left = budget - cost(picks, texts, count)
    out: list[Pick] = []
    for pick in picks:
        if pick.whole or left <= 0:
            out.append(pick)
            continue
        lines = _lines(texts[pick.path])
        shown = {n for r in pick.ranges for n in range(r.start, r.end + 1)}
        best, best_extra = pick, 0
        for reach in range(1, GROW_LINES + 1):
            ranges = _widened(pick.ranges, reach, min(pick.lines, len(lines)))
            added = {n for r in ranges for n in range(r.start, r.end + 1)} - shown
            extra = sum(count(lines[n - 1]) for n in added)
            if extra > left:
                break
            best, best_extra = replace(pick, ranges=ranges), extra
        left -= best_extra
        out.append(best)
    return out if cost(out, texts, count) <= budget else picks


def bytes4(text: str) -> int:
    """A text's tokens where budgets count UTF-8 bytes (token_mode "bytes4"), as packing
    charges them."""
    return estimate_tokens(len(text.encode("utf-8", "surrogatepass")))


def _widened(ranges: Sequence[LineRange], reach: int, last: int) -> tuple[LineRange, ...]:
    """``ranges`` each ``reach`` lines longer at both ends (within 1..``last``), merged where
    they meet."""
    merged: list[LineRange] = []
    for r in sorted(ranges, key=lambda r: r.start):
        start, end = max(1, r.start - reach), min(last, r.end + reach)
        if merged and start <= merged[-1].end + 1:
            merged[-1] = LineRange(merged[-1].start, max(merged[-1].end, end))
        else:
            merged.append(LineRange(start, end))
    return tuple(merged)


def counted(picks: Sequence[Pick], texts: Mapping[str, str], count: Counter) -> list[Pick]:
    """The picks with their token counts by ``count`` (an excerpt's: its lines without the
    overhead, as packing counts them)."""
    out = []
    for pick in picks:
        if pick.whole:
            tokens = count(texts[pick.path])
        else:
            tokens = cost([pick], texts, count) - EXCERPT_OVERHEAD * len(pick.ranges)
        out.append(
            replace(pick, tokens=tokens, file_tokens=tokens if pick.whole else pick.file_tokens)
        )
    return out
