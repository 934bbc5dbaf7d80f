"""Where the context selection misses: for each task it missed at a budget, where each changed
file stood.

``bench/context_pool.py`` says which tasks were missed; this says why, so that a rule is aimed
at the misses there are. For each task missed at ``--budget`` (by the ``gpte`` rows of a
results file of context_pool.py), the selection is made again and each changed file is found
sent whole, sent in part (how far its unsent changed lines lie from an excerpt, and what the
rest of the file would cost), or not sent (its rank among the files); and, for each changed
range, the rank of the best chunk holding it in the chunk ranking the excerpts are taken from.
A change the ranking puts past the hundredth chunk is out of reach of any packing rule at 8k:
it needs a better ranking, not a better packing.

    python bench/context_misses.py --mirror-root ROOT --tasks pool.jsonl \\
        --results pool-results/results-4096-8192-16384-32768.jsonl --budget 8192 [-v]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))
sys.path.insert(0, str(ROOT))

from context import BUDGETS, DEFAULT_LOCBENCH, load_scorer  # noqa: E402

NEAR_LINES = 10  # an unsent changed line this close to an excerpt: a boundary miss
FAR_CHUNK = 100  # a changed chunk ranked past this: out of the packing's reach at 8k


def missed_ids(results: Path, budget: int, budgets: Sequence[int]) -> list[str]:
    """The tasks the ``gpte`` rows of a context_pool.py results file missed at ``budget``."""
    column = list(budgets).index(budget)
    out = []
    for line in results.read_text().splitlines():
        row = json.loads(line)
        if row["selector"] == "gpte" and not row["covered"][column]:
            out.append(row["id"])
    return out


def where(task: Mapping[str, Any], repo_dir: str, budget: int) -> list[dict[str, Any]]:
    """Each changed file of the task: how it was sent at ``budget``, its rank among the files,
    and the rank of the best chunk holding each of its changed ranges (-1: none holds it)."""
    from git_gpte.context import select
    from git_gpte.context.engine import _ranking
    from git_gpte.context.weights import WEIGHTS
    from git_gpte.git import Repository

    repo = Repository.discover(repo_dir)
    selection = select(repo, task["parent"], task["query"], budget, map_share=0.0)
    ranking, _ = _ranking(repo, task["parent"], task["query"], (), None, None, WEIGHTS)
    files = [ranked.cand.path for ranked in ranking.files]
    chunks = []
    for scored in ranking.chunks:
        record = scored.file.record
        chunk = record.chunks[scored.index] if record is not None else None
        if chunk is not None:
            chunks.append((scored.file.cand.path, chunk.start, chunk.end))
    picks = {pick.path: pick for pick in selection.picks}
    out = []
    for path in task["gold"]:
        ranges = [tuple(r) for r in task["gold_lines"][path]]
        found: dict[str, Any] = {
            "file": path,
            "rank": files.index(path) if path in files else -1,
            "chunk_ranks": [_chunk_rank(chunks, path, r) for r in ranges],
        }
        pick = picks.get(path)
        if pick is None:
            found["how"] = "absent"
        elif pick.whole:
            found["how"] = "whole"
        else:
            spans = [(r.start, r.end) for r in pick.ranges]
            unsent = [r for r in ranges if not any(s <= r[0] and r[1] <= e for s, e in spans)]
            found["how"] = "partial" if unsent else "in"
            found["unsent"] = unsent
            found["distance"] = [
                min(min(abs(a - e), abs(s - b)) for s, e in spans) for a, b in unsent
            ]
            found["rest_tokens"] = pick.file_tokens - pick.tokens
        out.append(found)
    return out


def _chunk_rank(chunks: Sequence[tuple[str, int, int]], path: str, lines: tuple[int, ...]) -> int:
    first, last = lines[0], lines[-1]
    for rank, (where_, start, end) in enumerate(chunks):
        if where_ == path and start <= last and first <= end:
            return rank
    return -1


def summary(rows: Sequence[Mapping[str, Any]], budget: int) -> list[str]:
    """What the missed tasks have in common, as lines of text."""
    kinds: Counter[str] = Counter()
    near = cheap = 0
    worst: list[int] = []
    absent_ranks: list[int] = []
    for row in rows:
        bad = [f for f in row["files"] if f["how"] in ("absent", "partial")]
        kinds[" and ".join(sorted({f["how"] for f in bad})) or "covered now"] += 1
        absent_ranks += [f["rank"] for f in bad if f["how"] == "absent"]
        if bad and all(f["how"] == "partial" for f in bad):
            near += all(d <= NEAR_LINES for f in bad for d in f["distance"])
            cheap += sum(f["rest_tokens"] for f in bad) <= budget // 10
        ranks = [r for f in bad for r in f["chunk_ranks"]]
        if ranks:
            worst.append(max(ranks) if -1 not in ranks else -1)
    lines = [f"{len(rows)} tasks missed at {budget:,} tokens: " + ", ".join(
        f"{n} {kind}" for kind, n in sorted(kinds.items()))]  # fmt: skip
    lines.append(
        f"sent in part only: {near} with every unsent changed line within {NEAR_LINES} lines of "
        f"an excerpt, {cheap} whose files' rest costs a tenth of the budget or less"
    )
    ranked = sorted(r for r in worst if r >= 0)
    if ranked:
        far = sum(r > FAR_CHUNK for r in ranked)
        lines.append(
            f"the worst-ranked changed chunk of each task: median {statistics.median(ranked):.0f}"
            f", past the {FAR_CHUNK}th in {far} of {len(ranked)}; in no ranked chunk: "
            f"{worst.count(-1)}"
        )
    if absent_ranks:
        lines.append(f"files not sent: median rank {statistics.median(absent_ranks):.0f}, "
                     f"{len(absent_ranks)} files")  # fmt: skip
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirror-root", required=True)
    parser.add_argument("--tasks", required=True, type=Path)
    parser.add_argument("--results", required=True, type=Path, help="context_pool.py's results")
    parser.add_argument("--budgets", default=",".join(map(str, BUDGETS)), help="its columns")
    parser.add_argument("--budget", type=int, default=8192)
    parser.add_argument("--locbench", type=Path, default=DEFAULT_LOCBENCH)
    parser.add_argument("--tokenizer", default="auto", choices=("auto", "o200k", "bytes4"))
    parser.add_argument("-v", "--verbose", action="store_true", help="one line per task")
    args = parser.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    # Counted as context_pool.py counted them (o200k where it is cached).
    os.environ.setdefault(
        "GPTE_CONTEXT_TOKENIZER", "bytes4" if args.tokenizer == "bytes4" else "o200k"
    )
    tasks = {t["id"]: t for t in map(json.loads, args.tasks.read_text().splitlines())}
    ids = [i for i in missed_ids(args.results, args.budget, budgets) if i in tasks]
    score = load_scorer(args.locbench)
    rows = []
    with tempfile.TemporaryDirectory() as work:
        pool = score.RepoPool(
            work, lambda repo: os.path.join(args.mirror_root, repo.replace("/", "+"), "repo")
        )
        for task_id in ids:
            task = tasks[task_id]
            repo_dir = pool.reset(task["repo"], task["parent"])
            row = {"id": task_id, "files": where(task, repo_dir, args.budget)}
            rows.append(row)
            if args.verbose:
                print(json.dumps(row))
    print("\n".join(summary(rows, args.budget)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
