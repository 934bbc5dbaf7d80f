"""Filling a budget by exact counts, where o200k can be loaded.

Packing counts by estimates (tokens.py) that sit near the 95th percentile of the real ratio, so
that a selection does not go over its budget: on locbench's public tasks the selections used
88-92 % of their budgets in real o200k tokens. Where the encoding is on this machine, the
selection is counted exactly, and what the estimates overshot is spent on more chunks in rank
order on top of it, kept only if the exact count of the whole still fits. Elsewhere (no cached
encoding) the estimates stand. Loading the encoding costs ~0.3 s, once per process.

How a selection is counted is how the budget's owner charges it: a whole file its text, an
excerpt its lines plus EXCERPT_OVERHEAD (pack.py).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from .model import MapEntry, Pick
from .pack import EXCERPT_OVERHEAD, pack
from .rank import Ranking
from .tokens import o200k_cached, token_mode

Counter = Callable[[str], int]
# Texts of the picked files by path (read from the repository when needed).
Texts = Callable[[Sequence[Pick]], Mapping[str, str]]
# The share of the estimates' overshoot spent on more: all of it, else half.
TRIES = (1.0, 0.5)


@functools.lru_cache(maxsize=1)
def o200k_counter() -> Counter | None:
    """Exact o200k counts, when budgets count in o200k and the encoding is cached here (never a
    download: offline that would wait on the network)."""
    if token_mode() != "o200k" or not o200k_cached():
        return None
    try:
        import tiktoken

        encoding = tiktoken.get_encoding("o200k_base")
    except Exception:  # a broken cache, an old tiktoken: the estimates stand
        return None

    def count(text: str) -> int:
        return len(encoding.encode(text, disallowed_special=()))

    return count


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
    packed: tuple[list[Pick], list[MapEntry]],
    budget: int,
    map_budget: int,
    texts: Texts,
    count: Counter,
) -> tuple[list[Pick], list[MapEntry], bool]:
    """``packed`` (``pack(ranking, budget, map_budget)``), or more on top of it whose exact
    count still fits ``budget``; and whether the picks' token counts are exact.

    Only more on top: packed again with a larger budget, the selection chose differently
    (a larger file whole early, fewer excerpts after) and lost two tasks of the public split
    at 32k that the estimates' selection covered."""
    picks, entries = packed
    if not picks:
        return picks, entries, False
    count = functools.lru_cache(maxsize=None)(count)  # each text is counted once
    known = dict(texts(picks))
    spent = cost(picks, known, count)
    guess = estimated(picks)
    if spent > budget:
        # The estimates fell short (rare): packed again in a budget smaller by as much.
        fewer, fewer_entries = pack(ranking, int(budget * guess / spent), map_budget)
        known.update(texts([p for p in fewer if p.path not in known]))
        if cost(fewer, known, count) <= budget:
            return _exact(fewer, known, count), fewer_entries, True
    if spent <= 0 or spent >= budget or guess <= spent:
        return _exact(picks, known, count), entries, True
    for share in TRIES:
        extra = int(budget * share * (guess / spent - 1))
        more, more_entries = pack(ranking, budget, map_budget, extra=extra)
        known.update(texts([p for p in more if p.path not in known]))
        if cost(more, known, count) <= budget:
            return _exact(more, known, count), more_entries, True
    return _exact(picks, known, count), entries, True


def _exact(picks: Sequence[Pick], texts: Mapping[str, str], count: Counter) -> list[Pick]:
    """The picks with their exact token counts (an excerpt's: its lines without the overhead,
    as packing counts them)."""
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
