"""Links between files, and relevance spread over them.

Files are linked by imports (resolved to the commit's files) and by the use of a name another
file defines (rarer names weigh more); personalised PageRank seeded with the best files' scores
then reaches a caller, a callee or an ``__init__`` that re-exports a hit. Pure functions.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from .languages import SPECS, Suffixes
from .link_facts import LinkFacts
from .weights import Weights

PPR_RESTART = 0.35
PPR_ITERATIONS = 25
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
    """Weighted links between files (by path, both ways) and why each pair is linked: the
    reason of the pair's first link, stored under both orders of the pair (``why[a][b]``)."""

    edges: dict[str, dict[str, float]]
    why: dict[str, dict[str, Why]]

    def first_reason(self, path: str, others: Sequence[str]) -> str | None:
        """Why ``path`` is linked to the first of ``others`` it is linked to (None: to none)."""
        mine = self.why.get(path, {})
        return next((reason(mine[o]) for o in others if o in mine), None)


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


def link_graph(files: Mapping[str, LinkFacts], weights: Weights) -> LinkGraph:
    """The links between these files (path -> link facts, in rank order: the order links are
    made in is the order PageRank adds them up)."""
    by_suffix = suffix_table(list(files))
    definers = _definers(files)
    defined = frozenset(definers)
    edges: dict[str, dict[str, float]] = defaultdict(dict)
    why: dict[str, dict[str, Why]] = defaultdict(dict)
    for path, facts in files.items():
        links, reasons = edges[path], why[path]
        found = _file_links(path, facts, by_suffix, definers, defined, weights)
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
    return LinkGraph(
        {path: links for path, links in edges.items() if links},
        {path: reasons for path, reasons in why.items() if reasons},
    )


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


def personalised_pagerank(
    nodes: list[str], edges: Mapping[str, Mapping[str, float]], seeds: Mapping[str, float]
) -> dict[str, float]:
    """Personalised PageRank by power iteration on an undirected weighted graph.

    Written out rather than networkx, whose import costs ~0.17 s per run. Nodes are numbered
    and their links kept as lists, and a node with no rank yet spreads nothing: the same sums
    in the same order as over dictionaries of paths, in 0.16 CPU s instead of 0.22 on mypy's
    1,916 files and 96,000 links.
    """
    total_seed = sum(seeds.values())
    if not nodes or total_seed <= 0:
        return {}
    number = {node: i for i, node in enumerate(nodes)}
    p = [seeds.get(node, 0.0) / total_seed for node in nodes]
    links = [[(number[m], w) for m, w in edges.get(node, {}).items()] for node in nodes]
    out_weight = [sum(edges.get(node, {}).values()) for node in nodes]
    keep = 1 - PPR_RESTART
    rank = list(p)
    for _ in range(PPR_ITERATIONS):
        nxt = [PPR_RESTART * share for share in p]
        dangling = 0.0
        for i, now in enumerate(rank):
            mass = keep * now
            if out_weight[i] <= 0:
                dangling += mass
            elif mass:
                total = out_weight[i]
                for j, w in links[i]:
                    nxt[j] += mass * w / total
        if dangling:
            nxt = [share + dangling * q for share, q in zip(nxt, p, strict=True)]
        rank = nxt
    return dict(zip(nodes, rank, strict=True))


def link_shares(graph: LinkGraph, nodes: list[str], seeds: Mapping[str, float]) -> dict[str, float]:
    """Each node's PageRank from the seeds, over the best node's (the best: 1; no seeds: 0)."""
    ranks = personalised_pagerank(nodes, graph.edges, seeds)
    top = max(ranks.values(), default=0.0) or 1.0
    return {node: ranks.get(node, 0.0) / top for node in nodes}
