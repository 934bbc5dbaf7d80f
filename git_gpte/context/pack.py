"""Packing ranked files and chunks into a token budget.

Order of spending: the best files whole while each fits in a share of what is left (a whole
file is the safest context: nothing the edit needs can be missing from it; the best file in
all of what is left when it stands far above the next: DOMINANT_RATIO), and small files
among the next best (a file that is not source only when it scores near them:
NON_SOURCE_MIN_RATIO); then the best chunks of further files as excerpts, in two rounds. The
first round takes chunks in rank order up to a share of the budget; then the best files sent in
part are completed to whole files while the rest of each is cheap against what is left (a top
file sent densely covers more edits than scattered chunks of lesser files: the ranking of files
is surer than that of chunks); after each round, short gaps between a file's excerpts are
filled with the definitions in them (GAP_LINES); the second round spends the rest on further
chunks, and whatever
remains completes more files. Each excerpt comes with the declaration line of its enclosing
class, and the excerpts of a file ranked near the best also with its module header (imports
change with the code that uses them; the model needs them to read the excerpt). A file whose
excerpts come close to its whole size is sent whole instead. What is left of the map's share
names the next files with their definitions. A chunk is taken whole or not at all. Chunks of
tests, prose and configuration the request is not about come after all the others
(CHUNK_MIN_PRIOR).

A file's whole size and its map entry come from its link facts (link_facts.py), which every
ranked file the index holds has; only the files whose chunks are ranked have their whole record
(their chunks), and only those are sent in part.

Token counts are estimates (``tokens.py``: each chunk's pieces, counted when it was indexed),
on the high side: a selection that overshoots the real count loses its last lines.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field, replace
from itertools import pairwise

from .languages import declared_name, is_stub, is_test, tested_name
from .link_facts import MAP_SIGNATURES
from .model import LineRange, MapEntry, Pick, Signature
from .path_facts import STUB, TEST
from .rank import ChunkScore, FileScore, Ranking
from .tokens import count_pieces, estimate_tokens

EXCERPT_OVERHEAD = 8  # tokens a separate excerpt costs beyond its lines (its heading)
WHOLE_SHARE = 0.5  # a file is sent whole when it fits in this share of the budget left
WHOLE_MIN_RATIO = 0.5  # ... and scores at least this share of the best file's score
UPGRADE_RATIO = 0.75  # excerpts of a file costing this share of it: send it whole
# ... and so is a file whose rest costs little (the budget's share plus a constant)
SMALL_EXTRA_SHARE = 0.03
SMALL_FILE_SHARE = 0.04  # a file this small next in line is sent whole
SMALL_EXTRA = 120
# Lines added around each excerpt: a change at a chunk's edge (an insertion between two
# functions, a decorator above one) is then inside what was sent.
PAD_BEFORE = 1
PAD_AFTER = 1
# The best TOP_RANKS files go whole while each fits in WHOLE_SHARE of what is left, whatever
# their score (they hold most of the files a change touches: 0.58, 0.27, 0.08 by rank on
# locbench). After that, small files among the best SMALL_SCAN go whole too (each up to
# SMALL_FILE_SHARE of the budget, or TOP_SMALL_SHARE among the best TOP_RANKS; SMALL_TOTAL in
# all): cheap, and excerpts of them would save little.
TOP_RANKS = 3
SMALL_SCAN = 10
SMALL_TOTAL = 0.15
TOP_SMALL_SHARE = 0.12
# A file that is not source (a test, prose, configuration, a stub, data, build output, or a
# file in no language) goes whole for being small or among the TOP_RANKS only when it scores at
# least this share of the best file: in a small repository a LICENSE matching one word of the
# request ranks third, and its 472 tokens went before the excerpts of the file to change
# (shopspring/decimal at 8k). Source stays as it was: a 64-token `__main__.py` ranked low is
# still worth its cost. docs/context.md has the figures.
NON_SOURCE_MIN_RATIO = 0.1
# The best file goes whole if it fits what is left at all, not only WHOLE_SHARE of it, when it
# scores DOMINANT_RATIO times the next file or more: nothing else competes for the budget, and
# its excerpts missed the places the request does not name (testify's "Clean up golint
# warnings" changed seven places of the 3.5k-token `assertions.go`, 3.3 times the next file:
# lines 1-374 were sent at 4k, two small files of `suite/` whole, the changes at 401-518 not).
# On the pool's 2,850 tasks: at 2.5, 12 task-budgets gained and 5 lost; at 3, 7 and 3; at 2,
# 18 and 7, chosen for every repository left out, but it lost a task of locbench's public split
# at 4k (click's `utils.py`, 2.2 times the next, went whole; the change was in `_compat.py`).
# docs/context.md has the figures.
DOMINANT_RATIO = 2.5
FIRST_ROUND_SHARE = 0.75  # the first round of chunks: this share of the budget
# After each round of chunks, the chunks lying in a gap of at most GAP_LINES lines between two
# excerpts of a file are added while they fit: a definition between two chosen ones is a
# neighbour the change often touches too (click's parser: lines 1-23 and 55-170 sent, the
# change in 24-54). bench/context_pool.py, 427 tasks of 22 repositories: +0.9 / +0.2 / +0.5 / 0
# points at 4k / 8k / 16k / 32k, chosen for every repository left out, none over budget; on
# locbench's public split one task fewer at 8k (docs/context.md).
GAP_LINES = 30
# The share of the map's budget the tests, stubs and declarations of the files sent may take,
# ahead of the other files.
TESTS_MAP_SHARE = 0.5
# The share of a budget of SLACK_BUDGET tokens the estimates leave unspent; of a larger one,
# less in proportion to the square of its size. A selection packed to 99 % of a small budget
# went over it in o200k when a few of its files ran above their language's rate
# (bench/context_pool.py: 2 of 1,708 runs, both at 4k, by 0.05 % and 1.6 %); a larger one
# holds more files, whose errors even out: 2 % of every budget cost 0.5 points of coverage at
# each on the pool, 82 tokens at every budget a task of the public split at 8k and at 16k.
BUDGET_SLACK = 0.02
# Chunks of files whose kind's prior (weights.py) is below this come after every other chunk:
# tests, prose and configuration the request is not about (0.05) get what the source leaves;
# asked about (0.4-0.45), vendored (0.4), source (1) and named files (by the request or a
# pathspec) are ranked as they are. A vague request ("More f-strings") spent a 32k budget on
# excerpts of tests, a changelog and tox.ini while the module it changed went in part. In a
# small repository the budget holds everything, and they are all sent as before.
# bench/context_pool.py, 427 tasks of 22 repositories: 58.8 / 74.0 / 85.7 / 91.8 % covered at
# 4k / 8k / 16k / 32k became 59.0 / 75.9 / 85.9 / 92.0 (Python 52.4 / 70.3 / 82.1 / 89.2 from
# 51.4 / 68.9 / 82.5 / 90.1; Go/JS/TS 65.6 / 81.4 / 89.8 / 94.9 from 66.0 / 79.1 / 88.8 /
# 93.5), none over budget; what it lost is commits to docs/conf.py ("update copyright year",
# "Merge 2.x-line"), a vague "more docs" and one JavaScript task at 4k. The public split 70.0
# / 84.2 / 92.5 / 96.7 became 70.0 / 84.2 / 94.2 / 97.5. 0.5 (asked-about prose and
# configuration, vendored code after the source too) packed the kept rankings better still
# (bench/context_pack_sim.py: +0.5 / +0.7 / +0.7 / 0), but the pool's requests are commits to
# code, and a request about docs would get its docs last.
CHUNK_MIN_PRIOR = 0.3
SLACK_BUDGET = 4096


@dataclass
class _FilePlan:
    fs: FileScore
    whole: bool = False
    chunks: set[int] = field(default_factory=set)
    lines: set[int] = field(default_factory=set)  # single declaration lines
    reasons: list[str] = field(default_factory=list)
    # The last cost worked out and what it was of: a chunk's trial asks the cost of the plan
    # before and after it, and the next trial's "before" is this one's "after".
    _costed: tuple[frozenset[int], frozenset[int], int] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    def copy(self) -> _FilePlan:
        """A plan to add to without changing this one."""
        return replace(
            self, chunks=set(self.chunks), lines=set(self.lines), reasons=list(self.reasons)
        )

    def ranges(self) -> list[tuple[int, int, int, int]]:
        """Merged (start, end, nbytes, pieces) of the chosen chunks and declaration lines."""
        rec = self.fs.record
        assert rec is not None
        spans: list[tuple[int, int, int, int]] = [
            (c.start, c.end, c.nbytes, c.pieces) for c in (rec.chunks[i] for i in self.chunks)
        ]
        chosen = len(spans)
        for line in self.lines:
            if not any(s <= line <= e for s, e, _, _ in spans[:chosen]):
                sig = next((c.signature for c in rec.chunks if c.line == line), "")
                spans.append((line, line, len(sig) + 12, count_pieces(sig) + 3))
        if PAD_BEFORE or PAD_AFTER:
            per_line = rec.nbytes / max(rec.lines, 1)
            pieces_per_line = rec.pieces / max(rec.lines, 1)
            padded = []
            for s, e, b, p in spans:
                ps, pe = max(1, s - PAD_BEFORE), min(rec.lines, e + PAD_AFTER)
                extra = (s - ps) + (pe - e)
                padded.append(
                    (ps, pe, b + round(per_line * extra), p + round(pieces_per_line * extra))
                )
            spans = padded
        spans.sort()
        merged: list[tuple[int, int, int, int]] = []
        for s, e, b, p in spans:
            if merged and s <= merged[-1][1] + 1:
                ms, me, mb, mp = merged[-1]
                share = max(0, me - s + 1) / max(e - s + 1, 1)
                merged[-1] = (ms, max(me, e), mb + b - round(b * share), mp + p - round(p * share))
            else:
                merged.append((s, e, b, p))
        return merged

    def cost(self) -> int:
        if self.whole:
            return self.file_tokens
        chunks, lines = frozenset(self.chunks), frozenset(self.lines)
        if self._costed is not None and self._costed[:2] == (chunks, lines):
            return self._costed[2]
        lang = self.fs.links.lang if self.fs.links else None
        cost = sum(estimate_tokens(b, p, lang) + EXCERPT_OVERHEAD for _, _, b, p in self.ranges())
        self._costed = (chunks, lines, cost)
        return cost

    @property
    def file_tokens(self) -> int:
        facts = self.fs.links
        if facts is None:
            return estimate_tokens(self.fs.cand.size)
        return estimate_tokens(facts.nbytes, facts.pieces, facts.lang)


def _slack(budget: int) -> int:
    """Tokens of ``budget`` left unspent (see BUDGET_SLACK): 82 of 4,096, 41 of 8,192, 20 of
    16,384."""
    if budget <= SLACK_BUDGET:
        return int(budget * BUDGET_SLACK)
    return int(SLACK_BUDGET * BUDGET_SLACK * SLACK_BUDGET / budget)


def pack(
    ranking: Ranking, budget: int, map_budget: int = 0, extra: int = 0
) -> tuple[list[Pick], list[MapEntry]]:
    """Choose what to send: picks (best first) within ``budget`` less its slack (see
    BUDGET_SLACK), a map within ``map_budget``. ``extra``: tokens more to spend once that is
    done, on further chunks and whole files only (what ``budget`` alone picks is all kept:
    see exact.py)."""
    packing = Packing(ranking, budget, map_budget)
    return packing.more(extra) if extra > 0 else packing.result()


class Packing:
    """A budget packed, kept so that more can be spent on top of it (exact.py tries more
    twice on a packing it has: each try goes on from here, not from the start)."""

    def __init__(self, ranking: Ranking, budget: int, map_budget: int = 0) -> None:
        self._ranking, self._map_budget = ranking, map_budget
        self._budget = budget = budget - _slack(budget)
        plans: dict[str, _FilePlan] = {}
        order: list[str] = []
        files = [f for f in ranking.files if f.links is not None and f.score > 0]
        self._top = top = files[0].score if files else 0.0
        spent = _take_best_whole(files, budget, plans, order)
        spent = _take_small_whole(files, budget, plans, order, spent)
        self._first, self._last = first, last = _deferred(ranking.chunks)
        spent = _take_chunks(first, budget, plans, order, spent, top)
        spent = _chunk_round(last, budget, plans, order, spent, top, in_order=False)
        self._spent = _upgrade(plans, order, budget, spent)
        self._plans, self._order = plans, order
        self._result: tuple[list[Pick], list[MapEntry]] | None = None

    def result(self) -> tuple[list[Pick], list[MapEntry]]:
        """The picks and the map of this packing (worked out once: the engine and the exact
        fill both ask)."""
        if self._result is None:
            self._result = self._picked(self._plans, self._order)
        return self._result

    def more(self, extra: int) -> tuple[list[Pick], list[MapEntry]]:
        """What ``extra`` tokens more add to this packing: the second round of chunks again,
        then whole files (this packing itself stays as it is)."""
        plans = {path: plan.copy() for path, plan in self._plans.items()}
        order, spent, budget = list(self._order), self._spent, self._budget + extra
        for chunks in (self._first, self._last):
            spent = _chunk_round(chunks, budget, plans, order, spent, self._top, in_order=False)
        _upgrade(plans, order, budget, spent)
        return self._picked(plans, order)

    def _picked(
        self, plans: dict[str, _FilePlan], order: list[str]
    ) -> tuple[list[Pick], list[MapEntry]]:
        picks = [_to_pick(plans[p]) for p in order if plans[p].whole or plans[p].chunks]
        return picks, _map_entries(self._ranking.files, {p.path for p in picks}, self._map_budget)


def _deferred(chunks: list[ChunkScore]) -> tuple[list[ChunkScore], list[ChunkScore]]:
    """``chunks`` split into those ranked as they are and those that come after them all (see
    CHUNK_MIN_PRIOR), each in rank order."""
    first: list[ChunkScore] = []
    last: list[ChunkScore] = []
    for cs in chunks:
        (last if cs.file.prior < CHUNK_MIN_PRIOR and not cs.file.named else first).append(cs)
    return first, last


def _plan_for(plans: dict[str, _FilePlan], order: list[str], file_score: FileScore) -> _FilePlan:
    """The file's plan, made and put in the order of picks the first time the file is chosen."""
    path = file_score.cand.path
    if path not in plans:
        plans[path] = _FilePlan(file_score)
        order.append(path)
    return plans[path]


def _take_best_whole(
    files: list[FileScore], budget: int, plans: dict[str, _FilePlan], order: list[str]
) -> int:
    """The best files whole, in rank order, while each fits in WHOLE_SHARE of the budget left
    (a dominant best file: in all of it) and is one of the TOP_RANKS, small, or scores near the
    best; returns the spend."""
    spent = 0
    top = files[0].score if files else 0.0
    for rank, file_score in enumerate(files):
        tokens = _FilePlan(file_score).file_tokens
        if file_score.cand.in_part:
            continue  # over the size limit: excerpts only
        any_score = rank < TOP_RANKS or tokens <= SMALL_FILE_SHARE * budget
        too_weak = file_score.score < WHOLE_MIN_RATIO * top and not any_score
        too_weak = too_weak or _weak_non_source(file_score, top)
        share = 1.0 if rank == 0 and _dominant(files) else WHOLE_SHARE
        if too_weak or tokens > share * (budget - spent):
            break
        _plan_for(plans, order, file_score).whole = True
        spent += tokens
    return spent


def _dominant(files: list[FileScore]) -> bool:
    """The best file matches and scores DOMINANT_RATIO times the next one's or more (or is
    alone): a request matching nothing leaves no file standing out."""
    if not files or files[0].score <= 0:
        return False
    return len(files) < 2 or files[0].score >= DOMINANT_RATIO * files[1].score


def _weak_non_source(file_score: FileScore, top: float) -> bool:
    """Not source, and scoring under NON_SOURCE_MIN_RATIO of the best file."""
    facts = file_score.cand.facts
    not_source = bool(facts.kinds) or facts.language is None
    return not_source and file_score.score < NON_SOURCE_MIN_RATIO * top


def _take_small_whole(
    files: list[FileScore],
    budget: int,
    plans: dict[str, _FilePlan],
    order: list[str],
    spent: int,
) -> int:
    """Small files among the best SMALL_SCAN whole too (cheap, and excerpts of them would save
    little), up to SMALL_TOTAL of the budget in all; returns the spend."""
    small_spent = 0
    top = files[0].score if files else 0.0
    for rank, file_score in enumerate(files[:SMALL_SCAN]):
        if file_score.cand.path in plans or file_score.cand.in_part:
            continue
        if _weak_non_source(file_score, top):
            continue
        tokens = _FilePlan(file_score).file_tokens
        share = TOP_SMALL_SHARE if rank < TOP_RANKS else SMALL_FILE_SHARE
        if tokens <= share * budget and small_spent + tokens <= SMALL_TOTAL * budget:
            _plan_for(plans, order, file_score).whole = True
            spent += tokens
            small_spent += tokens
    return spent


def _take_chunks(
    chunks: list[ChunkScore],
    budget: int,
    plans: dict[str, _FilePlan],
    order: list[str],
    spent: int,
    top: float,
) -> int:
    """Chunks in two rounds (see the module's docstring), each followed by whole files for the
    best files sent in part; returns the spend."""
    for limit in (int(FIRST_ROUND_SHARE * budget), budget):
        # The first round is the best chunks in order, none skipped.
        spent = _chunk_round(chunks, limit, plans, order, spent, top, in_order=limit < budget)
        spent = _fill_gaps(plans, order, limit, spent)
        spent = _upgrade(plans, order, budget, spent, WHOLE_SHARE if limit < budget else 1.0)
    return spent


def _chunk_round(
    chunks: list[ChunkScore],
    limit: int,
    plans: dict[str, _FilePlan],
    order: list[str],
    spent: int,
    top: float,
    *,
    in_order: bool,
) -> int:
    """Chunks in rank order while they fit in ``limit`` (``in_order``: up to the first that
    does not); returns the spend."""
    for chunk_score in chunks:
        if limit - spent < EXCERPT_OVERHEAD * 3:
            break
        plan = plan_for_existing(plans, chunk_score)
        spent = _add_chunk(plan, chunk_score, plans, order, limit, spent, top)
        got = plans.get(chunk_score.file.cand.path)
        taken = got is not None and (got.whole or chunk_score.index in got.chunks)
        if in_order and not taken:
            break
    return spent


def _fill_gaps(plans: dict[str, _FilePlan], order: list[str], limit: int, spent: int) -> int:
    """The chunks between two excerpts of a file at most GAP_LINES apart, best files first,
    while they fit in ``limit``; returns the spend."""
    if GAP_LINES <= 0:
        return spent
    for path in order:
        plan = plans[path]
        if plan.whole or not plan.chunks:
            continue
        rec = plan.fs.record
        assert rec is not None
        for (_, prev_end, _, _), (next_start, _, _, _) in pairwise(plan.ranges()):
            if next_start - prev_end - 1 > GAP_LINES:
                continue
            inside = {
                i
                for i, c in enumerate(rec.chunks)
                if i not in plan.chunks and c.start >= prev_end - 1 and c.end <= next_start + 1
            }
            if not inside:
                continue
            before = plan.cost()
            plan.chunks |= inside
            cost = plan.cost() - before
            if spent + cost > limit:
                plan.chunks -= inside
            else:
                spent += cost
    return spent


def _map_entries(files: list[FileScore], chosen: set[str], map_budget: int) -> list[MapEntry]:
    """The next-ranked files not sent, with their definitions, while the map's budget lasts;
    first, in up to TESTS_MAP_SHARE of it, the tests, stubs and declarations named for a
    source file sent (the model then knows which tests exercise the code it changes and where
    its types are declared, however low the request ranks them)."""
    entries: list[MapEntry] = []
    listed: set[str] = set()
    map_spent = 0
    companions = _companions_of(files, chosen)
    for group, share in ((companions, TESTS_MAP_SHARE), (files, 1.0)):
        limit = int(map_budget * share)
        for file_score in group:
            if limit - map_spent < 20:
                break
            path = file_score.cand.path
            if path in chosen or path in listed or file_score.links is None:
                continue
            if file_score.score <= 0 and group is files:
                continue
            entry = _map_entry(file_score)
            if map_spent + entry.tokens <= limit:
                entries.append(entry)
                listed.add(path)
                map_spent += entry.tokens
    return entries


def _companions_of(files: list[FileScore], chosen: set[str]) -> list[FileScore]:
    """The tests whose names name a source file sent (``tests/test_cart.py`` for
    ``shop/cart.py``), and the stubs and declarations of one (``index.d.ts`` for ``index.js``:
    they rank a twentieth of code, and the model changing an API then knows where its types
    are declared), in rank order."""
    sent = {
        posixpath.splitext(posixpath.basename(path))[0].lower()
        for path in chosen
        if not is_test(path) and not is_stub(path)
    }
    return [fs for fs in files if _names_one_of(fs, sent)]


def _names_one_of(file_score: FileScore, names: set[str]) -> bool:
    kinds, path = file_score.cand.facts.kinds, file_score.cand.path
    if kinds & TEST:
        return tested_name(path) in names
    return bool(kinds & STUB) and declared_name(path) in names


def _upgrade(
    plans: dict[str, _FilePlan], order: list[str], budget: int, spent: int, share: float = 1.0
) -> int:
    """Whole files, best first, for files sent in part, each while the rest of it costs at most
    ``share`` of the budget left."""
    for path in sorted(order, key=lambda p: -plans[p].fs.score):
        plan = plans[path]
        if plan.whole or not plan.chunks or plan.fs.cand.in_part:
            continue
        current = plan.cost()
        extra = plan.file_tokens - current
        if extra <= share * (budget - spent):
            spent += plan.file_tokens - current
            plan.whole = True
    return spent


def plan_for_existing(plans: dict[str, _FilePlan], cs: ChunkScore) -> _FilePlan | None:
    return plans.get(cs.file.cand.path)


def _add_chunk(
    plan: _FilePlan | None,
    cs: ChunkScore,
    plans: dict[str, _FilePlan],
    order: list[str],
    budget: int,
    spent: int,
    top: float = 0.0,
) -> int:
    """Try to add one chunk (with its file's header and its class line); returns the spend."""
    if plan is not None and (plan.whole or cs.index in plan.chunks):
        return spent
    new = plan is None
    trial = _FilePlan(cs.file) if plan is None else plan
    before = trial.cost() if not new else 0
    saved = (set(trial.chunks), set(trial.lines))
    rec = cs.file.record
    assert rec is not None
    chunk = rec.chunks[cs.index]
    trial.chunks.add(cs.index)
    parent = chunk.parent
    while parent is not None:  # a method's class line; a part's function's and its class's
        trial.lines.add(rec.chunks[parent].line)
        parent = rec.chunks[parent].parent
    cost = trial.cost() - before
    if spent + cost > budget:
        trial.chunks, trial.lines = saved
        return spent
    if (
        cs.file.score >= WHOLE_MIN_RATIO * top
        and rec.chunks[0].kind == "header"
        and 0 not in trial.chunks
    ):
        # A file ranked near the best: its module header goes with its first excerpt.
        trial.chunks.add(0)
        with_header = trial.cost() - before
        if spent + with_header > budget:
            trial.chunks.discard(0)
        else:
            cost = with_header
    spent += cost
    label = chunk.name or chunk.kind
    if chunk.kind == "part" and chunk.parent is not None:
        label = f"part of {rec.chunks[chunk.parent].name}"
    trial.reasons.append(f"{label}: {'; '.join(cs.reasons) or 'in a relevant file'}")
    if new:
        plans[cs.file.cand.path] = trial
        order.append(cs.file.cand.path)
    whole_cost = trial.file_tokens
    current = trial.cost()
    small = whole_cost - current <= SMALL_EXTRA_SHARE * budget + SMALL_EXTRA
    upgrade = (current >= UPGRADE_RATIO * whole_cost or small) and not cs.file.cand.in_part
    if upgrade and spent - current + whole_cost <= budget:
        spent += whole_cost - current
        trial.whole = True
    return spent


def _to_pick(plan: _FilePlan) -> Pick:
    fs = plan.fs
    facts = fs.links
    assert facts is not None
    reasons = list(dict.fromkeys(fs.reasons))
    if plan.whole:
        return Pick(
            path=fs.cand.path,
            blob=fs.cand.blob,
            whole=True,
            ranges=(),
            tokens=plan.file_tokens,
            score=fs.score,
            reasons=tuple(reasons or ["ranked by relevance"]),
            lines=facts.lines,
            file_tokens=plan.file_tokens,
            pointed=fs.pointed,
        )
    ranges = plan.ranges()
    if fs.cand.in_part:
        reasons.append(f"{fs.cand.size:,} bytes, over the size limit: excerpts only")
    return Pick(
        path=fs.cand.path,
        blob=fs.cand.blob,
        whole=False,
        ranges=tuple(LineRange(s, e) for s, e, _, _ in ranges),
        tokens=plan.cost(),
        score=fs.score,
        reasons=tuple(reasons + plan.reasons[:6]),
        lines=facts.lines,
        file_tokens=plan.file_tokens,
        pointed=fs.pointed,
    )


def _map_entry(fs: FileScore) -> MapEntry:
    facts = fs.links
    assert facts is not None
    sigs = [Signature(line, text) for line, text in facts.signatures[:MAP_SIGNATURES]]
    nbytes = len(fs.cand.path) + sum(len(s.text) + 8 for s in sigs) + 2
    return MapEntry(fs.cand.path, fs.score, tuple(sigs), estimate_tokens(nbytes))
