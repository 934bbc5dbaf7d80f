"""bench/context_misses.py: where each changed file of a missed task stood, and what the misses
have in common."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import SHARED
from tests.helpers.pool_task import one_task_pool

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import context_misses  # noqa: E402


def test_a_missed_task_is_selected_again_and_its_changed_file_placed(tmp_path: Path) -> None:
    tasks, mirrors = one_task_pool(tmp_path)
    results = tmp_path / "results.jsonl"
    task = {"id": "shop-1", "repo": "acme/shop"}
    rows = [{**task, "selector": "gpte", "covered": [1, 0]},
            {**task, "selector": "bm25+sig", "covered": [0, 0]}]  # fmt: skip
    results.write_text("".join(json.dumps(row) + "\n" for row in rows))
    argv = [sys.executable, str(ROOT / "bench/context_misses.py"), "--mirror-root", str(mirrors),
            "--tasks", str(tasks), "--results", str(results), "--locbench",
            str(SHARED / "locbench"), "--tokenizer", "bytes4", "--budgets", "4096,8",
            "--budget", "8", "-v"]  # fmt: skip
    shown = subprocess.run(argv, capture_output=True, text=True, check=True).stdout.splitlines()
    # 8 tokens hold nothing: the best file (prices.py, its one function the best chunk) is
    # named as not sent.
    assert json.loads(shown[0]) == {
        "id": "shop-1",
        "files": [{"file": "shop/prices.py", "rank": 0, "chunk_ranks": [0], "how": "absent"}],
    }
    assert shown[1] == "1 tasks missed at 8 tokens: 1 absent"
    assert shown[-1] == "files not sent: median rank 0, 1 files"
    # At 4096 the results say it was covered: nothing to look at.
    argv[argv.index("--budget") + 1] = "4096"
    shown = subprocess.run(argv, capture_output=True, text=True, check=True).stdout.splitlines()
    assert shown[0] == "0 tasks missed at 4,096 tokens: "


def test_the_summary_counts_boundary_misses_and_far_chunks() -> None:
    def part(distance: list[int], rest: int, ranks: list[int]) -> dict[str, object]:
        return {"how": "partial", "distance": distance, "rest_tokens": rest, "chunk_ranks": ranks}

    rows = [
        {"id": "a", "files": [part([3], 500, [4, 12])]},  # near, cheap
        {"id": "b", "files": [part([40], 5000, [150])]},  # far on both counts
        {
            "id": "c",
            "files": [{"how": "absent", "rank": 7, "chunk_ranks": [-1]}, part([1], 100, [2])],
        },
    ]
    assert context_misses.summary(rows, 8192) == [
        "3 tasks missed at 8,192 tokens: 1 absent and partial, 2 partial",
        "sent in part only: 1 with every unsent changed line within 10 lines of an excerpt, 1 "
        "whose files' rest costs a tenth of the budget or less",
        "the worst-ranked changed chunk of each task: median 81, past the 100th in 1 of 2; in "
        "no ranked chunk: 1",
        "files not sent: median rank 7, 1 files",
    ]
