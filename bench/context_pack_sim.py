"""Packing and chunk-scoring variants on the pool, scored in seconds instead of hours.

``bench/context_pool.py`` ranks every task again for every budget and variant (~20 minutes a
variant on 427 tasks). The ranking of files does not depend on the budget, and neither do the
chunks' relevances; only the chunks' scores (their weights) and the packing do. So ``capture``
ranks each task once and keeps the ranking (a pickle per task, with each chunk's relevance), and
``run`` packs the kept rankings at 4k / 8k / 16k / 32k under each variant: ~10 s a variant.

A variant is ``NAME=JSON``: ``pack.NAME`` keys replace packing constants of
``git_gpte.context.pack``; other keys replace chunk weights of ``git_gpte.context.weights``
(``file_exponent``, ``chunk_base``, ``header_base``, ``in_file_norm``, ``chunk_mix``: the ones
that act after relevance; a weight of the files' ranking needs context_pool.py). Coverage is
locbench's rule (every gold line inside what is sent) on the packed picks, without the exact
o200k top-up that ``git gpte context`` does after packing: it agreed with context_pool.py on
98 % of (task, budget) results, and it is for comparing variants; a rule found here is
confirmed there. The ``loo`` row picks, for each repository, the variant that does best on the
other repositories (as context_pool.py does).

    python bench/context_pack_sim.py --tasks pool.jsonl --rankings DIR capture --mirror-root ROOT
    python bench/context_pack_sim.py --tasks pool.jsonl --rankings DIR run \\
        --variant gap0='{"pack.GAP_LINES": 0}' --variant exp2='{"file_exponent": 2.0}'

``bounds`` says how far a better order of files could go on the same kept rankings: each task
packed as it is, with the files it changed moved first (scored above the best, in their order:
a perfect order of files, the chunks ranked as they are), and with only those files (nothing
else takes budget), by language and by the number of files the task changed.

    python bench/context_pack_sim.py --tasks pool.jsonl --rankings DIR bounds

Rankings are pickles of git-gpte's own objects: read them only with the code that wrote them.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import sys
import tempfile
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))
sys.path.insert(0, str(ROOT))

from context import BUDGETS, DEFAULT_LOCBENCH, load_scorer  # noqa: E402
from context_pool import GROUPS, _line, loo_rows  # noqa: E402

CHUNK_WEIGHTS = ("file_exponent", "chunk_base", "header_base", "in_file_norm", "chunk_mix")


def capture(
    tasks: Sequence[Mapping[str, Any]], mirror_root: str, out: Path, locbench: Path
) -> None:
    """Rank each task once at its parent commit and keep the ranking, with each chunk's
    relevance (before its weights), in ``out/ID.pkl``; tasks already kept are skipped."""
    from git_gpte.context import engine, rank, select
    from git_gpte.git import Repository

    kept: dict[str, Any] = {}
    real_packing, real_scores = engine.Packing, rank._chunk_scores

    def keep_ranking(ranking: Any, *args: Any, **kwargs: Any) -> Any:
        kept["ranking"] = ranking
        return real_packing(ranking, *args, **kwargs)

    def keep_rows(rows: Any, files: Any, weights: Any) -> Any:
        kept["rows"] = [(r.file.cand.path, r.index, r.relevance, r.reasons) for r in rows]
        return real_scores(rows, files, weights)

    engine.Packing, rank._chunk_scores = keep_ranking, keep_rows
    score = load_scorer(locbench)
    out.mkdir(parents=True, exist_ok=True)
    try:
        with tempfile.TemporaryDirectory() as work:
            pool = score.RepoPool(
                work, lambda repo: os.path.join(mirror_root, repo.replace("/", "+"), "repo")
            )
            for task in tasks:
                dest = out / f"{task['id']}.pkl"
                if dest.exists():
                    continue
                repo_dir = pool.reset(task["repo"], task["parent"])
                select(Repository.discover(repo_dir), task["parent"], task["query"], 4096,
                       map_share=0.0)  # fmt: skip
                ranking = kept["ranking"]
                ranking.files = [f for f in ranking.files if f.links is not None and f.score > 0]
                ranking.rows = kept["rows"]
                dest.with_suffix(".tmp").write_bytes(pickle.dumps(ranking))
                dest.with_suffix(".tmp").replace(dest)
                print(task["id"], file=sys.stderr, flush=True)
    finally:
        engine.Packing, rank._chunk_scores = real_packing, real_scores


def covered(task: Mapping[str, Any], picks: Sequence[Any]) -> bool:
    """locbench's rule: every gold file sent, every gold line range inside what is sent."""
    from git_gpte.pipeline.shown import merge_ranges

    sent = {p.path: None if p.whole else [(r.start, r.end) for r in p.ranges] for p in picks}
    for path in task["gold"]:
        if path not in sent:
            return False
        ranges = sent[path]
        if ranges is None:
            continue
        for start, end in task["gold_lines"].get(path, []):
            if not any(s <= start and end <= e for s, e in merge_ranges(ranges)):
                return False
    return True


def with_named(ranking: Any, task: Mapping[str, Any]) -> Any:
    """A ranking kept before FileScore.named existed, with it worked out as rank() does."""
    from git_gpte.context.rank_signals import mentioned
    from git_gpte.context.request import analyse_request

    mentions = analyse_request(task["query"]).path_mentions
    for file_score in [*ranking.files, *(c.file for c in ranking.chunks)]:
        if not hasattr(file_score, "named"):  # an unset slot
            hit = mentioned(file_score.cand.path, mentions) if mentions else None
            file_score.named = hit is not None
    return ranking


def rescored(ranking: Any, weights: Mapping[str, float]) -> Any:
    """The ranking with its chunks scored again under other chunk weights."""
    from git_gpte.context import rank
    from git_gpte.context.weights import WEIGHTS

    if not weights:
        return ranking
    chunks = _chunks_scored(ranking, replace(WEIGHTS, **weights), lambda path: True)
    return rank.Ranking(files=ranking.files, chunks=chunks, binary=ranking.binary)


def _chunks_scored(ranking: Any, weights: Any, keep: Callable[[str], bool]) -> list[Any]:
    """The kept ranking's chunks of the files ``keep`` takes, scored again from their kept
    relevance and their files' scores as they are now."""
    from git_gpte.context import rank

    files = {c.file.cand.path: c.file for c in ranking.chunks}
    rows = [
        rank._ChunkRow(files[path], index, relevance, reasons)
        for path, index, relevance, reasons in ranking.rows
        if path in files and keep(path)
    ]
    ranked = list({id(row.file): row.file for row in rows}.values())
    return rank._chunk_scores(rows, ranked, weights)


@contextmanager
def packing(constants: Mapping[str, float]) -> Iterator[None]:
    """The packing constants of a variant, in place while its tasks are packed."""
    from git_gpte.context import pack

    saved = {name: getattr(pack, name) for name in constants}
    try:
        for name, value in constants.items():
            setattr(pack, name, value)
        yield
    finally:
        for name, value in saved.items():
            setattr(pack, name, value)


def score_variant(
    tasks: Sequence[Mapping[str, Any]], rankings: Path, name: str, variant: Mapping[str, float]
) -> list[dict[str, Any]]:
    """One row per task kept: covered at each budget under ``variant``."""
    from git_gpte.context.pack import pack
    from git_gpte.context.weights import Weights

    constants = {k.removeprefix("pack."): v for k, v in variant.items() if k.startswith("pack.")}
    weights = {k: v for k, v in variant.items() if not k.startswith("pack.")}
    unknown = set(weights) - set(CHUNK_WEIGHTS)
    if unknown:
        known = {f.name for f in fields(Weights)}
        what = "not weights" if unknown - known else "weights of the files' ranking"
        raise SystemExit(f"{name}: {', '.join(sorted(unknown))} are {what} (use context_pool.py)")
    rows = []
    with packing(constants):
        for task in tasks:
            path = rankings / f"{task['id']}.pkl"
            if not path.exists():
                continue
            ranking = rescored(with_named(pickle.loads(path.read_bytes()), task), weights)
            hits = [int(covered(task, pack(ranking, budget)[0])) for budget in BUDGETS]
            rows.append({"id": task["id"], "repo": task["repo"], "selector": name,
                         "language": task.get("language", "python"), "covered": hits})  # fmt: skip
    return rows


def changed_first(ranking: Any, changed: Collection[str], keep_rest: bool) -> Any:
    """The ranking with the ``changed`` files first, scored above the best in their order, and
    their chunks scored again; without the other files when not ``keep_rest``. (A changed file
    the kept ranking holds only by its chunks, one nothing scored, joins the files; one it
    does not hold at all stays out.)"""
    from git_gpte.context.weights import WEIGHTS

    top = max((f.score for f in ranking.files), default=1.0) or 1.0
    held = {f.cand.path: f for f in [*ranking.files, *(c.file for c in ranking.chunks)]}
    lifted = [held[path] for path in dict.fromkeys(held) if path in changed]
    for n, file_score in enumerate(lifted):
        file_score.score = top * (2 - n / (len(lifted) + 1))
    files = [f for f in ranking.files if keep_rest and f.cand.path not in changed]
    ranking.files = sorted([*lifted, *files], key=lambda f: -f.score)
    ranking.chunks = _chunks_scored(ranking, WEIGHTS, lambda path: keep_rest or path in changed)
    return ranking


def bounds(tasks: Sequence[Mapping[str, Any]], rankings: Path) -> list[dict[str, Any]]:
    """One row per task kept and way of packing it: ``as is``, ``changed first``, ``changed
    only`` (see the module's docstring), covered at each budget."""
    from git_gpte.context.pack import pack

    ways = {"as is": None, "changed first": True, "changed only": False}
    rows = []
    for task in tasks:
        path = rankings / f"{task['id']}.pkl"
        if not path.exists():
            continue
        kept = path.read_bytes()
        for name, keep_rest in ways.items():
            ranking = with_named(pickle.loads(kept), task)
            if keep_rest is not None:
                ranking = changed_first(ranking, set(task["gold"]), keep_rest)
            hits = [int(covered(task, pack(ranking, budget)[0])) for budget in BUDGETS]
            rows.append({"id": task["id"], "repo": task["repo"], "selector": name,
                         "language": task.get("language", "python"), "covered": hits,
                         "files": min(len(task["gold"]), 3)})  # fmt: skip
    return rows


def print_bounds(rows: Sequence[Mapping[str, Any]]) -> None:
    heads = " / ".join(f"{b // 1024}k" for b in BUDGETS)
    print(f"| packing, tasks | tasks | covered % {heads} |\n|---|---|---|")
    for name in ("as is", "changed first", "changed only"):
        mine = [r for r in rows if r["selector"] == name]
        for group, languages in [("python", ("python",)), *GROUPS.items()]:
            some = [r for r in mine if r["language"] in languages]
            if some:
                print(_line(f"{name}, {group}", some, BUDGETS))
        for files, label in ((1, "1 file"), (2, "2 files"), (3, "3 or more files")):
            some = [r for r in mine if r["files"] == files]
            if some:
                print(_line(f"{name}, {label} changed", some, BUDGETS))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", required=True, type=Path)
    parser.add_argument("--rankings", required=True, type=Path, help="a directory of rankings")
    sub = parser.add_subparsers(dest="command", required=True)
    keep = sub.add_parser("capture", help="rank every task once and keep the rankings")
    keep.add_argument("--mirror-root", required=True)
    keep.add_argument("--locbench", type=Path, default=DEFAULT_LOCBENCH)
    score = sub.add_parser("run", help="score variants on the kept rankings")
    score.add_argument("--variant", action="append", default=[], metavar="NAME=JSON")
    sub.add_parser("bounds", help="the kept rankings with the changed files first, or alone")
    args = parser.parse_args()
    tasks = [json.loads(line) for line in args.tasks.read_text().splitlines() if line.strip()]
    os.environ.setdefault("GPTE_CONTEXT_TOKENIZER", "o200k")
    if args.command == "capture":
        capture(tasks, args.mirror_root, args.rankings, args.locbench)
        return 0
    if args.command == "bounds":
        print_bounds(bounds(tasks, args.rankings))
        return 0
    variants: dict[str, Mapping[str, float]] = {"gpte": {}}
    for spec in args.variant:
        name, _, text = spec.partition("=")
        variants[name] = json.loads(text)
    rows = [r for name, v in variants.items() for r in score_variant(tasks, args.rankings, name, v)]
    names = list(variants)
    if len(names) > 1:
        picked, chosen = loo_rows(rows, names)
        rows += [{**r, "selector": "loo"} for r in picked]
        names.append("loo")
        print("leave one repository out: " + ", ".join(f"{r} -> {v}" for r, v in chosen.items()))
    heads = " / ".join(f"{b // 1024}k" for b in BUDGETS)
    print(f"\n| variant, language | tasks | covered % {heads} |\n|---|---|---|")
    for name in names:
        for group, languages in [("python", ("python",)), *GROUPS.items()]:
            mine = [r for r in rows if r["selector"] == name and r["language"] in languages]
            if mine:
                print(_line(f"{name}, {group}", mine, BUDGETS))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
