"""The ranking's signals: each a named, pure function that says how much a file (or a chunk)
is worth for a request, and why.

A file signal reads what was fetched beforehand (its *evidence*) and returns, per path, its
findings: an amount (already weighted: see weights.py) and a reason. rank.py combines them;
the order of the findings is the order their amounts are added in. The measures behind the
signals (BM25 here, the link graph's PageRank in links.py) are computed once and handed in.
The weights (weights.py) are applied here rather than by rank.py: a weight shared among n
files is ``weight / n``, which ``weight * (1 / n)`` does not always equal to the last bit, and
rankings are compared to the last bit.
"""

from __future__ import annotations

import math
import posixpath
import re
from collections import defaultdict
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from .languages import FILE_EXTENSIONS
from .link_facts import LinkFacts
from .links import LinkGraph
from .parse import Chunk
from .path_facts import BUILT, CONFIG, DATA, DOCS, PROSE, STUB, TEST, PathFacts, path_facts
from .request import Query
from .stated import Held
from .terms import identifier_terms, path_part_terms
from .weights import Weights

if TYPE_CHECKING:
    from .index import Candidate

K1 = 1.2
B = 0.75  # files' length normalisation
CHUNK_B = 0.75  # ... and chunks'
PATH_TF = 3  # a path term counts as this many occurrences
CHUNK_NAME_TF = 2  # a term of a chunk's own name counts this many more times
# IDF among the chunks of the best files (else the files' IDF): a word in every file can still
# single out a function.
CHUNK_IDF = True
LINK_REASON_SHARE = 0.05  # a file linked this strongly says which seed it is linked to
# A dotted name naming more files than this names none (see unambiguous_mentions). On 427
# tasks of 22 repositories 1 task-budget gained (express at 4k), none lost, 3 selections
# changed (all express's ``app.*``); outside the pool (22 projects) none changed.
AMBIGUOUS_FILES = 3


class Finding(NamedTuple):
    """One thing a signal found about a file or chunk: what it adds to the score, and why
    ("" when the amount needs no reason of its own)."""

    amount: float
    reason: str


SignalScores = dict[str, list[Finding]]  # path -> findings, in the order they add up


class LexicalMatch(NamedTuple):
    """A file's BM25 score for the request, and the terms it matched, best first. (A tuple:
    a big repository has tens of thousands.)"""

    score: float
    terms: tuple[str, ...]


@dataclass(frozen=True)
class FileEvidence:
    """What the direct file signals read (fetched from the index beforehand)."""

    query: Query
    paths: tuple[str, ...]  # the commit's text files, in the candidates' order
    lexical: Mapping[str, LexicalMatch]  # path -> its BM25 match (only files matching a term)
    # identifier the request names -> the files defining it (by name; names defined in more
    # than links.MAX_DEFINERS files are left out: too common to point anywhere)
    definers: Mapping[str, tuple[str, ...]]
    recent: Mapping[str, float]  # path -> recency weight (recency.py)
    # The paths that may hold a request term (see hinted_paths): no other's name holds one.
    hinted: Collection[str]
    past: Mapping[str, float] = field(default_factory=dict)  # path -> lift (past.py)
    # path -> lift by earlier commits naming a version number, when the request names one
    releases: Mapping[str, float] = field(default_factory=dict)
    # path -> 1.0 for the files of the commit the request reverts (reverted.py)
    reverted: Mapping[str, float] = field(default_factory=dict)
    # path -> 1.0 for the files a traceback or an error message in the request names at a
    # line (places.py)
    placed: Mapping[str, float] = field(default_factory=dict)
    # path -> why, for the files stating what the request asks to change (stated.py)
    stated: Mapping[str, str] = field(default_factory=dict)


FileSignal = Callable[[FileEvidence, Weights], SignalScores]


@dataclass(frozen=True)
class UseEvidence:
    """What the identifier-use signal reads: the linked files' uses of named identifiers."""

    # identifier the request spells as code -> the linked files using it, in rank order
    users: Mapping[str, Sequence[str]]
    defined: Mapping[str, Collection[str]]  # path -> the named identifiers it defines


@dataclass(frozen=True)
class LinkEvidence:
    """What the symbol-link signal reads: the link graph and the PageRank spread over it."""

    graph: LinkGraph
    shares: Mapping[str, float]  # path -> its PageRank over the best file's
    seeds: Collection[str]  # the files the PageRank started from


NOT_STATED = Held((), "")


@dataclass(frozen=True)
class ChunkEvidence:
    """What the chunk signals read about the chunks of one file."""

    idf: Mapping[str, float]  # per request term, among the chunks of the best files
    average_length: float  # of those chunks, in terms
    words: Mapping[str, str]  # term -> the request's own word
    probes: tuple[str, ...]  # name_probes of the request terms (idf's)
    named: frozenset[str]  # identifiers the request names that the file defines or uses
    recent_spans: Sequence[tuple[int, int]]  # lines the latest commits wrote in the file
    # lines of the file the commit the request reverts wrote, or took lines from (reverted.py)
    reverted_spans: Sequence[tuple[int, int]] = ()
    # lines of the file a traceback or an error message in the request names (places.py)
    place_lines: Sequence[int] = ()
    # lines of the file stating what the request asks to change, and why (stated.py)
    stated: Held = NOT_STATED


def name_probes(terms: Collection[str]) -> tuple[str, ...]:
    """What a lower-cased identifier must hold, for each term, to have the term among its
    identifier terms (terms.identifier_terms): each of its words, stemmed, is a prefix of the
    word (``pars`` of ``parsing``) but for a plural's ``y`` (``policy`` of ``policies``), and
    the whole identifier is the identifier lower-cased. So an identifier holding none of them
    is not split: most chunk names match no term of the request."""
    return tuple(term[:-1] if term.endswith("y") else term for term in terms)


ChunkSignal = Callable[[Chunk, ChunkEvidence, Weights], Finding | None]


# ---------------------------------------------------------------------------- BM25


def bm25(tf: float, length: float, average: float, idf: float, b: float | None = None) -> float:
    """One term's BM25 contribution to a document of ``length`` terms (``b``: B unless given)."""
    b = B if b is None else b
    return idf * tf * (K1 + 1) / (tf + K1 * (1 - b + b * length / max(average, 1.0)))


def _idf(weight: float, documents: int, holders: int) -> float:
    """A term's inverse document frequency, times its weight in the request."""
    return weight * math.log(1 + (documents - holders + 0.5) / (holders + 0.5))


def bm25_files(
    query: Query,
    files: Sequence[Candidate],
    text_lengths: Mapping[str, int],
    postings: Mapping[str, Mapping[str, int]],
    hinted: Collection[str] | None = None,
) -> tuple[dict[str, float], dict[str, LexicalMatch]]:
    """The request terms' IDF over these files, and the BM25 match of each file that matches
    any of them (by path; a file left out matches none).

    ``text_lengths``: the number of terms of each file's text, by key; ``hinted``: the files'
    :func:`hinted_paths`, when known already. A file's terms are its
    content's plus its path's, which count PATH_TF times (a file called
    ``cookies.py`` is about cookies). Document frequencies are counted over the commit's files,
    not over every blob the index holds. Only the files holding a request term are scored, each
    blob once, by walking the terms' postings rather than asking every file for every term (on
    bench/context_scale.py's 100,000 files, half of which hold a term, the walk over every
    file for every term was a fifth of a warm run)."""
    path_tf = _path_terms(files, set(query.terms), hinted)
    idf = _file_idf(query, files, postings, path_tf)
    lengths = {c.key: text_lengths[c.key] + PATH_TF * c.facts.length for c in files}
    # A module over the size limit (sent in part only) would lift the average length of all
    # the others, and so every file's score: it is measured against them, not they against it.
    usual = [c for c in files if not c.in_part] or list(files)
    if len(usual) == len(files):  # as nearly always: every blob counts (a sum of integers)
        measured = sum(lengths.values())
    else:
        keys = {c.key for c in usual}
        measured = sum(length for key, length in lengths.items() if key in keys)
    average = measured / len(usual) if usual else 1.0
    by_blob = _blob_matches(idf, postings, lengths, average)
    matches = {
        c.path: (
            by_blob[c.key]
            if c.path not in path_tf
            # a few: its path's terms add to its text's
            else _path_match(idf, postings, c.key, path_tf[c.path], lengths[c.key], average)
        )
        for c in files
        if c.key in by_blob or c.path in path_tf
    }
    return idf, matches


def _blob_matches(
    idf: Mapping[str, float],
    postings: Mapping[str, Mapping[str, int]],
    lengths: Mapping[str, int],
    average: float,
) -> dict[str, LexicalMatch]:
    """Per blob holding a request term (in its text), its BM25 match: the terms' scores added
    in the request's order of terms, as a file's path-less match is."""
    hits: dict[str, list[tuple[float, str]]] = {}
    for term, weight in idf.items():
        for key, tf in postings[term].items():
            length = lengths.get(key)
            if length is None or not tf:  # a blob of no file here
                continue
            hit = (bm25(tf, length, average, weight), term)
            held = hits.get(key)
            if held is None:
                hits[key] = [hit]
            else:
                held.append(hit)
    return {key: _ranked(held) for key, held in hits.items()}


def _path_match(
    idf: Mapping[str, float],
    postings: Mapping[str, Mapping[str, int]],
    key: str,
    in_path: Mapping[str, int],
    length: int,
    average: float,
) -> LexicalMatch:
    """The BM25 match of a file whose path holds request terms (``in_path``: how often)."""
    contributions: list[tuple[float, str]] = []
    for term, weight in idf.items():
        tf = postings[term].get(key, 0) + PATH_TF * in_path.get(term, 0)
        if tf:
            contributions.append((bm25(tf, length, average, weight), term))
    return _ranked(contributions)


def _ranked(contributions: list[tuple[float, str]]) -> LexicalMatch:
    """A match from its terms' scores (in the request's order of terms, which fixes the last
    bits of the sum), its terms best first."""
    if len(contributions) == 1:  # most: the sum of one, as sum() makes it
        score, term = contributions[0]
        return LexicalMatch(0.0 + score, (term,))
    total = sum(score for score, _ in contributions)
    ranked = sorted(contributions, key=lambda hit: (-hit[0], hit[1]))
    return LexicalMatch(total, tuple(term for _, term in ranked))


def _path_terms(
    files: Sequence[Candidate], wanted: Collection[str], hinted: Collection[str] | None = None
) -> dict[str, dict[str, int]]:
    """Per path holding some of the ``wanted`` terms, how often each occurs in it (how many
    terms a path has is kept with the listing: ``Candidate.facts.length``). Only the paths that
    hold the first letters of a wanted term (``hinted``: :func:`hinted_paths`, when known) are
    split, each directory name once."""
    parts: dict[str, tuple[str, ...]] = {}
    counts: dict[str, dict[str, int]] = {}
    if hinted is None:
        hinted = hinted_paths(files, wanted)
    for candidate in files:
        if candidate.path not in hinted:
            continue
        hits: list[str] = []
        for part in candidate.path.split("/"):
            known = parts.get(part)
            if known is None:
                known = parts[part] = tuple(t for t in path_part_terms(part) if t in wanted)
            hits.extend(known)
        if hits:
            found: dict[str, int] = {}
            for term in hits:
                found[term] = found.get(term, 0) + 1
            counts[candidate.path] = found
    return counts


def hinted_paths(files: Sequence[Candidate], terms: Collection[str]) -> frozenset[str]:
    """The paths that may hold any of ``terms`` (a path's terms or its file name's): those
    holding a term's first three letters (see :func:`heads`). Found once for BM25's path terms
    and the name match, which each took a twentieth of a warm run on 100,000 files."""
    may_hold = heads(terms)
    return frozenset(c.path for c in files if may_hold.search(c.path.lower()))


def heads(terms: Collection[str]) -> re.Pattern[str]:
    """What a lower-cased name holding any of ``terms`` holds: each term's first three letters.
    A term of a name is one of its words, stemmed, or the whole identifier, and stemming keeps
    a word's first three letters; a name without them is not worth splitting (100,000 files:
    1 s)."""
    return re.compile("|".join(sorted({re.escape(t[:3]) for t in terms})) or "(?!)")


def _file_idf(
    query: Query,
    files: Sequence[Candidate],
    postings: Mapping[str, Mapping[str, int]],
    path_tf: Mapping[str, Mapping[str, int]],
) -> dict[str, float]:
    """Per request term that some file holds (in its text or its path), its weighted IDF."""
    count = max(len(files), 1)
    key_of = {c.path: c.key for c in files if c.path in path_tf}
    holders: dict[str, int] = {}
    for term in query.terms:
        keys = set(postings[term])
        keys.update(key_of[path] for path, found in path_tf.items() if term in found)
        holders[term] = len(keys)
    return {t: _idf(query.weights[t], count, d) for t, d in holders.items() if d}


def chunk_idf(
    query: Query, file_idf: Mapping[str, float], chunks: Sequence[Chunk]
) -> tuple[Mapping[str, float], float]:
    """The request terms' IDF among these chunks (CHUNK_IDF) and their average length."""
    lengths = [sum(c.terms.values()) for c in chunks]
    average = sum(lengths) / len(lengths) if lengths else 1.0
    if not (CHUNK_IDF and chunks):
        return file_idf, average
    count = len(chunks)
    idf: dict[str, float] = {}
    for term in file_idf:
        holders = sum(1 for c in chunks if term in c.terms)
        if holders:
            idf[term] = _idf(query.weights[term], count, holders)
    return idf, average


# ---------------------------------------------------------------------------- file signals


def lexical_match(evidence: FileEvidence, weights: Weights) -> SignalScores:
    """How well the file's words match the request's: its BM25 over the best file's."""
    top = max((m.score for m in evidence.lexical.values()), default=0.0) or 1.0
    found: SignalScores = {}
    # Files matching the same terms in the same order say the same: on a big repository tens
    # of thousands of files share a few dozen reasons.
    reasons: dict[tuple[str, ...], str] = {}
    for path, match in evidence.lexical.items():
        if match.terms:
            reason = reasons.get(match.terms)
            if reason is None:
                reason = reasons[match.terms] = _matches_reason(match.terms, evidence.query)
            found[path] = [Finding(match.score / top, reason)]
    return found


def _matches_reason(terms: Sequence[str], query: Query) -> str:
    """What a file matching ``terms`` (best first) is said to match: the request's own words."""
    said = dict.fromkeys(query.words.get(t, t) for t in terms)
    return "matches " + ", ".join(list(said)[:6])


def path_mention(evidence: FileEvidence, weights: Weights) -> SignalScores:
    """The request names the file: by path, file name, dotted module, or a module's name in
    backticks."""
    found: SignalScores = {}
    if not evidence.query.path_mentions:
        return found
    for path in evidence.paths:
        hit = mentioned(path, evidence.query.path_mentions)
        if hit:
            found[path] = [Finding(weights.mention, f"named in the request ({hit})")]
    return found


def unambiguous_mentions(mentions: Sequence[str], paths: Sequence[str]) -> tuple[str, ...]:
    """The request's path mentions less the dotted names that would name more than
    AMBIGUOUS_FILES files: ``app.register()`` is a call on an object, not a module, though
    every example's ``app.js`` has the name (express: the examples went first and the module
    the request changed last, at 4k); the file defining ``register`` is found by that."""
    kept = []
    for mention in mentions:
        spelled = mention.lower().replace("\\", "/")
        if not (_is_dotted_name(spelled) and _names_many(spelled, paths)):
            kept.append(mention)
    return tuple(kept)


def _is_dotted_name(mention: str) -> bool:
    """``pkg.mod``, ``obj.attr``: no path, no file extension, not a module word."""
    last = "." + mention.rsplit(".", 1)[-1]
    return "." in mention.rstrip(".") and "/" not in mention and last not in FILE_EXTENSIONS


def _names_many(mention: str, paths: Sequence[str]) -> bool:
    """More than AMBIGUOUS_FILES of ``paths`` are named by ``mention`` (lower-cased; its first
    part is in the path of every file it names, which leaves most files unasked)."""
    head = mention.split(".", 1)[0]
    named = 0
    for path in paths:
        lower = path.lower()
        if head in lower and _names_file(mention, lower, posixpath.splitext(lower)[0]):
            named += 1
            if named > AMBIGUOUS_FILES:
                return True
    return False


def mentioned(path: str, mentions: Sequence[str]) -> str | None:
    """The first of the request's path mentions that names this file (a module's name in
    backticks without its trailing dot)."""
    lower = path.lower()
    no_ext = posixpath.splitext(lower)[0]
    for mention in mentions:
        spelled = mention.lower().replace("\\", "/")
        if _names_file(spelled, lower, no_ext):
            return mention[:-1] if _is_module_word(spelled) else mention
    return None


def _is_module_word(mention: str) -> bool:
    """``mod.``: a single word in backticks, which names a module when a file has that stem."""
    return mention.endswith(".") and "/" not in mention


def _names_file(mention: str, path: str, no_ext: str) -> bool:
    """``mention`` (lower-cased) names ``path``: ``mod.`` a stem, a path or file name its end,
    ``pkg.mod`` its module (or package), ``pkg.mod.Name`` the module holding ``Name``."""
    if _is_module_word(mention):
        stem = posixpath.basename(no_ext)
        return stem == mention[:-1] and posixpath.splitext(path)[1] in FILE_EXTENSIONS
    has_ext = bool(posixpath.splitext(mention)[1])
    if ("/" in mention or has_ext) and (path == mention or path.endswith("/" + mention)):
        return True
    if "." not in mention:
        return False
    dotted = mention.replace(".", "/")
    if no_ext.endswith("/" + dotted) or no_ext == dotted:
        return True
    if no_ext.endswith("/" + dotted + "/__init__"):
        return True
    if "/" in mention or "." + mention.rsplit(".", 1)[-1] in FILE_EXTENSIONS:
        return False
    # ``pkg.mod.Name``: the module it names is mentioned too (``pkg/mod.py``, ``pkg``).
    parts = mention.split(".")[:-1]
    while parts:
        module = "/".join(parts)
        if no_ext in (module, module + "/__init__") or no_ext.endswith(
            ("/" + module, "/" + module + "/__init__")
        ):
            return True
        parts.pop()
    return False


def defined_identifier(evidence: FileEvidence, weights: Weights) -> SignalScores:
    """The file defines an identifier the request names (shared among the files defining it;
    a name spelled as code counts more than one that could be a plain word)."""
    found: SignalScores = defaultdict(list)
    for name, paths in sorted(evidence.definers.items()):
        strong = name in evidence.query.strong_idents
        weight = weights.strong_identifier if strong else weights.weak_identifier
        for path in paths:
            found[path].append(Finding(weight / len(paths), f"defines {name}"))
    return dict(found)


def name_match(evidence: FileEvidence, weights: Weights) -> SignalScores:
    """The file's name (a package's, for its ``__init__``) is made of the request's words."""
    request_terms = set(evidence.query.terms)
    may_hold = heads(request_terms)
    found: SignalScores = {}
    for path in evidence.paths:
        if path not in evidence.hinted:
            continue  # the name is part of the path: it holds none either
        stem = _name_of(path)
        if not may_hold.search(stem.lower()):
            continue
        name_terms = identifier_terms(stem)
        if name_terms and all(t in request_terms for t in name_terms):
            found[path] = [Finding(weights.name, f"its name is in the request ({stem})")]
    return found


def _name_of(path: str) -> str:
    """A file's name without extension; a package's for its ``__init__``, ``index``, ``mod``,
    ``main``."""
    stem = posixpath.splitext(posixpath.basename(path))[0]
    if stem in ("__init__", "index", "mod", "main"):
        return posixpath.basename(posixpath.dirname(path))
    return stem


def recent_change(evidence: FileEvidence, weights: Weights) -> SignalScores:
    """The latest commits changed the file: a request often continues that work."""
    return _history_lift(evidence, evidence.recent, weights.recent, "changed recently")


def reverted_commit(evidence: FileEvidence, weights: Weights) -> SignalScores:
    """The request reverts a commit that changed the file (reverted.py): it points at the
    file as surely as naming it."""
    reason = "changed by the commit it reverts"
    return _history_lift(evidence, evidence.reverted, weights.reverted, reason)


def named_place(evidence: FileEvidence, weights: Weights) -> SignalScores:
    """A traceback or an error message in the request names a line of the file (``File
    ".../app.py", line 12``, ``app.js:12:5``): the request points at it."""
    if not weights.place:
        return {}
    return _history_lift(evidence, evidence.placed, weights.place, "named at a line")


def stated_line(evidence: FileEvidence, weights: Weights) -> SignalScores:
    """The file states what the request asks to change: the project's version for a release,
    its Python versions, its copyright (stated.py)."""
    if not weights.stated:
        return {}
    paths = set(evidence.paths)
    return {
        path: [Finding(weights.stated, reason)]
        for path, reason in evidence.stated.items()
        if path in paths
    }


def similar_commit(evidence: FileEvidence, weights: Weights) -> SignalScores:
    """Earlier commits phrased like the request changed the file (see past.py)."""
    reason = "changed by commits like this request"
    return _history_lift(evidence, evidence.past, weights.past, reason)


def release_history(evidence: FileEvidence, weights: Weights) -> SignalScores:
    """A request naming a version number: earlier commits naming one changed the file
    (past.release_weights)."""
    reason = "changed by earlier releases"
    return _history_lift(evidence, evidence.releases, weights.release, reason)


def _history_lift(
    evidence: FileEvidence, lifts: Mapping[str, float], weight: float, reason: str
) -> SignalScores:
    """Each of the commit's files in ``lifts`` lifted by its amount times ``weight``."""
    paths = set(evidence.paths)
    return {path: [Finding(weight * lift, reason)] for path, lift in lifts.items() if path in paths}


def _asked(prior: float, asked: float, degree: float) -> float:
    """A kind's prior moved toward its prior when asked for, as far as the request asks."""
    return prior + degree * (asked - prior)


def file_prior(path: str, query: Query, weights: Weights, facts: PathFacts | None = None) -> float:
    """What the file's kind is worth for an edit request, which is mostly about code: tests,
    prose, configuration, build output and vendored code count less unless the request asks
    for them; data files (lock files, logs, minified code) nothing unless it names them.
    ``facts``: what the path says, when known already."""
    facts = facts or path_facts(path)
    kinds = facts.kinds
    if kinds & DATA and not mentioned(path, query.path_mentions):
        return weights.data
    if kinds & TEST:
        if not query.wants_tests:
            return weights.test
        # Asked for, a test still ranks below source that matches as well: a squashed
        # commit's "* add tests" line had mux's tests take most of an 8k budget from the
        # route.go it changed. Unless the request names the file itself (werkzeug's test.py,
        # its test client: "make test Client follow redirects"), which ranks as source.
        name = path.rsplit("/", 1)[-1].rsplit(".", 1)[0].lower()
        if name not in query.terms:
            return _asked(weights.test, weights.test_asked, query.wants_tests)
    if kinds & STUB:
        return _asked(weights.stub, weights.stub_asked, query.wants_types)
    if kinds & PROSE:
        return _asked(weights.prose, weights.prose_asked, query.wants_prose)
    if kinds & DOCS and facts.language is not None:
        # A documentation tree's own code (Sphinx's conf.py, the examples its pages include,
        # VitePress' ``docs/.vitepress/config.ts`` and theme): as much as the request asks for
        # docs, and never less than docs_code.
        return max(weights.docs_code, _asked(weights.config, 1.0, query.wants_prose))
    if kinds & CONFIG and facts.language is not None:
        # A tool's configuration written as code (``vite.config.ts``, ``eslint.config.js``).
        return max(
            weights.config_code, _asked(weights.config, weights.config_asked, query.wants_config)
        )
    if kinds & CONFIG or (kinds & DOCS and not query.wants_prose):
        return _asked(weights.config, weights.config_asked, query.wants_config)
    if kinds & DOCS and query.wants_prose < 1.0:
        return _asked(weights.config, 1.0, query.wants_prose)
    if kinds & BUILT:
        return weights.built
    vendored = facts.vendored
    if vendored is not None and not set(identifier_terms(vendored)) & set(query.terms):
        return weights.vendored
    return 1.0


# ---------------------------------------------------------------------------- link signals


def identifier_users(files: Mapping[str, LinkFacts], query: Query) -> dict[str, list[str]]:
    """Per identifier the request spells as code, the files using it (in the order given)."""
    users: dict[str, list[str]] = defaultdict(list)
    for path, facts in files.items():
        for name in query.strong_idents:
            if facts.uses(name):
                users[name].append(path)
    return users


def identifier_use(evidence: UseEvidence, weights: Weights) -> SignalScores:
    """The file uses an identifier the request spells as code and does not define it (a
    rename or a new argument touches every use); shared among the files using it."""
    found: SignalScores = defaultdict(list)
    for name, paths in sorted(evidence.users.items()):
        for path in paths:
            if name in evidence.defined.get(path, ()):
                continue
            found[path].append(
                Finding(weights.identifier_use / math.sqrt(len(paths)), f"uses {name}")
            )
    return dict(found)


def symbol_links(evidence: LinkEvidence, weights: Weights) -> SignalScores:
    """The file is linked (imports, uses of names) to the best files: a caller, a callee or an
    ``__init__`` that re-exports a hit. Its share of the PageRank seeded with them."""
    seeds = sorted(evidence.seeds)
    found: SignalScores = {}
    for path, share in evidence.shares.items():
        reason = ""
        if share > LINK_REASON_SHARE and path not in evidence.seeds:
            why = evidence.graph.first_reason(path, seeds)
            reason = "" if why is None else f"linked: {why}"
        found[path] = [Finding(weights.symbol_links * share, reason)]
    return found


# ---------------------------------------------------------------------------- chunk signals


def chunk_lexical_match(chunk: Chunk, evidence: ChunkEvidence, weights: Weights) -> Finding | None:
    """The chunk's BM25 for the request; the terms of its own name count more."""
    length = sum(chunk.terms.values())
    short = chunk.name.rsplit(".", 1)[-1] if chunk.name else ""
    lowered = short.lower()
    named = short and any(probe in lowered for probe in evidence.probes)
    name_terms = identifier_terms(short) if named else []
    total = 0.0
    hits: list[tuple[float, str]] = []
    for term, weight in evidence.idf.items():
        tf = chunk.terms.get(term, 0) + CHUNK_NAME_TF * name_terms.count(term)
        if tf:
            score = bm25(tf, length, evidence.average_length, weight, CHUNK_B)
            total += score
            hits.append((score, term))
    if not hits:
        return None
    best = sorted(hits, key=lambda hit: (-hit[0], hit[1]))[:5]
    return Finding(total, "matches " + ", ".join(evidence.words.get(t, t) for _, t in best))


def chunk_named_identifier(
    chunk: Chunk, evidence: ChunkEvidence, weights: Weights
) -> Finding | None:
    """The chunk defines, or else uses, an identifier the request names that its file
    defines or uses."""
    short = chunk.name.rsplit(".", 1)[-1] if chunk.name else ""
    if short and short in evidence.named:
        return Finding(weights.chunk_define, f"defines {short}")
    used = evidence.named.intersection(chunk.idents)
    if used:
        return Finding(weights.chunk_use, f"uses {min(used)}")
    return None


def chunk_recent_change(chunk: Chunk, evidence: ChunkEvidence, weights: Weights) -> Finding | None:
    """The chunk holds lines the latest commits wrote."""
    if _overlaps(chunk, evidence.recent_spans):
        return Finding(weights.chunk_recent, "changed recently")
    return None


def chunk_reverted(chunk: Chunk, evidence: ChunkEvidence, weights: Weights) -> Finding | None:
    """The chunk holds lines the commit the request reverts wrote (or took lines from)."""
    if _overlaps(chunk, evidence.reverted_spans):
        return Finding(weights.chunk_reverted, "written by the commit it reverts")
    return None


def chunk_named_place(chunk: Chunk, evidence: ChunkEvidence, weights: Weights) -> Finding | None:
    """The chunk holds a line a traceback or an error message in the request names."""
    named = [line for line in evidence.place_lines if chunk.start <= line <= chunk.end]
    if named and weights.chunk_place:
        return Finding(weights.chunk_place, f"holds line {min(named)}, named by the request")
    return None


def chunk_stated_line(chunk: Chunk, evidence: ChunkEvidence, weights: Weights) -> Finding | None:
    """The chunk holds a line stating what the request asks to change (stated.py)."""
    held = [line for line in evidence.stated.lines if chunk.start <= line <= chunk.end]
    if held and weights.chunk_stated:
        return Finding(weights.chunk_stated, f"{evidence.stated.reason}, line {min(held)}")
    return None


def _overlaps(chunk: Chunk, spans: Sequence[tuple[int, int]]) -> bool:
    return any(start <= chunk.end and chunk.start <= end for start, end in spans)
