"""Context selection on a broad pool of repositories, beside BM25 + signatures, per language.

The public locbench split is three Python projects; rules tuned on them need not transfer. This
scores ``git gpte context``'s selection (in-process, as ``bench/context.py --in-process`` does)
and a reference selector on tasks of any repositories (``bench/locbench_tasks.py`` makes them),
with locbench's own charging and coverage (``../shared/locbench/score.py``), and prints covered %
per language and per repository at 4k / 8k / 16k / 32k tokens, the lead over the reference, and
how complementary the two are (tasks one covers and the other misses, at 16k).

The reference, ``bm25+sig``, is locbench's: files ranked by BM25 over code-aware terms (non-test
source files of the four languages), packed whole in rank order until the next one does not fit,
then the best-scoring chunks (functions, methods, classes, module headers) of the remaining
ranked files by their own BM25, as excerpts. Chunks come from the same parser git-gpte indexes
with (tree-sitter), terms from the same splitter (identifiers split on case and underscores);
locbench's own chunks come from Python's ``ast``. Its figures on the public split, beside
locbench's published row, are in docs/benchmarks.md.

Leave one repository out: with ``--variant NAME=JSON`` (weights of ``git_gpte.context.weights``
to replace, e.g. ``--variant notest='{"test": 0.2}'``; a key ``engine.NAME``, ``exact.NAME``,
``pack.NAME``, ``rank.NAME`` or ``signals.NAME`` replaces a constant of that module of
``git_gpte.context`` (``signals``: ``rank_signals``) for that variant's runs), every variant is
scored too,
and for each repository the variant with the best mean covered % on the *other* repositories
is the one scored on it. The ``loo`` row is what such a choice gives on projects it was never
tuned on; a rule is worth keeping when it wins there, per language.

    python bench/locbench_tasks.py --mirror-root ROOT --per-repo 20 OWNER/NAME ... > pool.jsonl
    python bench/context_pool.py --mirror-root ROOT --tasks pool.jsonl --out pool-results/
    python bench/context_pool.py --mirror-root ROOT --tasks pool.jsonl --out pool-results/ \\
        --variant test02='{"test": 0.2}'

Results are kept per task, selector and variant in ``--out`` (JSON lines) and reused: a run
that is stopped resumes, and a new variant costs only its own runs.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import statistics
import sys
import tempfile
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))
sys.path.insert(0, str(ROOT))

from context import BUDGETS, DEFAULT_LOCBENCH, covers, load_scorer  # noqa: E402
from locbench_tasks import LANGUAGES, is_generated, is_test, language_of  # noqa: E402

K1, B = 1.2, 0.75
GROUPS = {"all": tuple(LANGUAGES), "go/js/ts": ("go", "javascript", "typescript")}


# ------------------------------------------------------------------ the reference: bm25+sig
def _bm25(docs: Mapping[str, Mapping[str, int]], query: Sequence[str]) -> list[tuple[float, str]]:
    """Okapi BM25 of each document for the query's terms, best first (ties by name)."""
    if not docs:
        return []
    lengths = {name: sum(terms.values()) for name, terms in docs.items()}
    average = statistics.fmean(lengths.values()) or 1.0
    scores: dict[str, float] = defaultdict(float)
    for term in set(query):
        having = [name for name, terms in docs.items() if term in terms]
        if not having:
            continue
        idf = math.log(1 + (len(docs) - len(having) + 0.5) / (len(having) + 0.5))
        for name in having:
            tf = docs[name][term]
            norm = tf + K1 * (1 - B + B * lengths[name] / average)
            scores[name] += idf * tf * (K1 + 1) / norm
    # Every document is ranked: those matching nothing last, in path order (a vague request
    # still gets whole files up to the budget).
    return sorted(((-scores.get(n, 0.0), n) for n in docs), key=lambda x: (x[0], x[1]))


class Reference:
    """bm25+sig, with each blob parsed once for all tasks."""

    def __init__(self) -> None:
        self.records: dict[str, Any] = {}

    def _record(self, snap: Any, path: str) -> Any:
        from git_gpte.context.parse import parse_file

        sha = snap.sha[path]
        record = self.records.get(sha)
        if record is None:
            record = self.records[sha] = parse_file(path, snap.text(path))
        return record

    def units(self, snap: Any, query: str, budget: int) -> list[tuple[str, Any]]:
        from git_gpte.context.terms import path_terms, query_terms

        terms = query_terms(query)
        sources = [p for p in snap.files if _source(p)]
        docs: dict[str, dict[str, int]] = {}
        for path in sources:
            counts = dict(self._record(snap, path).terms)
            for term in path_terms(path):
                counts[term] = counts.get(term, 0) + 1
            docs[path] = counts
        ranked = [name for _, name in _bm25(docs, terms)]
        units: list[tuple[str, Any]] = []
        used = 0
        rest = list(ranked)
        for path in ranked:
            cost = snap.tokens[path]
            if used + cost > budget:
                break
            units.append((path, None))
            used += cost
            rest.remove(path)
        chunks: dict[str, dict[str, int]] = {}
        spans: dict[str, tuple[str, int, int]] = {}
        for path in rest:
            for n, chunk in enumerate(self._record(snap, path).chunks):
                key = f"{path}#{n}"
                chunks[key] = dict(chunk.terms)
                spans[key] = (path, chunk.start, chunk.end)
        for _, key in _bm25(chunks, terms):
            path, start, end = spans[key]
            end = min(end, snap.nlines(path))
            if start < 1 or start > end:
                continue
            cost = snap.excerpt_tokens(path, start, end) + 8
            if used + cost > budget:
                continue
            units.append((path, (start, end)))
            used += cost
        return units


def _source(path: str) -> bool:
    language = language_of(path)
    return language is not None and not is_test(path, language) and not is_generated(path, language)


# ------------------------------------------------------------------ running
def _gpte_units(
    score: ModuleType, repo_dir: str, task: Mapping[str, Any], budget: int, snap: Any,
    weights: Mapping[str, float],
) -> list[Any]:  # fmt: skip
    from git_gpte.context import format_lines, select
    from git_gpte.context.weights import WEIGHTS
    from git_gpte.git import Repository

    repo = Repository.discover(repo_dir)
    ranking = {k: v for k, v in weights.items() if "." not in k}
    packing = {k: v for k, v in weights.items() if "." in k}
    chosen = replace(WEIGHTS, **ranking) if ranking else None
    extra = {"weights": chosen} if chosen is not None else {}
    with _packing(packing):
        selection = select(repo, task["parent"], task["query"], budget, map_share=0.0, **extra)
    units, _ = score.parse_output("\n".join(format_lines(selection)), snap, repo_dir)
    return list(units)


# The modules whose constants a variant may replace, by the prefix of its keys.
CONSTANT_MODULES = {
    "engine": "git_gpte.context.engine",
    "exact": "git_gpte.context.exact",
    "pack": "git_gpte.context.pack",
    "rank": "git_gpte.context.rank",
    "signals": "git_gpte.context.rank_signals",
}


@contextlib.contextmanager
def _packing(constants: Mapping[str, float]) -> Iterator[None]:
    """A variant's module constants (``pack.GAP_LINES``, ``signals.B``), in place for one
    selection."""
    import importlib

    places = []
    for key in constants:
        prefix, _, name = key.partition(".")
        places.append((importlib.import_module(CONSTANT_MODULES[prefix]), name, constants[key]))
    saved = [(module, name, getattr(module, name)) for module, name, _ in places]
    for module, name, value in places:
        setattr(module, name, value)
    try:
        yield
    finally:
        for module, name, value in saved:
            setattr(module, name, value)


def run(
    score: ModuleType,
    tasks: Sequence[Mapping[str, Any]],
    selectors: Mapping[str, Mapping[str, float] | None],
    args: argparse.Namespace,
    done: dict[tuple[str, str], dict[str, Any]],
    out: Path,
) -> None:
    """Score every (task, selector) not in ``done``; append each row to ``out``."""
    label, counter = score.make_counter(args.tokenizer)
    print(f"tokenizer: {label}", file=sys.stderr)
    reference = Reference()
    cache: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as work, out.open("a", encoding="utf-8") as sink:
        pool = score.RepoPool(
            work, lambda repo: os.path.join(args.mirror_root, repo.replace("/", "+"), "repo")
        )
        for number, task in enumerate(tasks, 1):
            todo = [name for name in selectors if (task["id"], name) not in done]
            if not todo:
                continue
            repo_dir = pool.reset(task["repo"], task["parent"])
            snap = score.Snap(repo_dir, task["parent"], counter, cache)
            for name in todo:
                weights = selectors[name]
                row: dict[str, Any] = {"id": task["id"], "repo": task["repo"], "selector": name,
                                       "language": task.get("language", "python"), "covered": [],
                                       "tokens": [], "over": []}  # fmt: skip
                for budget in args.budgets:
                    if weights is None:
                        units = reference.units(snap, task["query"], budget)
                    else:
                        units = _gpte_units(score, repo_dir, task, budget, snap, weights)
                    result = covers(score, units, snap, dict(task), budget)
                    row["covered"].append(int(bool(result["covered"])))
                    row["tokens"].append(result["tokens"])
                    row["over"].append(int(bool(result["over_budget"])))
                done[(task["id"], name)] = row
                sink.write(json.dumps(row) + "\n")
                sink.flush()
            if args.verbose:
                print(f"[{number}/{len(tasks)}] {task['id']}", file=sys.stderr)


# ------------------------------------------------------------------ tables
def _pct(rows: Sequence[Mapping[str, Any]], i: int) -> float:
    return 100.0 * sum(r["covered"][i] for r in rows) / len(rows) if rows else float("nan")


def _line(name: str, rows: Sequence[Mapping[str, Any]], budgets: Sequence[int]) -> str:
    cells = " / ".join(f"{_pct(rows, i):5.1f}" for i in range(len(budgets)))
    return f"| {name} | {len(rows)} | {cells} |"


def loo_rows(
    rows: Iterable[Mapping[str, Any]], variants: Sequence[str]
) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """Per repository, the rows of the variant that does best on the other repositories (the
    mean of its covered % over every budget), and which variant that was."""
    by: dict[tuple[str, str], list[Mapping[str, Any]]] = defaultdict(list)
    for row in rows:
        by[(row["repo"], row["selector"])].append(row)
    repos = sorted({repo for repo, _ in by})
    chosen: dict[str, str] = {}
    picked: list[dict[str, Any]] = []
    for held in repos:

        def mean_elsewhere(variant: str, held: str = held) -> float:
            others = [r for repo in repos if repo != held for r in by[(repo, variant)]]
            return statistics.fmean(sum(r["covered"]) for r in others) if others else 0.0

        best = max(variants, key=lambda v: (mean_elsewhere(v), v == variants[0]))
        chosen[held] = best
        picked += [dict(r) for r in by[(held, best)]]
    return picked, chosen


def print_tables(
    rows: Sequence[Mapping[str, Any]], selectors: Sequence[str], budgets: Sequence[int]
) -> None:
    heads = " / ".join(f"{b // 1024}k" for b in budgets)
    by_selector: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for row in rows:
        by_selector[row["selector"]].append(row)
    variants = [s for s in selectors if s != "bm25+sig"]
    if len(variants) > 1:
        picked, chosen = loo_rows([r for s in variants for r in by_selector[s]], variants)
        by_selector["loo"] = picked
        print("leave one repository out: " + ", ".join(f"{r} -> {v}" for r, v in chosen.items()))
    names = [*variants, *(["loo"] if len(variants) > 1 else []), "bm25+sig"]
    print(f"\n| selector, language | tasks | covered % {heads} |\n|---|---|---|")
    for name in names:
        for group, languages in [*GROUPS.items(), *((lang, (lang,)) for lang in LANGUAGES)]:
            mine = [r for r in by_selector[name] if r["language"] in languages]
            if mine and (len(languages) > 1 or group not in GROUPS):
                print(_line(f"{name}, {group}", mine, budgets))
    print(f"\n| repository | tasks | {variants[0]} {heads} | bm25+sig {heads} |\n|---|---|---|---|")
    repos = sorted({r["repo"] for r in rows})
    for repo in repos:
        ours = [r for r in by_selector[variants[0]] if r["repo"] == repo]
        ref = [r for r in by_selector["bm25+sig"] if r["repo"] == repo]
        cells = " / ".join(f"{_pct(ours, i):.0f}" for i in range(len(budgets)))
        theirs = " / ".join(f"{_pct(ref, i):.0f}" for i in range(len(budgets)))
        print(f"| {repo} | {len(ours)} | {cells} | {theirs} |")
    i16 = list(budgets).index(16384) if 16384 in budgets else len(budgets) - 1
    ours16 = {r["id"]: r["covered"][i16] for r in by_selector[variants[0]]}
    ref16 = {r["id"]: r["covered"][i16] for r in by_selector["bm25+sig"]}
    only_ours = sum(1 for k, v in ours16.items() if v and not ref16.get(k))
    only_ref = sum(1 for k, v in ref16.items() if v and not ours16.get(k))
    over = sum(sum(r["over"]) for r in by_selector[variants[0]])
    print(f"\nat {budgets[i16] // 1024}k: {variants[0]} alone covers {only_ours} tasks, bm25+sig "
          f"alone {only_ref}; {variants[0]} runs over budget: {over}")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirror-root", required=True)
    parser.add_argument("--tasks", required=True, type=Path)
    parser.add_argument("--out", required=True, type=Path, help="a directory for the results")
    parser.add_argument("--locbench", type=Path, default=DEFAULT_LOCBENCH)
    parser.add_argument("--tokenizer", default="auto", choices=("auto", "o200k", "bytes4"))
    parser.add_argument("--budgets", default=",".join(map(str, BUDGETS)))
    parser.add_argument("--repo", action="append", default=[], help="only these (repeatable)")
    parser.add_argument("--variant", action="append", default=[], metavar="NAME=JSON")
    parser.add_argument("--table", action="store_true", help="only print the tables")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    args.budgets = [int(b) for b in args.budgets.split(",")]
    if args.tokenizer != "bytes4":
        os.environ.setdefault("GPTE_CONTEXT_TOKENIZER", "o200k")
    selectors: dict[str, Mapping[str, float] | None] = {"gpte": {}}
    for spec in args.variant:
        name, _, weights = spec.partition("=")
        selectors[name] = json.loads(weights)
    selectors["bm25+sig"] = None
    tasks = [json.loads(line) for line in args.tasks.read_text().splitlines() if line.strip()]
    tasks = [t for t in tasks if not args.repo or t["repo"] in args.repo]
    args.out.mkdir(parents=True, exist_ok=True)
    out = args.out / f"results-{'-'.join(map(str, args.budgets))}.jsonl"
    done: dict[tuple[str, str], dict[str, Any]] = {}
    if out.exists():
        for line in out.read_text().splitlines():
            row = json.loads(line)
            done[(row["id"], row["selector"])] = row
    if not args.table:
        run(load_scorer(args.locbench), tasks, selectors, args, done, out)
    ids = {t["id"] for t in tasks}
    rows = [r for (i, s), r in done.items() if i in ids and s in selectors]
    print_tables(rows, list(selectors), args.budgets)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
