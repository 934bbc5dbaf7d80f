"""Links between files, and relevance spread over them.

Files are linked by imports (resolved to the commit's files) and by the use of a name another
file defines (rarer names weigh more); personalised PageRank seeded with the best files' scores
then reaches a caller, a callee or an ``__init__`` that re-exports a hit. Pure functions, but
for :func:`graph_key`, which reads this code's own modules: the graph depends on the files
alone, so the index keeps it between runs under that key (rank.py).
"""

from __future__ import annotations

import functools
import hashlib
import pickle
from array import array
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

from .languages import SPECS, Suffixes
from .link_facts import LinkFacts
from .weights import Weights

PPR_RESTART = 0.35
# Power iteration stops once an iteration moves less than this much of the rank in all (it
# sums to 1), or after PPR_MAX_ITERATIONS. Each iteration moves about 0.4 times as much as
# the one before on real graphs (mypy's: 1.2 after the first, 1e-4 after the eleventh, 1e-6
# after the fifteenth): the shares then differ from the fixed point's by under a ten-
# thousandth of the best file's (mypy: 7e-6; 6e-5 at worst on 200 random graphs), and from
# the ninth iteration on mypy's 300 best files keep their order. A share counts a third of
# a file's score (Weights.symbol_links): 1e-6 cost four more iterations (0.04 s of 0.12 on
# mypy's 96,000 links) for nothing the ranking can see.
PPR_TOLERANCE = 1e-4
PPR_MAX_ITERATIONS = 25
PPR_SEEDS = 8  # the best files the PageRank starts from
MAX_DEFINERS = 4  # names defined in more files than this link nothing (and lift nothing)


# Why a pair of files is linked, as made: (the name used, or "" for an import; the file
# imported or defining it). Formatted by :func:`reason` only when a reason is shown (a few of
# mypy's 90,000 links).
Why = tuple[str, str]


def reason(why: Why) -> str:
    """``imports <file>`` or ``uses <name> from <file>`` ("" for a file importing itself)."""
    name, hit = why
    return f"uses {name} from {hit}" if name else f"imports {hit}"


@dataclass(frozen=True)
class LinkGraph:
    """Weighted links between files, both ways, numbered for PageRank and kept between runs.

    Node ``i`` is ``nodes[i]`` (sorted paths); its links are the slots ``starts[i]`` to
    ``starts[i + 1]`` of the flat arrays: the node linked to (``targets``), the link's weight
    over the node's total (``steps``: PageRank's step along it), and why the pair is linked
    (the reason of the pair's first link, the same from both ends): the name used (``names``,
    "" for an import) and whether the file imported or defining it is the link's target
    (``hit_is_target``). Flat arrays of numbers unpickle in a millisecond where dictionaries
    of mypy's 96,000 links take 30 ms, and building them takes 90.
    """

    nodes: tuple[str, ...]
    starts: array[int]
    targets: array[int]
    steps: array[float]
    names: tuple[str, ...]
    hit_is_target: bytes

    @functools.cached_property
    def numbers(self) -> dict[str, int]:
        """Each node's number."""
        return {node: i for i, node in enumerate(self.nodes)}

    def first_reason(self, path: str, others: Sequence[str]) -> str | None:
        """Why ``path`` is linked to the first of ``others`` it is linked to (None: to none)."""
        number = self.numbers
        at = number.get(path)
        if at is None:
            return None
        slots = {self.targets[k]: k for k in range(self.starts[at], self.starts[at + 1])}
        for other in others:
            k = slots.get(number.get(other, -1), -1)
            if k >= 0:
                hit = other if self.hit_is_target[k] else path
                return reason((self.names[k], hit))
        return None

    def to_bytes(self) -> bytes:
        return pickle.dumps(
            (self.nodes, self.starts, self.targets, self.steps, self.names, self.hit_is_target),
            protocol=pickle.HIGHEST_PROTOCOL,
        )

    @staticmethod
    def from_bytes(data: bytes) -> LinkGraph | None:
        """The graph :meth:`to_bytes` wrote; None for anything else (a cache, never trusted to
        be whole)."""
        try:
            nodes, starts, targets, steps, names, hits = pickle.loads(data)
        except Exception:  # truncated, or another version's: built again
            return None
        shapes = (
            isinstance(nodes, tuple)
            and all(isinstance(a, array) for a in (starts, targets, steps))
            and isinstance(names, tuple)
            and isinstance(hits, bytes)
        )
        if not shapes or len(starts) != len(nodes) + 1:
            return None
        if not len(targets) == len(steps) == len(names) == len(hits) == starts[-1]:
            return None
        return LinkGraph(nodes, starts, targets, steps, names, hits)


# The modules whose code decides a graph from its files' link facts: their text is part of a
# kept graph's key, so another version of git-gpte never reads this one's graph.
_GRAPH_MODULES = ("links.py", "languages.py", "link_facts.py")


def graph_key(files: Mapping[str, str], weights: Weights) -> str:
    """The key a graph of these files (path -> blob key) is kept under: the files, the link
    weights and the code that links them."""
    digest = hashlib.sha256(_code_digest())
    digest.update(repr((weights.import_link, weights.use_link)).encode())
    for path in sorted(files):
        digest.update(f"\0{path}\0{files[path]}".encode())
    return digest.hexdigest()


@functools.cache
def _code_digest() -> bytes:
    """The digest of the linking code, read once per process."""
    here = Path(__file__).parent
    return hashlib.sha256(b"".join((here / m).read_bytes() for m in _GRAPH_MODULES)).digest()


def resolve_import(importer: str, target: str, lang: str | None, by_suffix: Suffixes) -> list[str]:
    """Paths an import statement most likely means, by its language's resolver."""
    spec = SPECS.get(lang or "")
    return spec.resolve(importer, target, by_suffix) if spec else []


def suffix_table(paths: Sequence[str]) -> dict[str, list[str]]:
    """Every path under each of its suffixes (``a/b/c.py`` -> ``c.py``, ``b/c.py``, ...) and
    under each suffix of its directory, with a trailing slash (``a/b/``, ``b/``): a Go import
    names a directory."""
    table: dict[str, list[str]] = defaultdict(list)
    for path in paths:
        parts = path.split("/")
        for i in range(len(parts)):
            table["/".join(parts[i:])].append(path)
        for i in range(len(parts) - 1):
            table["/".join(parts[i:-1]) + "/"].append(path)
    return table


def link_graph(paths: Sequence[str], files: Mapping[str, LinkFacts], weights: Weights) -> LinkGraph:
    """The links between these files (``files``: the link facts of those of ``paths`` that
    have them; the rest are nodes with no links). Made in the order of the sorted paths, which
    is the order PageRank adds them up in: the graph depends on the files alone, not on the
    request, so it can be kept between runs."""
    ordered = sorted(files)
    by_suffix = suffix_table(ordered)
    definers = _definers(files)
    defined = frozenset(definers)
    edges: dict[str, dict[str, float]] = defaultdict(dict)
    why: dict[str, dict[str, Why]] = defaultdict(dict)
    for path in ordered:
        links, reasons = edges[path], why[path]
        found = _file_links(path, files[path], by_suffix, definers, defined, weights)
        for target, weight, because in found:
            if target == path:
                continue
            # Links go both ways, so the pair has its first link exactly when ``target`` is
            # not among ``path``'s links yet: then it keeps this link's reason.
            if target in links:
                links[target] += weight
                edges[target][path] += weight
            else:
                links[target] = edges[target][path] = weight
                reasons[target] = why[target][path] = because
    return _numbered(sorted(set(paths) | set(files)), edges, why)


def _numbered(
    nodes: list[str], edges: Mapping[str, Mapping[str, float]], why: Mapping[str, Mapping[str, Why]]
) -> LinkGraph:
    number = {node: i for i, node in enumerate(nodes)}
    starts, targets, steps = array("l", [0]), array("l"), array("d")
    names: list[str] = []
    hits = bytearray()
    for node in nodes:
        links = edges.get(node, {})
        total = sum(links.values())
        for target, weight in links.items():
            name, hit = why[node][target]
            targets.append(number[target])
            steps.append(weight / total)
            names.append(name)
            hits.append(hit == target)
        starts.append(len(targets))
    return LinkGraph(tuple(nodes), starts, targets, steps, tuple(names), bytes(hits))


def _definers(files: Mapping[str, LinkFacts]) -> dict[str, list[str]]:
    """Per name, the files defining it, sorted (the order its links are made in); a name
    defined in more than MAX_DEFINERS files links nothing and is left out."""
    definers: dict[str, list[str]] = defaultdict(list)
    for path, facts in files.items():
        for name in facts.defs:
            definers[name].append(path)
    return {name: sorted(where) for name, where in definers.items() if len(where) <= MAX_DEFINERS}


def _file_links(
    path: str,
    facts: LinkFacts,
    by_suffix: Mapping[str, list[str]],
    definers: Mapping[str, list[str]],
    defined: frozenset[str],
    weights: Weights,
) -> Iterator[tuple[str, float, Why]]:
    """One file's links, as (other file, weight, why): what it imports, then the files
    defining the names it uses but does not define (unless too many define them)."""
    for target in facts.imports:
        for hit in resolve_import(path, target, facts.lang, by_suffix):
            yield hit, weights.import_link, ("", hit)
    # The names another file defines, found by one set operation (most names a file uses
    # are defined nowhere, or by too many files). In sorted order: a set's order changes with
    # each process's hash seed, and with it which reason a link keeps and the order its
    # weights are summed in.
    for name in sorted(defined.intersection(facts.used).difference(facts.defs)):
        where = definers[name]
        share = weights.use_link / len(where)
        for hit in where:
            yield hit, share, (name, hit)


def personalised_pagerank(graph: LinkGraph, seeds: Mapping[str, float]) -> dict[str, float]:
    """Personalised PageRank by power iteration on the graph's links (undirected, weighted).

    Written out rather than networkx, whose import costs ~0.17 s per run. A node with no rank
    yet spreads nothing, and the iteration stops once it moves less than PPR_TOLERANCE of the
    rank (see there): 0.07 CPU s on mypy's 1,916 files and 96,000 links on one machine,
    0.10-0.15 s on another.
    """
    total_seed = sum(seeds.values())
    nodes = graph.nodes
    if not nodes or total_seed <= 0:
        return {}
    p = [seeds.get(node, 0.0) / total_seed for node in nodes]
    # Each node's (target, step) pairs: sliced from one list of them, half the time of zipping
    # each node's slices of the arrays (mypy's 96,000 links: 15 ms against 35).
    pairs = list(zip(graph.targets, graph.steps, strict=True))
    links = [pairs[start:end] for start, end in pairwise(graph.starts)]
    keep = 1 - PPR_RESTART
    rank = list(p)
    for _ in range(PPR_MAX_ITERATIONS):
        nxt = [PPR_RESTART * share for share in p]
        dangling = 0.0
        for i, now in enumerate(rank):
            if not now:
                continue
            mass = keep * now
            mine = links[i]
            if not mine:
                dangling += mass
                continue
            for j, step in mine:
                nxt[j] += mass * step
        if dangling:
            nxt = [share + dangling * q for share, q in zip(nxt, p, strict=True)]
        moved = sum(abs(new - old) for new, old in zip(nxt, rank, strict=True))
        rank = nxt
        if moved < PPR_TOLERANCE:
            break
    return dict(zip(nodes, rank, strict=True))


def link_shares(graph: LinkGraph, nodes: list[str], seeds: Mapping[str, float]) -> dict[str, float]:
    """Each node's PageRank from the seeds, over the best node's (the best: 1; no seeds: 0)."""
    ranks = personalised_pagerank(graph, seeds)
    top = max(ranks.values(), default=0.0) or 1.0
    return {node: ranks.get(node, 0.0) / top for node in nodes}
