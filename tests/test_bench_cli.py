"""``git gpte bench`` end to end: the installed CLI, the scripted local LLM server, real tests
run by the execution layer in temporary repositories."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from git_gpte.config import Settings
from git_gpte.git import Repository
from git_gpte.run import RunOptions, run_commit
from git_gpte.taskbench import load_tasks
from git_gpte.taskbench.runner import init_repository, with_hidden_files
from tests.conftest import run_gpte
from tests.helpers.llm_server import LLMServer

EXAMPLES = Path(__file__).resolve().parents[1] / "bench" / "tasks" / "example.jsonl"
FIXTURES = Path(__file__).resolve().parent / "fixtures"

FIZZ_DIFF = """\
```diff
--- fizzbuzz.py
+++ fizzbuzz.py
@@ -1,2 +1,8 @@
 def fizzbuzz(n):
-    raise NotImplementedError
+    if n % 15 == 0:
+        return "FizzBuzz"
+    if n % 3 == 0:
+        return "Fizz"
+    if n % 5 == 0:
+        return "Buzz"
+    return str(n)
```
"""

SLOW_DIFF = """\
```diff
--- slow.py
+++ slow.py
@@ -1 +1 @@
-VALUE = 1
+VALUE = 2
```
"""

AVERAGE_STILL_WRONG = """\
```diff
--- stats.py
+++ stats.py
@@ -1,5 +1,5 @@
 def average(values):
     total = 0
-    for i in range(1, len(values)):
+    for i in range(0, len(values)):
         total += values[i]
     return total / len(values)
```
"""

AVERAGE_FIXED = """\
```diff
--- stats.py
+++ stats.py
@@ -1,5 +1,7 @@
 def average(values):
+    if not values:
+        return 0.0
     total = 0
     for i in range(0, len(values)):
         total += values[i]
     return total / len(values)
```
"""


def env_for(server: LLMServer) -> dict[str, str]:
    return {"OPENAI_BASE_URL": server.openai_base_url, "OPENAI_API_KEY": "sk-test"}


def example(name: str) -> str:
    for line in EXAMPLES.read_text().splitlines():
        if json.loads(line)["name"] == name:
            return line
    raise AssertionError(f"no example task {name!r}")


def bench(tmp_path: Path, server: LLMServer, *args: str, env: dict[str, str] | None = None):
    result = run_gpte(
        "bench", *args, "--model", "gpt-4o-mini", cwd=tmp_path, env=env or env_for(server)
    )
    assert "Traceback" not in result.stderr, result.stderr
    return result


def test_every_example_task_fails_on_its_starting_files(tmp_path: Path) -> None:
    """A bench whose tests already pass measures nothing."""
    tasks = load_tasks(EXAMPLES)
    assert len(tasks) >= 5
    for task in tasks:
        root = tmp_path / task.name
        root.mkdir()
        base = init_repository(root, task)
        repo = Repository.discover(root)
        options = RunOptions.resolve(
            Settings(), command=task.test_command("python3"), timeout=task.timeout or 30
        )
        outcome = run_commit(repo, with_hidden_files(repo, base, task), options)
        assert not outcome.success, f"{task.name} passes before any edit"
        assert not outcome.timed_out, task.name


def test_one_solved_one_timed_out(tmp_path: Path, llm_server: LLMServer) -> None:
    sleeper = {
        "name": "sleeper",
        "prompt": "change VALUE to 2",
        "files": {"slow.py": "VALUE = 1\n"},
        "test": "echo started; sleep 30; echo never",
    }
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(example("fizzbuzz") + "\n" + json.dumps(sleeper) + "\n")
    llm_server.queue(FIZZ_DIFF, SLOW_DIFF)
    report = tmp_path / "report.json"
    started = time.monotonic()

    result = bench(
        tmp_path, llm_server, str(tasks), "--timeout", "2", "--yes", "--report", str(report)
    )

    elapsed = time.monotonic() - started
    assert result.returncode == 0, result.stderr
    assert elapsed < 25, "the sleeping test was not killed at its timeout"
    data = json.loads(report.read_text())
    by_name = {t["name"]: t for t in data["tasks"]}
    assert by_name["fizzbuzz"]["status"] == "solved" and by_name["fizzbuzz"]["reason"] == ""
    assert by_name["sleeper"]["status"] == "failed"
    assert "timed out after 2" in by_name["sleeper"]["reason"]
    assert by_name["sleeper"]["seconds"] < 15
    summary = data["summary"]
    assert (summary["tasks"], summary["solved"], summary["failed"]) == (2, 1, 1)
    assert summary["solved_pct"] == 50.0 and summary["model"] == "gpt-4o-mini"
    assert by_name["fizzbuzz"]["tokens_in"] > 0 and by_name["fizzbuzz"]["tokens_out"] > 0
    assert summary["tokens_in"] == sum(t["tokens_in"] for t in data["tasks"])
    assert summary["cost_usd"] is not None and summary["cost_usd"] > 0
    # the table on stdout
    lines = result.stdout.splitlines()
    assert lines[0].split()[:3] == ["task", "result", "tokens"]
    assert any(line.startswith("fizzbuzz") and " solved " in line for line in lines)
    assert any(line.startswith("sleeper") and " failed " in line for line in lines)
    assert "solved 1/2 (50.0%)" in result.stdout
    # the hidden tests were never sent to the model
    sent = json.dumps(llm_server.requests[0].body)
    assert "assert fizzbuzz(30)" not in sent and "fizzbuzz.py" in sent
    # progress on stderr, and the temporary repositories are gone
    assert "[1/2] fizzbuzz: solved" in result.stderr and "[2/2] sleeper: failed" in result.stderr
    assert not list(tmp_path.glob("gpte-bench-*"))


def test_json_output_and_no_usable_edit(tmp_path: Path, llm_server: LLMServer) -> None:
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(example("fizzbuzz") + "\n")
    llm_server.queue("I cannot help with that.", "Still no diff.")
    result = bench(tmp_path, llm_server, str(tasks), "--yes", "--json", "--max-retries", "1")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    [task] = data["tasks"]
    assert task["status"] == "failed" and task["reason"].startswith("no usable edit")
    assert task["tokens_in"] > 0  # a failed run's spending still counts
    assert data["summary"]["solved_pct"] == 0.0


def test_heal_fixes_what_improve_left_failing(tmp_path: Path, llm_server: LLMServer) -> None:
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(example("off-by-one") + "\n")
    llm_server.queue(AVERAGE_STILL_WRONG, AVERAGE_FIXED)
    result = bench(tmp_path, llm_server, str(tasks), "--yes", "--json", "--attempts", "1")
    assert result.returncode == 0, result.stderr
    [task] = json.loads(result.stdout)["tasks"]
    assert task["status"] == "solved", task
    assert task["heal_attempts"] == 1
    assert len(llm_server.requests) == 2
    # the heal request carried the failure of the hidden test
    assert "ZeroDivisionError" in json.dumps(llm_server.requests[1].body)


def test_without_heal_the_same_task_fails(tmp_path: Path, llm_server: LLMServer) -> None:
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(example("off-by-one") + "\n")
    llm_server.queue(AVERAGE_STILL_WRONG)
    result = bench(tmp_path, llm_server, str(tasks), "--yes", "--json")
    [task] = json.loads(result.stdout)["tasks"]
    assert task["status"] == "failed" and "ZeroDivisionError" in task["reason"]
    assert len(llm_server.requests) == 1


MBPP_SIMILAR = """\
```diff
--- solution.py
+++ solution.py
@@ -1 +1,2 @@
-# MBPP task 2: write the solution here.
+def similar_elements(a, b):
+    return tuple(set(a) & set(b))
```
"""

MBPP_WRONG_PRIME = """\
```diff
--- solution.py
+++ solution.py
@@ -1 +1,2 @@
-# MBPP task 3: write the solution here.
+def is_not_prime(n):
+    return n % 2 == 0
```
"""

APPS_SUM = """\
```diff
--- main.py
+++ main.py
@@ -1 +1,2 @@
-# APPS problem 4001: write the program here.
+a, b = map(int, input().split())
+print(a + b)
```
"""

APPS_LARGEST = """\
```diff
--- main.py
+++ main.py
@@ -1,3 +1,3 @@
 class Solution:
     def largest(self, nums):
-        pass
+        return max(nums)
```
"""


def test_mbpp_rows_as_published(tmp_path: Path, llm_server: LLMServer) -> None:
    llm_server.queue(MBPP_SIMILAR, MBPP_WRONG_PRIME)
    result = bench(
        tmp_path,
        llm_server,
        str(FIXTURES / "mbpp_tiny.jsonl"),
        "--format",
        "mbpp",
        "--yes",
        "--json",
    )
    assert result.returncode == 0, result.stderr
    by_name = {t["name"]: t for t in json.loads(result.stdout)["tasks"]}
    assert by_name["mbpp-2"]["status"] == "solved"
    assert by_name["mbpp-3"]["status"] == "failed"
    assert "AssertionError" in by_name["mbpp-3"]["reason"]
    # as in MBPP, the prompt shows the tests
    assert "assert is_not_prime(10) == True" in json.dumps(llm_server.requests[1].body)


def test_apps_rows_as_published(tmp_path: Path, llm_server: LLMServer) -> None:
    llm_server.queue(APPS_SUM, APPS_LARGEST)
    result = bench(tmp_path, llm_server, str(FIXTURES / "apps_tiny.jsonl"), "--yes", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert [t["status"] for t in data["tasks"]] == ["solved", "solved"], data
    assert data["summary"]["solved_pct"] == 100.0


def test_apps_wrong_output_fails(tmp_path: Path, llm_server: LLMServer) -> None:
    wrong = APPS_SUM.replace("print(a + b)", "print(a - b)")
    llm_server.queue(wrong)
    result = bench(
        tmp_path,
        llm_server,
        str(FIXTURES / "apps_tiny.jsonl"),
        "--only",
        "apps-4001",
        "--yes",
        "--json",
    )
    [task] = json.loads(result.stdout)["tasks"]
    assert task["status"] == "failed" and "case 1: expected" in task["reason"]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"name": "a", "files": {}, "test": "true"}', 'needs a "prompt"'),
        ('{"name": "a", "prompt": "p", "test": "true", "asserts": ["x"]}', "not both"),
        ('{"name": "a", "prompt": "p", "files": {"../x": ""}, "test": "true"}', "unsafe path"),
        ('{"name": "a", "prompt": "p", "files": {".git/config": ""}, "test": "t"}', "unsafe"),
        ('{"name": "a", "prompt": "p"', "not valid JSON"),
        ('["a"]', "must be a JSON object"),
    ],
)
def test_bad_task_files_name_the_line(
    tmp_path: Path, llm_server: LLMServer, line: str, message: str
) -> None:
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(example("fizzbuzz") + "\n\n" + line + "\n")
    result = bench(tmp_path, llm_server, str(tasks), "--yes")
    assert result.returncode == 2
    assert f"{tasks}:3" in result.stderr and message in result.stderr
    assert llm_server.requests == []


def test_refuses_to_run_code_unasked_and_needs_a_key(tmp_path: Path, llm_server: LLMServer) -> None:
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(example("fizzbuzz") + "\n")
    refused = bench(tmp_path, llm_server, str(tasks))
    assert refused.returncode == 2 and "refusing to run code" in refused.stderr
    no_key = bench(tmp_path, llm_server, str(tasks), "--yes", env={"OPENAI_API_KEY": ""})
    assert no_key.returncode == 4 and "OPENAI_API_KEY" in no_key.stderr
    unknown = bench(tmp_path, llm_server, str(tasks), "--yes", "--only", "nope")
    assert unknown.returncode == 2 and "no task named 'nope'" in unknown.stderr
    assert llm_server.requests == []


def test_bench_run_inside_a_repository_leaves_it_untouched(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    from tests.helpers.gitrepo import Snapshot, git, make_repo, write_files

    user = make_repo(tmp_path / "mine", {"a.py": "x = 1\n"})
    write_files(user, {"a.py": "x = 2\n", "new.txt": "untracked\n"})
    git(user, "add", "new.txt")
    before = Snapshot.take(user)
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(example("fizzbuzz") + "\n")
    llm_server.queue(FIZZ_DIFF)
    result = bench(user, llm_server, str(tasks), "--yes")
    assert result.returncode == 0, result.stderr
    before.assert_unchanged(user)
