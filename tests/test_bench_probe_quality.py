"""bench/probe_quality.py: the probes asked on a task's reference solution, and what each says."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.helpers.llm_server import LLMServer

ROOT = Path(__file__).resolve().parents[1]

RIGHT = """```python
from settings import Settings

assert Settings({"app.tags": "a, b,,c"}).get_list("app.tags") == ["a", "b", "c"]
```"""
# Wrong about the request (the default is [] when none is given): a right result fails it.
ALARM = """```python
from settings import Settings

assert Settings({}).get_list("app.tags") is None
```"""


def test_each_probe_is_run_on_the_base_and_on_the_solution(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    llm_server.queue(RIGHT, ALARM)  # the whole request's, the sentence's
    report = tmp_path / "probes.jsonl"
    out = subprocess.run(
        [
            sys.executable, str(ROOT / "bench/probe_quality.py"),
            "--url", llm_server.openai_base_url, "--task", "settings/get-list",
            "--report", str(report),
        ],
        capture_output=True, text=True, check=True, timeout=300,
    ).stdout  # fmt: skip
    rows = [json.loads(line) for line in report.read_text().splitlines()]
    assert [(r["kind"], r["stands"], r["right"], r["false_alarm"]) for r in rows] == [
        ("whole", True, True, False),
        ("sentence", True, False, True),
    ]
    asked = llm_server.requests[1].body["messages"][-1]["content"]
    assert "When the key is not set it returns default" in asked.split("above all")[1]
    assert "whole only: 1 task run(s), a right probe in 1 (100%), a false alarm in 0" in out
    assert "all probes: 1 task run(s), a right probe in 1 (100%), a false alarm in 1" in out
    again = subprocess.run(
        [sys.executable, str(ROOT / "bench/probe_quality.py"), "--table", str(report)],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert again.strip() in out
