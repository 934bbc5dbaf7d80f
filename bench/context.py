"""Context selection on locbench: ``git gpte context`` against the reference selectors.

Runs ``../shared/locbench/score.py`` with
``--cmd 'git gpte context --format lines --tokens "$GPTE_BUDGET" -f "$GPTE_QUERY_FILE"'`` on the
public tasks at 4k/8k/16k/32k tokens and prints the table beside ``anchors-public.json``'s
reference selectors (BM25 over files and chunks, aider's map ranking, repository order), plus
wall times (median, p90, first run per repository = cold index) and the budget-free *tokens to
cover*: per task, the smallest budget on a 256-token grid whose selection covers every changed
line (binary search, up to 131,072 tokens; the median over tasks, "never" counting as infinite).

Targets (public tasks): covered >= 65 / 80 / 90 / 95 % at 4k / 8k / 16k / 32k, median tokens to
cover <= 3k, median <= 0.5 s per run with a warm index, p90 <= 1 s, first run <= 5 s.

    python bench/context.py --mirror-root /work/.mirror            # all 120 tasks, 480 runs
    python bench/context.py --mirror-root ROOT --limit 10 --repo click
    python bench/context.py --mirror-root ROOT --in-process        # quick: no process per run
    python bench/context.py --mirror-root ROOT --tasks held.jsonl   # other repositories' tasks
                                                  # (bench/locbench_tasks.py makes them)

Tokens are o200k (as in the reference rows) when tiktoken finds o200k_base in its cache, both for
the scorer and for ``git gpte context``'s budget; offline, put the encoding file (named by the
SHA-1 of its download URL, as tiktoken caches it) in a directory and point ``TIKTOKEN_CACHE_DIR``
at it. Otherwise both count UTF-8 bytes / 4 and say so. ``--tokenizer o200k|bytes4`` sets both.

``--in-process`` calls the selection API directly and scores it with score.py's own charging
and coverage functions: the same numbers without start-up and index-loading time (for
iterating; the figures to report come from the default mode).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _default_locbench() -> Path:
    """``shared/locbench`` beside the checkout (or beside the main one, from a linked worktree)."""
    here = ROOT.parent / "shared" / "locbench"
    if here.is_dir():
        return here
    common = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--path-format=absolute", "--git-common-dir"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    return Path(common).parent.parent / "shared" / "locbench" if common else here


DEFAULT_LOCBENCH = _default_locbench()
BUDGETS = (4096, 8192, 16384, 32768)
TARGETS = {4096: 65.0, 8192: 80.0, 16384: 90.0, 32768: 95.0}
COMMAND = 'git gpte context --format lines --tokens "$GPTE_BUDGET" -f "$GPTE_QUERY_FILE"'
REFERENCES = ("bm25", "bm25-chunks", "bm25+sig", "hybrid", "aider", "whole-repo", "oracle-chunks")
GRID = 256
GRID_MAX = 131072


def load_scorer(locbench: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("locbench_score", locbench / "score.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def selection_units(
    score: ModuleType, repo_dir: str, task: dict[str, Any], budget: int, snap: Any
) -> list[Any]:
    """Our selection for one task at one budget, as score.py's units."""
    from git_gpte.context import format_lines, select
    from git_gpte.git import Repository

    repo = Repository.discover(repo_dir)
    sel = select(repo, task["parent"], task["query"], budget, map_share=0.0)
    units, _ = score.parse_output("\n".join(format_lines(sel)), snap, repo_dir)
    return list(units)


def covers(
    score: ModuleType, units: list[Any], snap: Any, task: dict[str, Any], budget: int
) -> dict[str, Any]:
    charged = score.charge(units, snap, budget)
    gold_lines = task.get("gold_lines") or {g: [] for g in task["gold"]}
    result: dict[str, Any] = score.coverage(charged["sel"], task["gold"], gold_lines)
    result["tokens"] = charged["tokens"]
    result["over_budget"] = charged["raw_tokens"] > budget
    return result


def tokens_to_cover(score: ModuleType, repo_dir: str, task: dict[str, Any], snap: Any) -> float:
    """Smallest grid budget whose selection covers (binary search; inf when none does)."""

    def ok(budget: int) -> bool:
        units = selection_units(score, repo_dir, task, budget, snap)
        return bool(covers(score, units, snap, task, budget)["covered"])

    lo, hi = 1, GRID_MAX // GRID
    if not ok(hi * GRID):
        return math.inf
    while lo < hi:
        mid = (lo + hi) // 2
        if ok(mid * GRID):
            hi = mid
        else:
            lo = mid + 1
    return float(lo * GRID)


def in_process(
    score: ModuleType, args: argparse.Namespace, tasks: list[dict[str, Any]], work: str
) -> tuple[dict[str, Any], list[float]]:
    label, counter = score.make_counter(args.tokenizer)
    print(f"tokenizer: {label}", file=sys.stderr)
    pool = score.RepoPool(
        work, lambda repo: os.path.join(args.mirror_root, repo.replace("/", "+"), "repo")
    )
    per_budget: dict[int, list[dict[str, Any]]] = {b: [] for b in args.budgets}
    walls: list[float] = []
    cover: list[float] = []
    cache: dict[str, int] = {}
    for task in tasks:
        repo_dir = pool.reset(task["repo"], task["parent"])
        snap = score.Snap(repo_dir, task["parent"], counter, cache)
        for budget in args.budgets:
            start = time.perf_counter()
            units = selection_units(score, repo_dir, task, budget, snap)
            walls.append(time.perf_counter() - start)
            per_budget[budget].append(covers(score, units, snap, task, budget))
        if not args.no_cover:
            cover.append(tokens_to_cover(score, repo_dir, task, snap))
        if args.verbose:
            bits = "".join(str(int(per_budget[b][-1]["covered"])) for b in args.budgets)
            print(f"{task['id']:<24} {bits}  {task['query'][:70]!r}", file=sys.stderr)
    agg: dict[str, Any] = {"tasks": len(tasks), "by_budget": {}, "median_wall_s": None}
    for budget, rows in per_budget.items():
        n = len(rows) or 1
        agg["by_budget"][str(budget)] = {
            "covered_pct": round(100 * sum(r["covered"] for r in rows) / n, 1),
            "all_gold_in_pct": round(100 * sum(r["all_in"] for r in rows) / n, 1),
            "mean_tokens": round(sum(r["tokens"] for r in rows) / n),
            "over_budget_runs": sum(r["over_budget"] for r in rows),
        }
    if walls:
        agg["median_wall_s"] = round(statistics.median(walls), 3)
        agg["p90_wall_s"] = round(sorted(walls)[max(0, math.ceil(0.9 * len(walls)) - 1)], 3)
    return agg, cover


def through_cli(score_py: Path, args: argparse.Namespace, work: str) -> dict[str, Any]:
    out = os.path.join(work, "result.json")
    argv = [
        sys.executable,
        str(score_py),
        "--mirror-root",
        args.mirror_root,
        "--cmd",
        COMMAND,
        "--budgets",
        ",".join(map(str, args.budgets)),
        "--out",
        out,
        "--work",
        work,
        "--keep",
        "--quiet",
        "--name",
        "git gpte context",
        "--tokenizer",
        args.tokenizer,
        "--tasks",
        str(args.tasks),
    ]
    for repo in args.repo:
        argv += ["--repo", repo]
    if args.limit:
        argv += ["--limit", str(args.limit)]
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    subprocess.run(argv, check=True, env=env, stdout=subprocess.DEVNULL)
    with open(out, encoding="utf-8") as handle:
        data: dict[str, Any] = json.load(handle)
    return data


def fmt_k(value: float | None) -> str:
    if value is None or math.isinf(value):
        return "never"
    return f"{value / 1000:.1f}k"


def print_table(
    ours: dict[str, Any],
    cover: list[float],
    anchors: dict[str, Any],
    budgets: list[int],
    subset: bool,
) -> None:
    head = "| selector | " + " | ".join(f"{b // 1024}k covered / all-in / tokens" for b in budgets)
    print(head + " | tok→cover |")
    print("|---" * (len(budgets) + 2) + "|")
    cells = []
    for b in budgets:
        x = ours["by_budget"][str(b)]
        cells.append(f"{x['covered_pct']} / {x['all_gold_in_pct']} / {x['mean_tokens']}")
    median_cover = statistics.median(cover) if cover else None
    measured = fmt_k(median_cover) if cover else "-"
    print(f"| **git gpte context** | {' | '.join(cells)} | {measured} |")
    print(f"| target | {' | '.join(f'≥ {TARGETS.get(b, 0):.0f}' for b in budgets)} | ≤ 3.0k |")
    for name in REFERENCES:
        ref = anchors["by_selector"].get(name)
        if ref is None:
            continue
        row = []
        for b in budgets:
            x = ref.get(str(b), {})
            row.append(
                f"{x.get('covered_pct')} / {x.get('all_gold_in_pct')} / {x.get('mean_tokens')}"
            )
        print(f"| {name} | {' | '.join(row)} | {fmt_k(ref.get('median_tokens_to_cover'))} |")
    if subset:
        print("\n(reference rows are over all 120 public tasks; this run used a subset)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror-root", required=True, help="folder with OWNER+NAME/repo mirrors")
    parser.add_argument("--locbench", type=Path, default=DEFAULT_LOCBENCH)
    parser.add_argument(
        "--budgets", type=lambda s: [int(x) for x in s.split(",")], default=list(BUDGETS)
    )
    parser.add_argument("--tasks", type=Path, help="a task file (default: the public tasks)")
    parser.add_argument("--repo", action="append", default=[])
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--tokenizer", default="auto", choices=["auto", "o200k", "bytes4"])
    parser.add_argument("--in-process", action="store_true", help="call the API, no subprocess")
    parser.add_argument("--no-cover", action="store_true", help="skip tokens-to-cover")
    parser.add_argument("--work", help="keep the task repositories here")
    parser.add_argument("-v", "--verbose", action="store_true", help="one line per task")
    args = parser.parse_args()
    if args.tokenizer != "auto":
        # The selection counts its budget in the scorer's tokens.
        os.environ["GPTE_CONTEXT_TOKENIZER"] = args.tokenizer
    sys.path.insert(0, str(ROOT))
    score = load_scorer(args.locbench)
    public = args.tasks is None
    args.tasks = args.tasks or args.locbench / "tasks-public.jsonl"
    # The reference selectors were measured on the public tasks only.
    anchors = (
        json.loads((args.locbench / "anchors-public.json").read_text())
        if public
        else {"by_selector": {}}
    )
    tasks = score.load_tasks(str(args.tasks), args.repo, args.limit)
    work = args.work or tempfile.mkdtemp(prefix="gpte-context-bench-")
    os.makedirs(work, exist_ok=True)
    cover: list[float] = []
    if args.in_process:
        ours, cover = in_process(score, args, tasks, work)
    else:
        ours = through_cli(args.locbench / "score.py", args, work)
        if not args.no_cover:
            _label, counter = score.make_counter(args.tokenizer)
            pool = score.RepoPool(
                work, lambda repo: os.path.join(args.mirror_root, repo.replace("/", "+"), "repo")
            )
            pool.repos = {
                t["repo"]: os.path.join(work, "repos", t["repo"].replace("/", "+")) for t in tasks
            }
            cache: dict[str, int] = {}
            for task in tasks:
                repo_dir = pool.repos[task["repo"]]
                snap = score.Snap(repo_dir, task["parent"], counter, cache)
                cover.append(tokens_to_cover(score, repo_dir, task, snap))
    print(f"\n{len(tasks)} tasks, budgets {args.budgets}\n")
    print_table(ours, cover, anchors, args.budgets, public and len(tasks) < 120)
    if ours.get("median_wall_s") is not None:
        print(
            f"\nwall per run: median {ours['median_wall_s']} s, p90 {ours.get('p90_wall_s')} s"
            + ("" if args.in_process else " (whole process, through the --cmd contract)")
        )
    for repo, info in ours.get("by_repo", {}).items():
        print(
            f"  {repo}: first run (cold index) {info['first_run_wall_s']:.2f} s, "
            f"median {info['median_wall_s']} s"
        )
    over = sum(x.get("over_budget_runs", 0) for x in ours["by_budget"].values())
    failed = sum(x.get("failed_runs", 0) for x in ours["by_budget"].values())
    print(f"runs over budget: {over}; failed runs: {failed}; work dir: {work}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
