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
   ``__init__`` that re-exports a hit surfaces too.
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
from .parse import FileRecord
from .store import IndexStore
from .weights import WEIGHTS

K1 = 1.2
B = 0.75
PATH_TF = 3  # a path term counts as this many occurrences
PPR_RESTART = 0.35
PPR_ITERATIONS = 25
PPR_SEEDS = 8
GRAPH_FILE_LIMIT = 3000  # above this, only the best lexical files and their links form the graph
CHUNK_FILES = 40  # files whose chunks are scored
CHUNK_IDF = True
MAX_DEFINERS = 4  # names defined in more files than this link nothing

_PATHLIKE = re.compile(r"[\w./\\-]*\w\.\w{1,5}\b|[\w-]+(?:/[\w.-]+)+")
_DOTTED = re.compile(r"\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\b")
_CODEISH = re.compile(r"[a-z][A-Z]|_|\d|^[A-Z][a-z]+[A-Z]")
_BACKTICK = re.compile(r"`([^`]+)`")
_URL = re.compile(r"\b(?:[a-z][a-z0-9+.-]*://|www\.)[^\s<>`'\")\]]+", re.IGNORECASE)


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


@dataclass(frozen=True)
class Query:
    terms: tuple[str, ...]
    weights: dict[str, float]  # the title's words count fully, the body's less
    strong_idents: frozenset[str]
    weak_idents: frozenset[str]
    path_mentions: tuple[str, ...]
    wants_tests: bool
    wants_prose: bool
    words: dict[str, str] = field(default_factory=dict)  # term -> the request's own word


def analyse_request(request: str) -> Query:
    """What the request says: its terms, the identifiers and paths it names."""
    strong: set[str] = set()
    weak: set[str] = set()
    quoted = {m.group(1).strip("()") for m in _BACKTICK.finditer(request)}
    for match in re.finditer(r"[A-Za-z_][A-Za-z0-9_]*(\()?", request):
        ident = match.group(0).rstrip("(")
        if len(ident) < 3 or ident.lower() in T.STOPWORDS:
            continue
        if match.group(1) or _CODEISH.search(ident) or any(ident in q for q in quoted):
            strong.add(ident)
        else:
            weak.add(ident)
    # A link's host and path name pages, not files or modules (docs.python.org is no ``docs``);
    # its words still count as terms (a link to shutil.get_terminal_size says what it is about).
    linkless = _URL.sub(" ", request)
    paths = [m.group(0).strip("./\\") for m in _PATHLIKE.finditer(linkless)]
    paths += [m.group(0) for m in _DOTTED.finditer(linkless)]
    # A single quoted word names a module when a file has that stem (`exceptions`).
    paths += [q + "." for q in quoted if re.fullmatch(r"[A-Za-z_]\w*", q)]
    terms = T.query_terms(request)
    lowered = set(terms)
    lines = [ln for ln in request.strip().splitlines() if ln.strip()]
    title = set(T.query_terms(lines[0])) if len(lines) > 1 else lowered
    return Query(
        terms=tuple(terms),
        weights={t: 1.0 if t in title else WEIGHTS.body_term for t in terms},
        strong_idents=frozenset(strong),
        weak_idents=frozenset(weak - strong),
        path_mentions=tuple(dict.fromkeys(p for p in paths if len(p) >= 4)),
        wants_tests=bool(lowered & {"test", "tests", "pytest", "unittest", "spec"}),
        wants_prose=bool(lowered & {"doc", "docs", "readme", "changelog", "documentation"}),
        words=T.request_words(request),
    )


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


def _resolve_import(
    importer: str, target: str, lang: str | None, by_suffix: dict[str, list[str]]
) -> list[str]:
    """Paths an import statement most likely means (suffix match against the commit's files)."""
    if lang == "python":
        dots = len(target) - len(target.lstrip("."))
        module = target.lstrip(".").replace(".", "/")
        if dots:
            base = posixpath.dirname(importer)
            for _ in range(dots - 1):
                base = posixpath.dirname(base)
            stems = [posixpath.join(base, module) if module else base]
        else:
            stems = [module]
        out: list[str] = []
        for stem in stems:
            for candidate in (stem + ".py", stem + "/__init__.py"):
                out.extend(by_suffix.get(candidate.strip("/"), []))
        return out
    if target.startswith("."):
        joined = posixpath.normpath(posixpath.join(posixpath.dirname(importer), target))
        out = []
        for ext in ("", ".js", ".ts", ".tsx", ".jsx", ".mjs", "/index.js", "/index.ts"):
            out.extend(p for p in by_suffix.get(joined + ext, []) if p == joined + ext)
        return out
    name = target.replace("::", "/").replace(".", "/")
    if lang == "rust":
        name = name.removeprefix("crate/").removeprefix("self/").removeprefix("super/")
        return by_suffix.get(name + ".rs", []) + by_suffix.get(name + "/mod.rs", [])
    if lang in ("c", "cpp"):
        return by_suffix.get(target, [])
    if lang == "ruby":
        return by_suffix.get(target + ".rb", []) or by_suffix.get(target, [])
    if lang == "java":
        return by_suffix.get(name + ".java", [])
    return []


def _suffix_table(paths: Sequence[str]) -> dict[str, list[str]]:
    """Every path under each of its suffixes (``a/b/c.py`` -> ``c.py``, ``b/c.py``, ...)."""
    table: dict[str, list[str]] = defaultdict(list)
    for path in paths:
        parts = path.split("/")
        for i in range(len(parts)):
            table["/".join(parts[i:])].append(path)
    return table


def _pagerank(
    nodes: list[str], edges: dict[str, dict[str, float]], seeds: dict[str, float]
) -> dict[str, float]:
    """Personalised PageRank by power iteration on an undirected weighted graph.

    Written out (30 lines) rather than networkx, whose import costs ~0.17 s per run.
    """
    total_seed = sum(seeds.values())
    if not nodes or total_seed <= 0:
        return {}
    p = {n: seeds.get(n, 0.0) / total_seed for n in nodes}
    out_weight = {n: sum(edges.get(n, {}).values()) for n in nodes}
    rank = dict(p)
    for _ in range(PPR_ITERATIONS):
        nxt = {n: PPR_RESTART * p[n] for n in nodes}
        dangling = 0.0
        for n in nodes:
            mass = (1 - PPR_RESTART) * rank[n]
            if out_weight[n] <= 0:
                dangling += mass
                continue
            for m, w in edges[n].items():
                nxt[m] += mass * w / out_weight[n]
        if dangling:
            for n in nodes:
                nxt[n] += dangling * p[n]
        rank = nxt
    return rank


def _link_graph(files: list[FileScore]) -> tuple[dict[str, dict[str, float]], dict[str, str]]:
    """Weighted links between files (by path) and, per link, why it exists."""
    paths = [f.cand.path for f in files if f.record is not None]
    by_suffix = _suffix_table(paths)
    definers: dict[str, set[str]] = defaultdict(set)
    for f in files:
        if f.record is not None:
            for name, _ in f.record.defs:
                definers[name].add(f.cand.path)
    edges: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    why: dict[str, str] = {}

    def link(a: str, b: str, w: float, reason: str) -> None:
        if a == b:
            return
        edges[a][b] += w
        edges[b][a] += w
        why.setdefault(f"{a}\0{b}", reason)
        why.setdefault(f"{b}\0{a}", reason)

    for f in files:
        rec = f.record
        if rec is None:
            continue
        path = f.cand.path
        for target in rec.imports:
            for hit in _resolve_import(path, target, rec.lang, by_suffix):
                link(path, hit, WEIGHTS.import_link, f"imports {hit}" if hit != path else "")
        used: set[str] = set()
        for chunk in rec.chunks:
            used.update(chunk.idents)
        own = {name for name, _ in rec.defs}
        for name in used - own:
            where = definers.get(name)
            if where and len(where) <= MAX_DEFINERS:
                for hit in where:
                    link(path, hit, WEIGHTS.use_link / len(where), f"uses {name} from {hit}")
    return {k: dict(v) for k, v in edges.items()}, why


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
    edges, why = _link_graph(graph_files)
    seeds = {f.cand.path: f.score**2 for f in ordered[:PPR_SEEDS] if f.score > 0}
    ppr = _pagerank([f.cand.path for f in graph_files], edges, seeds)
    top_ppr = max(ppr.values(), default=0.0) or 1.0
    seed_paths = sorted(seeds)
    for f in graph_files:
        f.ppr = ppr.get(f.cand.path, 0.0) / top_ppr
        f.score += WEIGHTS.symbol_links * f.ppr * prior(f.cand.path)
        if f.ppr > 0.05 and f.cand.path not in seeds:
            links = [why[f"{f.cand.path}\0{s}"] for s in seed_paths if f"{f.cand.path}\0{s}" in why]
            back = [why[f"{s}\0{f.cand.path}"] for s in seed_paths if f"{s}\0{f.cand.path}" in why]
            if links or back:
                f.reasons.append(f"linked: {(links or back)[0]}")
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
