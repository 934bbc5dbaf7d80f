"""Ranking files and chunks for a request: a list of named signals, combined.

Each signal is a pure function in rank_signals.py that returns, per file (or chunk), amounts
and the reasons for them; every weight is in one table (weights.py). A file's score:

1. **Relevance**: BM25 over files on code-aware terms (content plus path terms, which count
   triple: a file called ``cookies.py`` is about cookies), over the best file's. Postings come
   from the index's table for the request's terms only; document frequencies are counted over
   the commit's files, not over every blob ever indexed. (Why not SQLite FTS5: its statistics
   cover the whole table, i.e. every version of every file ever seen, and its tokenizer does
   not split identifiers. Why not bm25s: importing it and numpy costs ~0.16 s per run, a third
   of the per-request time target, for a few hundred multiplications.)
2. **Lifts** (FILE_LIFTS), added to it: a path, file name or dotted module named in the request
   (or a module's name in backticks); identifiers the request names that the file defines
   (exact spelling); a file name made of the request's words; and history: files the latest
   commits changed, fading with age (a request often continues that work; recency.py).
3. Times the file's **prior**: test files and prose (docs, changelogs) count less than code
   unless the request asks for them (an edit request is mostly about the code).
4. **Links** (links.py), from the scores so far: a use of an identifier the request spells as
   code; then files linked by imports (resolved to files) and by the use of a name another
   file defines (rare names weigh more), over which relevance spreads by personalised PageRank
   seeded with the best files, so a caller, a callee or an ``__init__`` that re-exports a hit
   surfaces too.

**Chunks** of the best files are scored by BM25 on their own terms (CHUNK_RELEVANCE), plus
bonuses (CHUNK_BONUSES) for defining or using a named identifier and for holding lines the
latest commits wrote, combined with their file's score.

The order of the signals is the order their amounts are added in. Everything is
deterministic (ties break on the path), and every score comes with the reasons that produced
it.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from operator import attrgetter

from ..git.history import PastCommit
from .generated import generators, tied
from .index import Candidate
from .languages import in_docs_tree
from .link_facts import LinkFacts
from .links import MAX_DEFINERS, PPR_SEEDS, LinkGraph, graph_key, link_graph, link_shares
from .parse import Chunk, FileRecord
from .past import release_weights, similar_commit_weights
from .rank_signals import (
    NOT_STATED,
    ChunkEvidence,
    ChunkSignal,
    FileEvidence,
    FileSignal,
    Finding,
    LexicalMatch,
    LinkEvidence,
    SignalScores,
    UseEvidence,
    bm25_files,
    chunk_idf,
    chunk_lexical_match,
    chunk_named_identifier,
    chunk_named_place,
    chunk_recent_change,
    chunk_reverted,
    chunk_stated_line,
    defined_identifier,
    file_prior,
    hinted_paths,
    identifier_use,
    identifier_users,
    lexical_match,
    mentioned,
    name_match,
    name_probes,
    named_place,
    path_mention,
    recent_change,
    release_history,
    reverted_commit,
    similar_commit,
    stated_line,
    symbol_links,
    unambiguous_mentions,
)
from .related import widen
from .request import Query, analyse_request
from .stated import Held
from .store import BlobFacts, IndexStore
from .typos import asks_for_spelling, with_misspellings
from .weights import WEIGHTS, Weights

__all__ = [
    "ChunkScore",
    "FileScore",
    "Query",
    "Ranking",
    "analyse_request",
    "rank",
]

# The signals, in the order their amounts add up (see the module's docstring).
FILE_RELEVANCE: FileSignal = lexical_match
# The lifts by which a request points at a file: it names the file, its module, or a name the
# file defines (see FileScore.pointed).
POINTING: tuple[FileSignal, ...] = (
    path_mention,
    defined_identifier,
    name_match,
    reverted_commit,
    named_place,
    stated_line,
)
FILE_LIFTS: tuple[FileSignal, ...] = (*POINTING, recent_change, similar_commit, release_history)
CHUNK_RELEVANCE: ChunkSignal = chunk_lexical_match
CHUNK_BONUSES: tuple[ChunkSignal, ...] = (
    chunk_named_identifier,
    chunk_recent_change,
    chunk_reverted,
    chunk_named_place,
    chunk_stated_line,
)

GRAPH_FILE_LIMIT = 3000  # above this, only the best lexical files and their links form the graph
GRAPH_TOP_FILES = 300  # ... the best this many
CHUNK_FILES = 40  # files whose chunks are scored
IN_PART_CHUNKS = 200  # chunks of a file over the size limit that may be sent
# A file or chunk this small repeated elsewhere is a coincidence of style, not a copy.
COPY_MIN_BYTES = 120
NO_MATCH = LexicalMatch(0.0, ())  # of a file matching no term of the request
_PATH = attrgetter("cand.path")
_SCORE = attrgetter("score")
_PRIOR = attrgetter("prior")


def _less_score(ranked: FileScore) -> float:
    return -ranked.score


@dataclass(slots=True)
class FileScore:
    """A ranked file: its score, the reasons for it, and the measures behind it (kept to
    explain a ranking: ``lexical`` its BM25, ``matched`` the terms it matched best first,
    ``ppr`` its share of the link graph's PageRank, ``prior`` its kind's factor).

    ``links``: the file's link facts, read for every file of the link graph and made from
    ``record`` for the others whose record is loaded; packing takes the files that have them.
    ``record``: the whole record, loaded only for the files whose chunks are ranked."""

    cand: Candidate
    record: FileRecord | None
    lexical: float = 0.0
    score: float = 0.0
    reasons: tuple[str, ...] = ()
    matched: tuple[str, ...] = ()
    ppr: float = 0.0
    prior: float = 1.0
    # The request names the file (by path, file name or module), or a pathspec chose it.
    named: bool = False
    # The request points at the file: names it, its module, or a name it defines (POINTING).
    pointed: bool = False
    # False while the prior is not needed yet: on a repository past GRAPH_FILE_LIMIT files it
    # is worked out only for files with a score and those the later stages look at (telling a
    # test from code 100,000 times was a fifth of a warm run); see _with_priors.
    prior_known: bool = True
    links: LinkFacts | None = None

    def __post_init__(self) -> None:
        if self.links is None and self.record is not None:
            self.links = LinkFacts.of_record(self.record)


@dataclass
class ChunkScore:
    """A chunk of a ranked file (``index`` in its record's chunks), scored."""

    file: FileScore
    index: int
    score: float
    reasons: list[str]


@dataclass
class Ranking:
    """Every text candidate, best first, and the chunks of the best files, best first."""

    files: list[FileScore]
    chunks: list[ChunkScore]
    binary: list[str] = field(default_factory=list)  # candidates that are not text


def rank(
    store: IndexStore,
    files: Sequence[Candidate],
    request: str,
    recent: Mapping[str, float] | None = None,
    recent_lines: Mapping[str, Sequence[tuple[int, int]]] | None = None,
    *,
    weights: Weights = WEIGHTS,
    facts: BlobFacts | None = None,
    past: Sequence[PastCommit] = (),
    reverted: Mapping[str, Sequence[tuple[int, int]]] | None = None,
    places: Mapping[str, Sequence[int]] | None = None,
    stated: Mapping[str, Held] | None = None,
) -> Ranking:
    """Score every candidate file and the chunks of the best ones.

    ``recent`` weighs the files the latest commits changed and ``recent_lines`` gives the
    lines they wrote (both empty: no history signal); ``past`` gives earlier commits' subjects
    and paths (see past.py); ``reverted`` the files and lines of the commit the request
    reverts (reverted.py); ``places`` the lines a traceback or an error message in the
    request names (places.py); ``stated`` the lines stating what the request asks to change
    (its version, its Python versions, its copyright: stated.py). ``facts``: the files' blob
    facts, when the caller read them already (``store.facts`` of their keys or more).
    """
    query = widen(analyse_request(request, weights), store.terms_from, weights.related)
    if facts is None:
        facts = store.facts([c.key for c in files])
    lengths, statuses = facts.lengths, facts.statuses
    texts = [c for c in files if c.key in lengths and statuses.get(c.key) != "binary"]
    keys = {c.key for c in texts}
    if asks_for_spelling(request):
        query = with_misspellings(
            query, lambda terms: store.postings(terms, keys), weights.misspelling
        )
    postings = store.postings(list(query.terms), keys)
    hinted = hinted_paths(texts, query.terms)
    idf, lexical = bm25_files(query, texts, lengths, postings, hinted)
    definers = _definers(store, query, texts, keys)
    paths = tuple(c.path for c in texts)
    mentions = unambiguous_mentions(query.path_mentions, paths)
    if mentions != query.path_mentions:
        query = replace(query, path_mentions=mentions)
    lifts = similar_commit_weights(query.terms, past) if past and weights.past else {}
    releases = release_weights(past) if query.names_version and weights.release else {}
    reverted, places, stated = reverted or {}, places or {}, stated or {}
    pointed = dict.fromkeys(reverted, 1.0)
    evidence = FileEvidence(
        query, paths, lexical, definers, recent or {}, hinted, lifts, releases, pointed,
        placed=dict.fromkeys(places, 1.0),
        stated={path: held.reason for path, held in stated.items()},
    )  # fmt: skip
    scored = _score_files(texts, evidence, weights)
    named = _follow_links(store, scored, query, _defined_names(definers), weights)
    _tie_generated(scored, weights)
    ordered = _demote_file_copies(_fused(_by_score(scored), weights), weights)
    # A file whose kind is worth nothing to the request (a lock file it does not name) gives
    # no excerpts either, not even to fill a budget left over.
    best = [f for f in _with_priors(ordered[:CHUNK_FILES], query, weights) if f.prior > 0]
    _load_missing_records(store, best)
    spans = _Spans(recent_lines or {}, reverted, places, stated)
    chunks = _rank_chunks(best, query, idf, named, spans, weights)
    binary = [c.path for c in files if statuses.get(c.key) == "binary"]
    return Ranking(ordered, chunks, binary)


def _definers(
    store: IndexStore, query: Query, texts: Sequence[Candidate], keys: set[str]
) -> dict[str, tuple[str, ...]]:
    """The files defining each identifier the request names, by name; a name defined in more
    than MAX_DEFINERS files is too common to point anywhere."""
    idents = sorted(query.strong_idents | query.weak_idents)
    defined = store.definers(idents, keys) if idents else {}
    if not defined:
        return {}
    wanted = {key for where in defined.values() for key in where}
    key_to_path = {c.key: c.path for c in texts if c.key in wanted}  # the last path of a blob
    return {
        name: tuple(key_to_path[key] for key in where)
        for name, where in sorted(defined.items())
        if len(where) <= MAX_DEFINERS
    }


def _defined_names(definers: Mapping[str, Sequence[str]]) -> dict[str, set[str]]:
    """Per file, the identifiers the request names that it defines."""
    names: dict[str, set[str]] = defaultdict(set)
    for name, paths in definers.items():
        for path in paths:
            names[path].add(name)
    return names


def _score_files(
    texts: Sequence[Candidate], evidence: FileEvidence, weights: Weights
) -> dict[str, FileScore]:
    """Each file's direct score: its relevance plus its lifts, times its prior. Most files of
    a big repository are found by no signal, or by their relevance only: those are scored
    without asking every signal about them (bench/context_scale.py's 100,000 files)."""
    relevance = FILE_RELEVANCE(evidence, weights)
    lifts = [signal(evidence, weights) for signal in FILE_LIFTS]
    lifted = {path for found in lifts for path in found}
    every_prior = len(texts) <= GRAPH_FILE_LIMIT
    scored: dict[str, FileScore] = {}
    query = evidence.query
    for candidate in texts:
        path = candidate.path
        if path in lifted:
            scored[path] = _found_file(candidate, evidence, relevance, lifts, weights, every_prior)
        elif path in relevance:  # most of the rest of those found
            match = evidence.lexical[path]
            own = relevance[path]
            scored[path] = _matching_file(candidate, match, own, query, weights, every_prior)
        elif every_prior:
            scored[path] = _unfound_file(candidate, query, weights)
        else:  # most of a large repository's files: nothing found, nothing to say, no prior yet
            scored[path] = FileScore(candidate, None, prior_known=False)
    return scored


def _found_file(
    candidate: Candidate,
    evidence: FileEvidence,
    relevance: SignalScores,
    lifts: Sequence[SignalScores],
    weights: Weights,
    every_prior: bool,
) -> FileScore:
    """A file some signal found something about: its relevance plus its lifts, times its
    prior."""
    path = candidate.path
    match = evidence.lexical.get(path, NO_MATCH)
    own = relevance.get(path, [])
    lifted = [finding for found in lifts for finding in found.get(path, [])]
    direct = _total(own) + _total(lifted)
    needed = every_prior or direct != 0
    mentions = evidence.query.path_mentions
    file_score = FileScore(
        candidate,
        None,
        lexical=match.score,
        matched=match.terms,
        prior=_found_prior(candidate, evidence, weights) if needed else 1.0,
        prior_known=needed,
        named=bool(mentions) and mentioned(path, mentions) is not None,
        pointed=any(path in found for found in lifts[: len(POINTING)]),
    )
    file_score.score = direct * file_score.prior
    if own or lifted:
        file_score.reasons = tuple(f.reason for f in (*own, *lifted) if f.reason)
    return file_score


def _found_prior(candidate: Candidate, evidence: FileEvidence, weights: Weights) -> float:
    """The file's prior, or code's when it is a docs tree's code stating what the request asks
    to change (stated.py): a release's ``release = "1.14.1"`` in Sphinx's ``conf.py`` is the
    line to change, whatever docs count otherwise. Not other kinds (a LICENSE, a
    ``pyproject.toml``, a test): a request taken for a release or a new year that is not
    one ("Bump pflag to 1.0.8", "Add a blank line between copyright and license") lifted
    them, and cobra's ``license_*.go`` templates, over the source it changed."""
    facts = candidate.facts
    path = candidate.path
    if path in evidence.stated and facts.language is not None and in_docs_tree(path):
        return 1.0
    return file_prior(candidate.path, evidence.query, weights, facts)


def _matching_file(
    candidate: Candidate,
    match: LexicalMatch,
    own: Sequence[Finding],
    query: Query,
    weights: Weights,
    every_prior: bool,
) -> FileScore:
    """A file only its relevance found something about: as :func:`_found_file` scores it
    with no lifts (so not named nor pointed at either: see :func:`_unfound_file`)."""
    direct = _total(own) + _total(())
    needed = every_prior or direct != 0
    prior = file_prior(candidate.path, query, weights, candidate.facts) if needed else 1.0
    return FileScore(
        candidate,
        None,
        lexical=match.score,
        score=direct * prior,
        reasons=tuple(f.reason for f in own if f.reason),
        matched=match.terms,
        prior=prior,
        prior_known=needed,
    )


def _unfound_file(candidate: Candidate, query: Query, weights: Weights) -> FileScore:
    """A file no signal found anything about: no match, no reasons, a score of nothing times
    its prior. Not named either: the request names a file by path_mention, one of the lifts,
    which found nothing about this one. (Past GRAPH_FILE_LIMIT files, its prior is left until
    needed: a score of 0.0 times 1.0.)"""
    prior = file_prior(candidate.path, query, weights, candidate.facts)
    return FileScore(candidate, None, score=0.0 * prior, prior=prior)


def _with_priors(files: list[FileScore], query: Query, weights: Weights) -> list[FileScore]:
    """The files, each with its prior worked out (a file without a score of its own has none
    until a later stage may give it one)."""
    for ranked in files:
        if not ranked.prior_known:
            ranked.prior = file_prior(ranked.cand.path, query, weights, ranked.cand.facts)
            ranked.prior_known = True
    return files


def _total(findings: Sequence[Finding]) -> float:
    """The findings' amounts added up in order (the order fixes the last bits of the sum)."""
    total = 0.0
    for finding in findings:
        total += finding.amount
    return total


def _by_score(scored: Mapping[str, FileScore]) -> list[FileScore]:
    """Best first, ties by path: sorted by path, then stably by score, highest first (the
    order a key of (-score, path) gives, without making a tuple per file: 100,000 of them,
    twice a run, were a twentieth of a warm run). The files nothing found (score 0) come by
    their prior, source first: a vague request ("Formatting.") in a small repository reaches
    them (their chunks are ranked, a large budget sends them whole), and by path alone
    `.gitignore` and `LICENSE` had come before `setup.py`, which was never sent."""
    ordered = sorted(sorted(scored.values(), key=_PATH), key=_SCORE, reverse=True)
    unfound = bisect.bisect_left(ordered, 0.0, key=_less_score)
    ordered[unfound:] = sorted(ordered[unfound:], key=_PRIOR, reverse=True)
    return ordered


def _fused(files: list[FileScore], weights: Weights) -> list[FileScore]:
    """The files in the order fused from two: by score (``files``, best first) and by lexical
    match times prior, by reciprocal rank (see Weights.fusion). The scores stay the same
    amounts, handed out in the fused order: the best fused file gets the best score, so
    packing, which weighs chunks by their file's score, sees the same spread.

    Why: on held-out repositories the lifts and links that order ``files`` and plain BM25
    each cover tasks the other misses (bench/context_pool.py's complementarity lines)."""
    if not weights.fusion:
        return files
    scored = [ranked for ranked in files if ranked.score > 0]
    if len(scored) < 2:
        return files
    k = weights.fusion_k
    by_lexical = sorted(
        (ranked for ranked in scored if ranked.lexical > 0),
        key=lambda ranked: (-ranked.lexical * ranked.prior, ranked.cand.path),
    )
    lexical_rank = {id(ranked): n for n, ranked in enumerate(by_lexical)}
    fused = {
        id(ranked): 1 / (k + n) + weights.fusion / (k + lexical_rank[id(ranked)])
        if id(ranked) in lexical_rank
        else 1 / (k + n)
        for n, ranked in enumerate(scored)
    }
    amounts = [ranked.score for ranked in scored]
    order = sorted(scored, key=lambda ranked: (-fused[id(ranked)], ranked.cand.path))
    for ranked, amount in zip(order, amounts, strict=True):
        ranked.score = amount
    return [*order, *files[len(scored) :]]


def _follow_links(
    store: IndexStore,
    scored: Mapping[str, FileScore],
    query: Query,
    defined: Mapping[str, set[str]],
    weights: Weights,
) -> dict[str, set[str]]:
    """The link signals, after the direct ones (they start from the scores those made): uses
    of identifiers the request names, then symbol links. Returns, per file, the identifiers
    the request names that it defines or uses (its chunks that hold them get a bonus)."""
    ordered = _by_score(scored)
    graph_files = ordered if len(ordered) <= GRAPH_FILE_LIMIT else ordered[:GRAPH_TOP_FILES]
    _with_priors(graph_files, query, weights)
    facts = store.link_facts([ranked.cand.key for ranked in graph_files])
    for ranked in graph_files:
        ranked.links = facts.get(ranked.cand.key)
    linked = {r.cand.path: r.links for r in graph_files if r.links is not None}
    users = identifier_users(linked, query)
    _add_scaled(scored, identifier_use(UseEvidence(users, defined), weights))
    nodes = [ranked.cand.path for ranked in graph_files]
    kept = len(graph_files) == len(ordered)
    graph = _link_graph(store, graph_files, nodes, linked, weights, kept)
    seeds = {r.cand.path: r.score**2 for r in ordered[:PPR_SEEDS] if r.score > 0}
    shares = link_shares(graph, nodes, seeds)
    for ranked in graph_files:
        ranked.ppr = shares[ranked.cand.path]
    _add_scaled(scored, symbol_links(LinkEvidence(graph, shares, frozenset(seeds)), weights))
    named = {path: set(names) for path, names in defined.items()}
    for name, paths in users.items():
        for path in paths:
            named.setdefault(path, set()).add(name)
    return named


def _link_graph(
    store: IndexStore,
    graph_files: Sequence[FileScore],
    nodes: Sequence[str],
    linked: Mapping[str, LinkFacts],
    weights: Weights,
    kept: bool,
) -> LinkGraph:
    """The link graph of these files, kept in the index between runs when it is the whole
    commit's (``kept``): it depends on the files alone, and a warm run on mypy's 1,916 files
    would otherwise spend 0.09 s of its 0.3 s building it. Above GRAPH_FILE_LIMIT the graph
    holds the request's best files, a set no other request is likely to have."""
    if not kept:
        return link_graph(nodes, linked, weights)
    key = graph_key({r.cand.path: r.cand.key for r in graph_files}, weights)
    data = store.graph(key)
    graph = LinkGraph.from_bytes(data) if data is not None else None
    if graph is None:
        graph = link_graph(nodes, linked, weights)
        store.keep_graph(key, graph.to_bytes())
    return graph


def _tie_generated(scored: Mapping[str, FileScore], weights: Weights) -> None:
    """Each file a script of the repository generates, and that script, scored at least
    ``weights.generated`` times the other (generated.py), unless its kind is worth nothing.
    Only the files whose link facts are read (the link graph's) say what generated them."""
    named = {
        path: ranked.links.generator
        for path, ranked in scored.items()
        if ranked.links is not None and ranked.links.generator
    }
    pairs = generators(named, scored) if named and weights.generated else {}
    scores = {path: scored[path].score for pair in pairs.items() for path in pair}
    outputs = {generator: output for output, generator in sorted(pairs.items(), reverse=True)}
    for path, score in tied(scores, pairs, weights.generated).items():
        ranked = scored[path]
        if ranked.prior > 0:
            ranked.score = score
            why = f"generated by {pairs[path]}" if path in pairs else f"generates {outputs[path]}"
            ranked.reasons += (why,)


def _add_scaled(scored: Mapping[str, FileScore], found: SignalScores) -> None:
    """Add a link signal's findings to the files' scores, each times the file's prior."""
    for path, findings in found.items():
        file_score = scored[path]
        for finding in findings:
            file_score.score += finding.amount * file_score.prior
            if finding.reason:
                file_score.reasons += (finding.reason,)


def _load_missing_records(store: IndexStore, files: Sequence[FileScore]) -> None:
    """Records for the files whose chunks are ranked (the link graph read only their link
    facts), and link facts made from them for those outside the graph (it takes only the best
    of a large repository)."""
    missing = [ranked.cand.key for ranked in files if ranked.record is None]
    if missing:
        more = store.records(missing)
        for ranked in files:
            if ranked.record is None:
                ranked.record = more.get(ranked.cand.key)
                if ranked.links is None and ranked.record is not None:
                    ranked.links = LinkFacts.of_record(ranked.record)


@dataclass(frozen=True)
class _Spans:
    """Per file, the lines the chunk bonuses look for: those the latest commits wrote, those
    the commit the request reverts wrote, those a traceback in the request names, and those
    stating what the request asks to change."""

    recent: Mapping[str, Sequence[tuple[int, int]]]
    reverted: Mapping[str, Sequence[tuple[int, int]]]
    places: Mapping[str, Sequence[int]]
    stated: Mapping[str, Held]


@dataclass(frozen=True)
class _ChunkRow:
    """A chunk of a ranked file and its relevance so far, with the reasons for it."""

    file: FileScore
    index: int
    relevance: float
    reasons: list[str]


def _rank_chunks(
    files: list[FileScore],
    query: Query,
    file_idf: Mapping[str, float],
    named: Mapping[str, set[str]],
    spans: _Spans,
    weights: Weights,
) -> list[ChunkScore]:
    """The chunks of these files, best first: their relevance (with their class's or members'
    share) combined with their file's score."""
    chunks = [chunk for ranked in files if ranked.record for chunk in ranked.record.chunks]
    idf, average = chunk_idf(query, file_idf, chunks)
    probes = name_probes(idf)
    rows: list[_ChunkRow] = []
    for ranked in files:
        if ranked.record is None:
            continue
        path = ranked.cand.path
        evidence = ChunkEvidence(
            idf,
            average,
            query.words,
            probes,
            frozenset(named.get(path, set())),
            spans.recent.get(path, ()),
            spans.reverted.get(path, ()),
            spans.places.get(path, ()),
            spans.stated.get(path, NOT_STATED),
        )
        for index, chunk in enumerate(ranked.record.chunks):
            relevance, reasons = _chunk_relevance(chunk, evidence, weights)
            rows.append(_ChunkRow(ranked, index, relevance, reasons))
    return _chunk_scores(_spread_to_members(rows, weights), files, weights)


def _chunk_relevance(
    chunk: Chunk, evidence: ChunkEvidence, weights: Weights
) -> tuple[float, list[str]]:
    """A chunk's relevance plus its bonuses, and the reasons for them."""
    found = CHUNK_RELEVANCE(chunk, evidence, weights)
    own = [found] if found is not None else []
    bonuses = [
        bonus
        for bonus in (signal(chunk, evidence, weights) for signal in CHUNK_BONUSES)
        if bonus is not None
    ]
    reasons = [finding.reason for finding in (*own, *bonuses) if finding.reason]
    return _total(own) + _total(bonuses), reasons


def _spread_to_members(rows: list[_ChunkRow], weights: Weights) -> list[_ChunkRow]:
    """A class's relevance reaches its members (damped): a request about the class is about
    them too."""
    by_chunk = {(row.file.cand.path, row.index): row.relevance for row in rows}
    spread: list[_ChunkRow] = []
    for row in rows:
        assert row.file.record is not None
        parent = row.file.record.chunks[row.index].parent
        extra = 0.0
        if parent is not None:
            extra = weights.member_spread * by_chunk.get((row.file.cand.path, parent), 0.0)
        # A new row only where the class gives its share (replace() costs 5 us a row, and a
        # large file has thousands of chunks).
        spread.append(
            _ChunkRow(row.file, row.index, row.relevance + extra, row.reasons) if extra else row
        )
    return spread


def _chunk_scores(
    rows: list[_ChunkRow], files: list[FileScore], weights: Weights
) -> list[ChunkScore]:
    """Each chunk's score from its relevance (over the best chunk's, and over its file's best
    chunk's) and its file's score (see weights.py), best first."""
    top = max((row.relevance for row in rows), default=0.0) or 1.0
    top_file = max((ranked.score for ranked in files), default=0.0) or 1.0
    top_in: dict[str, float] = defaultdict(float)
    for row in rows:
        top_in[row.file.cand.path] = max(top_in[row.file.cand.path], row.relevance)
    out = []
    for row in rows:
        ranked, relevance = row.file, row.relevance
        assert ranked.record is not None
        header = ranked.record.chunks[row.index].kind == "header"
        base = weights.header_base if header else weights.chunk_base
        in_file = top_in[ranked.cand.path] or 1.0
        mixed = (1 - weights.in_file_norm) * relevance / top
        mixed += weights.in_file_norm * relevance / in_file
        score = (ranked.score / top_file) ** weights.file_exponent * (base + mixed)
        score += weights.chunk_mix * ranked.prior * relevance / top
        out.append(ChunkScore(ranked, row.index, score, row.reasons))
    out.sort(key=lambda scored: (-scored.score, scored.file.cand.path, scored.index))
    return _demote_chunk_copies(_few_of_huge_files(out), weights)


def _few_of_huge_files(chunks: list[ChunkScore]) -> list[ChunkScore]:
    """Of each file over the size limit, only the best IN_PART_CHUNKS chunks that match the
    request: its excerpts are the few definitions the request needs (the rest of a huge module,
    often generated tables, is no context), and packing thousands of them costs time
    (3,500 functions at a 400k budget: 35 s)."""
    taken: dict[str, int] = defaultdict(int)
    out = []
    for scored in chunks:
        cand = scored.file.cand
        if cand.in_part:
            if not scored.reasons:
                continue
            taken[cand.path] += 1
            if taken[cand.path] > IN_PART_CHUNKS:
                continue
        out.append(scored)
    return out


def _demote_file_copies(files: list[FileScore], weights: Weights) -> list[FileScore]:
    """Files (of COPY_MIN_BYTES or more: empty ``__init__.py`` files are all alike) with the same
    content as a better-ranked file, or the same code (:func:`_code_key`): their score and
    prior times ``weights.copy`` (at 0 their chunks are not ranked either: in a small
    repository they were sent whole to fill the budget)."""
    seen: set[object] = set()
    demoted = False
    for ranked in files:
        if ranked.score <= 0:
            break  # best first: the rest have nothing to lose
        if ranked.cand.size < COPY_MIN_BYTES:
            continue
        keys = (ranked.cand.blob, _code_key(ranked.links))
        if any(key in seen for key in keys if key is not None):
            ranked.score *= weights.copy
            ranked.prior *= weights.copy
            ranked.reasons += ("a copy of a better-ranked file",)
            demoted = True
        seen.update(key for key in keys if key is not None)
    return _by_score({f.cand.path: f for f in files}) if demoted else files


def _code_key(facts: LinkFacts | None) -> object:
    """What two copies of a module differing only in their import specifiers share: zod's
    ``deno/lib/types.ts`` is ``src/types.ts`` with ``.ts`` added to each import, line for line,
    and both were sent (a 32k budget spent a fifth on the copy). Its definitions, the
    identifiers it uses, its number of lines and its first definition lines; None for a file
    defining nothing (scripts and data alike)."""
    if facts is None or not facts.defs:
        return None
    return (facts.lang, facts.lines, facts.defs, facts.used_text, facts.signatures)


def _demote_chunk_copies(chunks: list[ChunkScore], weights: Weights) -> list[ChunkScore]:
    """Chunks (past a module's header, of COPY_MIN_BYTES or more) whose text a better-ranked
    chunk has already, scored times ``weights.copy``; dropped at 0. ``chunks`` come best
    first. Two chunks alike in size and signature are compared by their terms: sorting every
    chunk's terms to make one key was a tenth of a warm run on mypy."""
    seen: dict[tuple[int, int, str], list[dict[str, int]]] = defaultdict(list)
    out: list[ChunkScore] = []
    rescored = False
    for scored in chunks:
        record = scored.file.record
        assert record is not None
        chunk = record.chunks[scored.index]
        if chunk.kind == "header" or chunk.nbytes < COPY_MIN_BYTES:
            out.append(scored)
            continue
        alike = seen[(chunk.nbytes, chunk.pieces, chunk.signature)]
        if chunk.terms in alike:
            if weights.copy > 0:
                out.append(replace(scored, score=scored.score * weights.copy))
                rescored = True
            continue
        alike.append(chunk.terms)
        out.append(scored)
    if rescored:
        out.sort(key=lambda scored: (-scored.score, scored.file.cand.path, scored.index))
    return out
