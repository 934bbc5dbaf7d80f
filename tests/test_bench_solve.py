"""bench/solve.py's report tables: several reports, a re-run's row replacing the first run's."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _report(path: Path, *rows: dict[str, object]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_a_rerun_replaces_the_first_runs_row_for_its_task_and_tool(tmp_path: Path) -> None:
    first = _report(
        tmp_path / "own.jsonl",
        {"task": "a/x", "tool": "gpte", "solved": False, "well_formed": True, "claimed": True,
         "broken_committed": True, "seconds": 10.0},
        {"task": "a/x", "tool": "aider-whole", "solved": True, "well_formed": True,
         "seconds": 20.0},
        {"task": "a/y", "tool": "gpte", "solved": True, "well_formed": True, "seconds": 30.0},
    )  # fmt: skip
    rerun = _report(
        tmp_path / "rerun.jsonl",
        {"task": "a/x", "tool": "gpte", "solved": True, "well_formed": True, "seconds": 40.0},
    )
    out = subprocess.run(
        [sys.executable, str(ROOT / "bench/solve.py"), "--table", str(first), str(rerun)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    gpte = next(line for line in out.splitlines() if line.startswith("gpte "))
    assert gpte.split()[1:3] == ["2", "100%"]  # two tasks, both solved: the re-run counts
    assert "solved 40s" in out and "BROKEN 10s" not in out


def test_before_prints_each_task_beside_its_last_row_before_and_what_changed(
    tmp_path: Path,
) -> None:
    before = _report(
        tmp_path / "before.jsonl",
        {"task": "a/x", "tool": "gpte", "solved": True, "seconds": 300.0},
        {"task": "a/y", "tool": "gpte", "refused": True, "seconds": 100.0},
        {"task": "a/y", "tool": "gpte", "solved": False, "seconds": 900.0},  # the later row
        {"task": "a/z", "tool": "gpte", "solved": True, "seconds": 50.0},  # not run after
    )  # fmt: skip
    after = _report(
        tmp_path / "after.jsonl",
        {"task": "a/x", "tool": "gpte", "solved": False, "claimed": True,
         "broken_committed": True, "seconds": 200.0},
        {"task": "a/y", "tool": "gpte", "solved": True, "seconds": 250.0},
        {"task": "a/new", "tool": "gpte", "solved": True, "seconds": 10.0},
    )  # fmt: skip
    out = subprocess.run(
        [sys.executable, str(ROOT / "bench/solve.py"), "--table", str(after),
         "--before", str(before)],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    compared = out.split("\n\n")[-1].splitlines()  # after the tables
    assert [line.split()[0] for line in compared[1:3]] == ["a/x", "a/y"]  # only tasks of both
    assert compared[2].split()[2:] == ["failed", "900s", "solved", "250s"]
    assert compared[3] == (
        "gpte, 2 task(s): solved 1 -> 1 (gained: a/y; lost: a/x); broken and claimed 0 -> 1; "
        "median seconds 900 -> 250"
    )
