"""bench/context_pool.py: the reference selector, the leave-one-repository-out choice, and a
whole run on a small mirror scored by locbench's own scorer."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import SHARED
from tests.helpers.pool_task import one_task_pool

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import context_pool  # noqa: E402


def test_bm25_ranks_the_document_with_the_rare_term_first() -> None:
    docs = {
        "a.py": {"parse": 3, "date": 1},
        "b.py": {"parse": 1, "cookie": 2},
        "c.py": {"other": 5},
    }
    ranked = [name for _, name in context_pool._bm25(docs, ["cookie", "parse"])]
    assert ranked == ["b.py", "a.py", "c.py"]  # matching nothing: last


def test_each_repository_gets_the_variant_best_on_the_others() -> None:
    def rows(repo: str, variant: str, bits: list[int]) -> list[dict[str, object]]:
        return [{"repo": repo, "selector": variant, "covered": [b], "id": f"{repo}{i}"}
                for i, b in enumerate(bits)]  # fmt: skip

    table = [
        *rows("r1", "base", [1, 0]), *rows("r1", "new", [1, 1]),
        *rows("r2", "base", [1, 1]), *rows("r2", "new", [0, 0]),
        *rows("r3", "base", [0, 0]), *rows("r3", "new", [1, 1]),
    ]  # fmt: skip
    picked, chosen = context_pool.loo_rows(table, ["base", "new"])
    # r2 is judged on r1 + r3, where "new" wins: it gets "new" and loses with it.
    assert chosen == {"r1": "base", "r2": "new", "r3": "base"}
    assert sum(r["covered"][0] for r in picked) == 1 + 0 + 0


def test_a_run_on_a_mirror_scores_both_selectors(tmp_path: Path) -> None:
    tasks, mirrors = one_task_pool(tmp_path)
    out = tmp_path / "out"
    argv = [sys.executable, str(ROOT / "bench/context_pool.py"), "--mirror-root",
            str(mirrors), "--tasks", str(tasks), "--out", str(out),
            "--locbench", str(SHARED / "locbench"), "--tokenizer", "bytes4",
            "--budgets", "4096"]  # fmt: skip
    shown = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    rows = [json.loads(line) for line in (out / "results-4096.jsonl").read_text().splitlines()]
    assert {r["selector"]: r["covered"] for r in rows} == {"gpte": [1], "bm25+sig": [1]}
    assert "| acme/shop | 1 | 100 | 100 |" in shown
    # Kept results are reused: a second run scores nothing again.
    again = subprocess.run(argv, capture_output=True, text=True, check=True)
    assert (out / "results-4096.jsonl").read_text().count("\n") == 2 and again.returncode == 0
