"""bench/context_learn.py: a chunk order fitted on the other repositories of a pool, scored on
each one left out, beside the ranking as it is."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import SHARED
from tests.helpers.pool_task import one_task_pool

ROOT = Path(__file__).resolve().parents[1]


def _captured(tasks: Path, mirrors: Path, kept: Path) -> list[str]:
    """The tasks ranked once and kept (context_pack_sim.py capture); the arguments naming them."""
    common = ["--tasks", str(tasks), "--rankings", str(kept)]
    subprocess.run(
        [sys.executable, str(ROOT / "bench/context_pack_sim.py"), *common, "capture",
         "--mirror-root", str(mirrors), "--locbench", str(SHARED / "locbench")],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return common


def test_each_repository_is_ordered_by_a_fit_on_the_others(tmp_path: Path) -> None:
    tasks, mirrors = one_task_pool(tmp_path)
    # The same project under a second name: two repositories, so each has one to learn from.
    subprocess.run(["git", "clone", "-q", "--bare", str(mirrors / "acme+shop" / "repo"),
                    str(mirrors / "acme+other" / "repo")], check=True)  # fmt: skip
    task = json.loads(tasks.read_text())
    other = {**task, "id": "other-1", "repo": "acme/other"}
    tasks.write_text(json.dumps(task) + "\n" + json.dumps(other) + "\n")
    common = _captured(tasks, mirrors, tmp_path / "rankings")
    shown = subprocess.run(
        [sys.executable, str(ROOT / "bench/context_learn.py"), *common,
         "--features", "score,rel,header"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert "| gpte, python | 2 | 100.0 / 100.0 / 100.0 / 100.0 |" in shown
    assert "| learned, python | 2 | 100.0 / 100.0 / 100.0 / 100.0 |" in shown
    fitted = shown.split("fitted on the whole pool: ", 1)[1]
    assert [part.split()[0] for part in fitted.split(", ")] == ["score", "rel", "header", "bias"]


def test_a_file_order_is_learned_and_a_ceiling_fitted_on_every_task(tmp_path: Path) -> None:
    tasks, mirrors = one_task_pool(tmp_path)
    common = _captured(tasks, mirrors, tmp_path / "rankings")
    # One repository: left out, nothing would be left to learn from; fitted on itself, the
    # order is the ceiling's.
    shown = subprocess.run(
        [sys.executable, str(ROOT / "bench/context_learn.py"), *common, "--order", "files",
         "--fit-on", "self", "--features", "score,rank,best_chunk", "--mix", "0.5"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert "| gpte, python | 1 | 100.0 / 100.0 / 100.0 / 100.0 |" in shown
    assert "| learned, python | 1 | 100.0 / 100.0 / 100.0 / 100.0 |" in shown
    fitted = shown.split("fitted on the whole pool: ", 1)[1]
    assert [part.split()[0] for part in fitted.split(", ")] == [
        "score",
        "rank",
        "best_chunk",
        "bias",
    ]
    wrong = subprocess.run(
        [sys.executable, str(ROOT / "bench/context_learn.py"), *common, "--order", "files",
         "--features", "header"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert wrong.returncode == 2 and "unknown features header" in wrong.stderr
