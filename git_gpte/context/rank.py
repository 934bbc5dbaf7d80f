"""Ranking files and chunks for a request: lexical relevance, direct mentions, symbol links.

1. **BM25 over files** on code-aware terms (content plus path terms, which count triple: a
   file called ``cookies.py`` is about cookies). Postings come from the index's table for the
   request's terms only; document frequencies are counted over the commit's files, not over
   every blob ever indexed. (Why not SQLite FTS5: its statistics cover the whole table, i.e.
   every version of every file ever seen, and its tokenizer does not split identifiers. Why not
   bm25s: importing it and numpy costs ~0.16 s per run, a third of the per-request time target,
   for a few hundred multiplications.)
2. **Direct mentions**: a path, file name or dotted module named in the request (or a
   module's name in backticks), and identifiers the request names that the repository defines
   (exact spelling), lift their file and the defining chunk.
   **History**: files the latest commits changed get a lift that fades with age, and chunks
   holding the lines they wrote a bonus; a request often continues that work (recency.py).
3. **Symbol links**: files are linked by imports (resolved to files) and by use of a name
   another file defines (rare names weigh more); relevance spreads over these links by
   personalised PageRank seeded with the lexical scores, so a caller, a callee or an
   ``__init__`` that re-exports a hit surfaces too (links.py).
4. **Chunks** of the best files are scored by BM25 on their own terms (same IDF), combined
   with their file's score.

Test files and prose (docs, changelogs) are ranked below code unless the request asks for
them: an edit request is mostly about the code. Everything is deterministic (ties break on the
path), and every score comes with the reasons that produced it. Every weight is in one table,
weights.py.
"""

from __future__ import annotations

import math
import posixpath
import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from . import terms as T
from .index import Candidate
from .languages import FILE_EXTENSIONS, is_config, is_docs, is_prose, is_test, vendor_dir
from .links import MAX_DEFINERS, PPR_SEEDS, link_graph, link_shares
from .parse import FileRecord
from .request import Query, analyse_request
from .store import IndexStore
from .weights import WEIGHTS

__all__ = ["ChunkScore", "FileScore", "Query", "Ranking", "analyse_request", "rank"]

K1 = 1.2
B = 0.75
PATH_TF = 3  # a path term counts as this many occurrences
GRAPH_FILE_LIMIT = 3000  # above this, only the best lexical files and their links form the graph
CHUNK_FILES = 40  # files whose chunks are scored
CHUNK_IDF = True


@dataclass
class FileScore:
    cand: Candidate
    record: FileRecord | None
    lexical: float = 0.0
    score: float = 0.0
    reasons: list[str] = field(default_factory=list)
    matched: list[str] = field(default_factory=list)
    ppr: float = 0.0
    prior: float = 1.0


@dataclass
class ChunkScore:
    file: FileScore
    index: int
    score: float
    reasons: list[str]


@dataclass
class Ranking:
    files: list[FileScore]
    chunks: list[ChunkScore]
    binary: list[str] = field(default_factory=list)  # candidates that are not text


def _bm25(tf: float, length: float, avg: float, idf: float) -> float:
    return idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / max(avg, 1.0)))


def _mentioned(path: str, mentions: Sequence[str]) -> str | None:
    lower = path.lower()
    no_ext = posixpath.splitext(lower)[0]
    stem_of = posixpath.basename(no_ext)
    for mention in mentions:
        m = mention.lower().replace("\\", "/")
        if m.endswith(".") and "/" not in m:
            if stem_of == m[:-1] and posixpath.splitext(lower)[1] in FILE_EXTENSIONS:
                return mention[:-1]
            continue
        if ("/" in m or posixpath.splitext(m)[1]) and (lower == m or lower.endswith("/" + m)):
            return mention
        dotted = m.replace(".", "/")
        if "." in m and (no_ext.endswith("/" + dotted) or no_ext == dotted):
            return mention
        if "." in m and (no_ext.endswith("/" + dotted + "/__init__")):
            return mention
        if "." in m and "/" not in m and "." + m.rsplit(".", 1)[-1] not in FILE_EXTENSIONS:
            # ``pkg.mod.Name``: the module it names is mentioned too (``pkg/mod.py``, ``pkg``).
            parts = m.split(".")[:-1]
            while parts:
                module = "/".join(parts)
                if no_ext in (module, module + "/__init__") or no_ext.endswith(
                    ("/" + module, "/" + module + "/__init__")
                ):
                    return mention
                parts.pop()
    return None


def rank(
    store: IndexStore,
    files: Sequence[Candidate],
    request: str,
    recent: Mapping[str, float] | None = None,
    recent_lines: Mapping[str, Sequence[tuple[int, int]]] | None = None,
) -> Ranking:
    """Score every candidate file and the chunks of the best ones.

    ``recent`` weighs the files the latest commits changed and ``recent_lines`` gives the
    lines they wrote (both empty: no history signal).
    """
    query = analyse_request(request)
    stats = store.stats([c.key for c in files])
    texts = [c for c in files if c.key in stats and stats[c.key].status != "binary"]
    keys = {c.key for c in texts}
    n = max(len(texts), 1)
    postings = store.postings(list(query.terms), keys)
    path_tf = {c.path: T.path_terms(c.path) for c in texts}
    df: dict[str, int] = {}
    for term in query.terms:
        holders = set(postings[term])
        holders.update(c.key for c in texts if term in path_tf[c.path])
        df[term] = len(holders)
    idf = {
        t: query.weights[t] * math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items() if d
    }
    lengths = {c.key: stats[c.key].length + PATH_TF * len(path_tf[c.path]) for c in texts}
    avg = sum(lengths.values()) / n if lengths else 1.0

    scored: dict[str, FileScore] = {}
    for c in texts:
        fs = FileScore(c, None)
        contributions: list[tuple[float, str]] = []
        for term, weight in idf.items():
            tf = postings[term].get(c.key, 0) + PATH_TF * path_tf[c.path].count(term)
            if tf:
                contributions.append((_bm25(tf, lengths[c.key], avg, weight), term))
        fs.lexical = sum(s for s, _ in contributions)
        fs.matched = [t for _, t in sorted(contributions, key=lambda x: (-x[0], x[1]))]
        scored[c.path] = fs
    top_lex = max((f.lexical for f in scored.values()), default=0.0) or 1.0

    # Direct mentions: paths and defined identifiers.
    boosts: dict[str, float] = defaultdict(float)
    for path, fs in scored.items():
        hit = _mentioned(path, query.path_mentions)
        if hit:
            boosts[path] += WEIGHTS.mention
            fs.reasons.append(f"named in the request ({hit})")
    idents = sorted(query.strong_idents | query.weak_idents)
    defined = store.definers(idents, keys) if idents else {}
    key_to_path = {c.key: c.path for c in texts}
    ident_chunks: dict[str, set[str]] = defaultdict(set)  # path -> names it defines
    for name, where in sorted(defined.items()):
        if len(where) > MAX_DEFINERS:
            continue
        boost = (
            WEIGHTS.strong_identifier if name in query.strong_idents else WEIGHTS.weak_identifier
        )
        for key in where:
            path = key_to_path[key]
            boosts[path] += boost / len(where)
            ident_chunks[path].add(name)
            scored[path].reasons.append(f"defines {name}")

    def prior(path: str) -> float:
        if is_test(path) and not query.wants_tests:
            return WEIGHTS.test
        if is_prose(path):
            return WEIGHTS.prose * (WEIGHTS.prose_asked if query.wants_prose else 1.0)
        if is_config(path) or (is_docs(path) and not query.wants_prose):
            return WEIGHTS.config
        vendored = vendor_dir(path)
        if vendored is not None and not set(T.identifier_terms(vendored)) & set(query.terms):
            return WEIGHTS.vendored
        return 1.0

    request_terms = set(query.terms)
    # Every term of a name starts with three letters of it (stemming keeps them): a name holding
    # none of the request terms' beginnings is not worth splitting (100,000 files: 1 s).
    heads = re.compile("|".join(sorted({re.escape(t[:3]) for t in request_terms})) or "(?!)")
    for path, fs in scored.items():
        stem = posixpath.splitext(posixpath.basename(path))[0]
        if stem in ("__init__", "index", "mod", "main"):
            stem = posixpath.basename(posixpath.dirname(path))
        if not heads.search(stem.lower()):
            continue
        name_terms = T.identifier_terms(stem)
        if name_terms and all(t in request_terms for t in name_terms):
            boosts[path] += WEIGHTS.name
            fs.reasons.append(f"its name is in the request ({stem})")

    for path, w in (recent or {}).items():
        if path in scored:
            boosts[path] += WEIGHTS.recent * w
            scored[path].reasons.append("changed recently")
    for path, fs in scored.items():
        fs.prior = prior(path)
        fs.score = (fs.lexical / top_lex + boosts[path]) * fs.prior

    # Symbol links: personalised PageRank over the files' graph.
    ordered = sorted(scored.values(), key=lambda f: (-f.score, f.cand.path))
    graph_files = ordered if len(ordered) <= GRAPH_FILE_LIMIT else ordered[:300]
    records = store.records([f.cand.key for f in graph_files])
    for f in graph_files:
        f.record = records.get(f.cand.key)
    users: dict[str, list[FileScore]] = defaultdict(list)
    for f in graph_files:
        if f.record is None:
            continue
        used = {ident for chunk in f.record.chunks for ident in chunk.idents}
        for name in query.strong_idents & used:
            users[name].append(f)
    for name, files_using in sorted(users.items()):
        for f in files_using:
            if name in ident_chunks.get(f.cand.path, ()):
                continue
            f.score += WEIGHTS.identifier_use / math.sqrt(len(files_using)) * f.prior
            ident_chunks[f.cand.path].add(name)
            f.reasons.append(f"uses {name}")
    graph = link_graph(
        {f.cand.path: f.record for f in graph_files if f.record is not None}, WEIGHTS
    )
    seeds = {f.cand.path: f.score**2 for f in ordered[:PPR_SEEDS] if f.score > 0}
    shares = link_shares(graph, [f.cand.path for f in graph_files], seeds)
    seed_paths = sorted(seeds)
    for f in graph_files:
        f.ppr = shares[f.cand.path]
        f.score += WEIGHTS.symbol_links * f.ppr * prior(f.cand.path)
        if f.ppr > 0.05 and f.cand.path not in seeds:
            why = graph.first_reason(f.cand.path, seed_paths)
            if why is not None:
                f.reasons.append(f"linked: {why}")
    for f in scored.values():
        if f.matched:
            said = dict.fromkeys(query.words.get(t, t) for t in f.matched)
            f.reasons.insert(0, "matches " + ", ".join(list(said)[:6]))
    ordered = sorted(scored.values(), key=lambda f: (-f.score, f.cand.path))
    missing = [f.cand.key for f in ordered[:CHUNK_FILES] if f.record is None]
    if missing:
        more = store.records(missing)
        for f in ordered[:CHUNK_FILES]:
            if f.record is None:
                f.record = more.get(f.cand.key)
    chunks = _rank_chunks(ordered[:CHUNK_FILES], query, idf, ident_chunks, recent_lines or {})
    binary = [c.path for c in files if c.key in stats and stats[c.key].status == "binary"]
    return Ranking(ordered, chunks, binary)


def _rank_chunks(
    files: list[FileScore],
    query: Query,
    file_idf: dict[str, float],
    ident_chunks: dict[str, set[str]],
    recent_lines: Mapping[str, Sequence[tuple[int, int]]],
) -> list[ChunkScore]:
    rows: list[tuple[FileScore, int, float, list[str]]] = []
    all_chunks = [c for f in files if f.record for c in f.record.chunks]
    all_lengths = [sum(c.terms.values()) for c in all_chunks]
    avg = sum(all_lengths) / len(all_lengths) if all_lengths else 1.0
    if CHUNK_IDF and all_chunks:
        # IDF among the chunks: a word in every file can still single out a function.
        n = len(all_chunks)
        idf = {}
        for term in file_idf:
            d = sum(1 for c in all_chunks if term in c.terms)
            if d:
                idf[term] = query.weights[term] * math.log(1 + (n - d + 0.5) / (d + 0.5))
    else:
        idf = file_idf
    for f in files:
        if f.record is None:
            continue
        named = ident_chunks.get(f.cand.path, set())
        for i, chunk in enumerate(f.record.chunks):
            length = sum(chunk.terms.values())
            name_terms = T.identifier_terms(chunk.name.rsplit(".", 1)[-1]) if chunk.name else []
            lex = 0.0
            hits: list[tuple[float, str]] = []
            for term, weight in idf.items():
                tf = chunk.terms.get(term, 0) + 2 * name_terms.count(term)
                if tf:
                    s = _bm25(tf, length, avg, weight)
                    lex += s
                    hits.append((s, term))
            reasons = []
            if hits:
                best = sorted(hits, key=lambda x: (-x[0], x[1]))[:5]
                reasons.append("matches " + ", ".join(query.words.get(t, t) for _, t in best))
            bonus = 0.0
            short = chunk.name.rsplit(".", 1)[-1] if chunk.name else ""
            if short and short in named:
                bonus = WEIGHTS.chunk_define
                reasons.append(f"defines {short}")
            else:
                used = named.intersection(chunk.idents)
                if used:
                    bonus = WEIGHTS.chunk_use
                    reasons.append(f"uses {min(used)}")
            spans = recent_lines.get(f.cand.path)
            if spans and any(s <= chunk.end and chunk.start <= e for s, e in spans):
                bonus += WEIGHTS.chunk_recent
                reasons.append("changed recently")
            rows.append((f, i, lex + bonus, reasons))
    # A class's relevance reaches its members and a member's reaches its class, damped.
    by_key = {(id(f), i): lex for f, i, lex, _ in rows}
    spread_rows = []
    for f, i, lex, reasons in rows:
        assert f.record is not None
        chunk = f.record.chunks[i]
        extra = 0.0
        if chunk.parent is not None:
            extra = WEIGHTS.member_spread * by_key.get((id(f), chunk.parent), 0.0)
        spread_rows.append((f, i, lex + extra, reasons))
    rows = spread_rows
    top = max((r[2] for r in rows), default=0.0) or 1.0
    top_file = max((f.score for f in files), default=0.0) or 1.0
    top_in: dict[int, float] = defaultdict(float)
    for f, _, lex, _ in rows:
        top_in[id(f)] = max(top_in[id(f)], lex)
    out = []
    for f, i, lex, reasons in rows:
        assert f.record is not None
        base = WEIGHTS.header_base if f.record.chunks[i].kind == "header" else WEIGHTS.chunk_base
        rel = (1 - WEIGHTS.in_file_norm) * lex / top + WEIGHTS.in_file_norm * lex / (
            top_in[id(f)] or 1.0
        )
        score = (f.score / top_file) ** WEIGHTS.file_exponent * (base + rel)
        score += WEIGHTS.chunk_mix * f.prior * lex / top
        out.append(ChunkScore(f, i, score, reasons))
    out.sort(key=lambda c: (-c.score, c.file.cand.path, c.index))
    return out
