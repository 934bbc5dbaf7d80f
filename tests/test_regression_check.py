"""``--check auto``: the project's own tests check the result, failing it only on what it breaks.

Unit tests of the pure parts (which command, which tests failed, what counts as a regression),
then the CLI against the scripted server with a self-hosted model, whose default it is: a wrong
result that breaks a passing test goes back to the model; a test already failing on the base is
not the result's fault; a result that keeps breaking tests is not committed.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from git_gpte.pipeline.regression import (
    PYTEST,
    Baseline,
    baseline_of,
    failed_tests,
    regressions,
    suite_command,
)
from git_gpte.run import RunResult
from tests.conftest import run_gpte
from tests.helpers.gitrepo import Snapshot, git, make_repo
from tests.helpers.llm_server import LLMServer, self_hosted_env

SUMMARY = """\
..F.E                                                                    [100%]
=========================== short test summary info ============================
FAILED tests/test_stats.py::test_mean - AssertionError: assert 2.0 == 2.5
FAILED tests/test_stats.py::test_ids[a b] - ValueError
ERROR tests/test_io.py - ModuleNotFoundError: No module named 'yaml'
1 failed, 3 passed, 1 error in 0.12s
"""


def result(code: int, output: str = "", *, timed_out: bool = False) -> RunResult:
    return RunResult(code, timed_out, 1.5, output, len(output), False, PYTEST)


def test_python_test_files_are_run_with_pytest() -> None:
    assert suite_command(["stats.py", "tests/test_stats.py"]) == PYTEST
    assert suite_command(["stats.py", "stats_test.py"]) == PYTEST
    assert suite_command(["stats.py", "tests/__init__.py", "README.md"]) is None
    assert suite_command(["main.go", "main_test.go"]) is None


def test_the_short_summary_names_the_failed_tests() -> None:
    assert failed_tests(SUMMARY) == {
        "tests/test_stats.py::test_mean",
        "tests/test_stats.py::test_ids[a b]",
        "tests/test_io.py",
    }
    assert failed_tests("3 passed in 0.01s\n") == frozenset()


def test_a_base_where_tests_cannot_run_is_no_baseline() -> None:
    assert baseline_of(result(0, "3 passed")) == Baseline(frozenset(), 1.5)
    assert baseline_of(result(1, SUMMARY)) == Baseline(failed_tests(SUMMARY), 1.5)
    assert "without listing" in str(baseline_of(result(1, "No module named pytest")))
    assert "before running" in str(baseline_of(result(5, "no tests ran")))
    assert "took over" in str(baseline_of(result(-9, "", timed_out=True)))


def test_only_tests_passing_on_the_base_count() -> None:
    base = Baseline(frozenset({"tests/test_stats.py::test_mean"}))
    assert regressions(base, result(0)) is None
    assert regressions(base, result(1, "FAILED tests/test_stats.py::test_mean - x")) is None
    broke = "FAILED tests/test_stats.py::test_mean - x\nFAILED tests/test_stats.py::test_max\n"
    assert regressions(base, result(1, broke)) == ["tests/test_stats.py::test_max"]
    assert regressions(base, result(-9, "", timed_out=True)) == [
        "the test run timed out after 1.5 s (its process group was killed)"
    ]
    assert regressions(base, result(3, "INTERNALERROR")) == ["the test run exited with code 3"]
    # a generous timeout, never the whole configured limit for a suite of seconds
    assert Baseline(frozenset(), 2.0).timeout(600.0) == 60.0
    assert Baseline(frozenset(), 100.0).timeout(600.0) == 500.0


STATS = """\
def mean(values):
    return sum(values) / len(values)


def largest(values):
    return max(values)
"""

TESTS = """\
from stats import largest, mean


def test_mean():
    assert mean([1, 2, 3]) == 2


def test_largest():
    assert largest([1, 5, 3]) == 5
"""

# "return 0 for an empty list" done wrong: mean now divides by one too many. (The change is
# to the function the request names: a changed function it does not name would be put back as
# it was when the tests fail, see test_collateral_cli.py, and no retry asked.)
WRONG = """\
```python
def mean(values):
    if not values:
        return 0
    return sum(values) / (len(values) + 1)


def largest(values):
    return max(values)
```
"""

RIGHT = WRONG.replace("(len(values) + 1)", "len(values)")

PROMPT = "make mean return 0 for an empty list"


local_env = self_hosted_env


def improve(repo: Path, server: LLMServer, *args: str) -> tuple[int, str, str]:
    done = run_gpte("improve", PROMPT, *args, cwd=repo, env=local_env(server), timeout=300)
    return done.returncode, done.stdout, done.stderr


@pytest.fixture
def stats(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "stats", {"stats.py": STATS, "tests/test_stats.py": TESTS})


def test_a_result_breaking_a_passing_test_goes_back(stats: Path, llm_server: LLMServer) -> None:
    before = Snapshot.take(stats)
    llm_server.queue(WRONG, RIGHT)
    code, out, err = improve(stats, llm_server, "stats.py", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["attempts"] == 2 and data["checked"] is True and data["check"] == "auto"
    assert git(stats, "show", f"{data['branch']}:stats.py") == RIGHT.split("```python\n")[1][:-4]
    retry = llm_server.requests[1].body["messages"][-1]["content"]
    assert "tests/test_stats.py::test_mean" in retry and "pass before your edits" in retry
    assert "test_largest" not in retry.split("fail after them:")[1].split("\n")[0]
    # the edit's own diff: the line it removed is what the failing test needs
    diff = retry.split("```diff\n")[1].split("```")[0]
    assert "-    return sum(values) / len(values)\n" in diff
    assert "+    return sum(values) / (len(values) + 1)" in diff
    assert diff.startswith("--- a/stats.py\n+++ b/stats.py")
    before.assert_unchanged(stats, new_branches=(data["branch"],))


def test_the_edits_diff_is_capped() -> None:
    from git_gpte.prompts.messages import DIFF_LINES, edits_diff

    before = {"a.py": "x = 1\n", "b.py": "".join(f"v{i} = {i}\n" for i in range(200))}
    after = {"a.py": "x = 1\n", "b.py": "".join(f"v{i} = {i + 1}\n" for i in range(200))}
    assert edits_diff(before, {"a.py": "x = 1\n"}) == ""
    lines = edits_diff(before, after).splitlines()
    assert len(lines) == DIFF_LINES + 1 and lines[0] == "--- a/b.py"
    assert lines[-1].startswith("... (") and "more line(s) of the diff not shown" in lines[-1]


def test_a_result_that_keeps_breaking_tests_is_not_committed(
    stats: Path, llm_server: LLMServer
) -> None:
    before = Snapshot.take(stats)
    llm_server.queue(WRONG, WRONG)
    code, _out, err = improve(stats, llm_server, "stats.py", "--max-retries", "1")
    assert code == 8, err
    assert "running the project's tests on the base" in err
    assert err.strip().splitlines()[-1] == (
        "git-gpte: error: nothing committed: the result still fails the project's tests after "
        "2 attempt(s): Tests that pass before your edits fail after them: "
        "tests/test_stats.py::test_mean. (--keep-failing commits it anyway, with exit code 1)"
    )
    assert "--keep-failing" in err
    before.assert_unchanged(stats)


def test_no_check_commits_what_the_model_wrote(stats: Path, llm_server: LLMServer) -> None:
    llm_server.queue(WRONG)
    code, out, err = improve(stats, llm_server, "stats.py", "--json", "--no-check")
    assert code == 0, err
    assert json.loads(out)["checked"] is False and "project's tests" not in err


def test_a_test_failing_on_the_base_is_not_the_results_fault(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    failing = TESTS + "\n\ndef test_not_written_yet():\n    assert False\n"
    repo = make_repo(tmp_path / "stats", {"stats.py": STATS, "tests/test_stats.py": failing})
    llm_server.queue(RIGHT)
    code, out, err = improve(repo, llm_server, "stats.py")
    assert code == 0, err
    assert "no test that passed before fails" in err and len(llm_server.requests) == 1
    assert "the result passes the project's tests" in out
    assert "not checked" not in out


def test_the_checkout_is_imported_not_an_installed_copy(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    """A src/ layout: the tests import the package from the worktree being checked."""
    tests = TESTS.replace("from stats import", "from stat_tools.stats import")
    repo = make_repo(
        tmp_path / "proj",
        {
            "src/stat_tools/__init__.py": "",
            "src/stat_tools/stats.py": STATS,
            "tests/test_stats.py": tests,
        },
    )
    llm_server.queue(WRONG.replace("```python", "src/stat_tools/stats.py\n```python"))
    code, _out, err = improve(repo, llm_server, "src/stat_tools/stats.py", "--max-retries", "0")
    assert code == 8, err
    assert "test_mean" in err


def test_without_pytest_the_check_says_it_is_off(stats: Path, llm_server: LLMServer) -> None:
    llm_server.queue(WRONG)
    env = {**local_env(llm_server), "PATH": _path_without_pytest(stats)}
    done = run_gpte("improve", PROMPT, "stats.py", cwd=stats, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "not checking the result with the project's tests" in done.stderr
    assert "project's tests" not in done.stdout  # nothing judged it: not said to pass
    llm_server.queue(WRONG)
    done = run_gpte("improve", PROMPT, "stats.py", "--json", cwd=stats, env=env, timeout=300)
    data = json.loads(done.stdout)
    assert data["checked"] is False and data["check"] == "auto"


def _path_without_pytest(where: Path) -> str:
    """A PATH whose python3 has no pytest: an interpreter of its own, isolated (-I)."""
    folder = where.parent / "bin"
    folder.mkdir()
    shim = folder / "python3"
    shim.write_text(f'#!/bin/sh\nexec {sys.executable} -I -S "$@"\n')
    shim.chmod(0o755)
    return f"{folder}{os.pathsep}/usr/bin{os.pathsep}/bin"


# A fixture every test uses, and the helper it calls: one wrong edit fails them all with the
# same traceback under each test's name.
FIXTURE_TESTS = """\
import pytest

from stats import largest, mean


@pytest.fixture
def numbers():
    return [mean([5, 5])] * 3

"""
FIXTURE_TESTS += "".join(
    f"\n\ndef test_{n}(numbers):\n    assert largest(numbers) == 5\n" for n in range(6)
)
RAISES = WRONG.replace("return sum(values) / (len(values) + 1)", 'raise ValueError("no values")')


def test_a_repeated_traceback_is_shown_once() -> None:
    from git_gpte.run.pytest_output import condense

    one = "tests/t.py:5: in numbers\n    return largest(x)\nE   ValueError: no values\n"
    report = (
        "EEE                                                       [100%]\n"
        "==================================== ERRORS ====================================\n"
        + "".join(
            f"_______________ ERROR at setup of test_{n} _______________\n{one}" for n in range(3)
        )
        + "_______________ test_other _______________\n"
        + "tests/t.py:9: in test_other\nE   assert 1 == 2\n"
        + "=========================== short test summary info ============================\n"
        + "".join(f"ERROR tests/t.py::test_{n} - ValueError: no values\n" for n in range(3))
    )
    shown = condense(report)
    assert shown.count("E   ValueError: no values") == 1 and shown.count("E   assert 1 == 2") == 1
    assert (
        "[the same traceback for 2 more: ERROR at setup of test_1, ERROR at setup of test_2]"
        in shown
    )
    assert all(f"ERROR tests/t.py::test_{n} - " in shown for n in range(3))  # the summary stays
    assert condense(shown) == shown and condense("no report here\n") == "no report here\n"


def test_the_retry_shows_a_fixtures_traceback_once(tmp_path: Path, llm_server: LLMServer) -> None:
    repo = make_repo(tmp_path / "stats", {"stats.py": STATS, "tests/test_stats.py": FIXTURE_TESTS})
    llm_server.queue(RAISES, RIGHT)
    code, out, err = improve(repo, llm_server, "stats.py", "--json")
    assert code == 0, err
    assert json.loads(out)["attempts"] == 2
    retry = llm_server.requests[1].body["messages"][-1]["content"]
    assert retry.count("E   ValueError: no values") == 1
    assert "[the same traceback for 5 more: ERROR at setup of test_1," in retry
    assert "ERROR tests/test_stats.py::test_5 - ValueError" in retry


def test_options_of_a_plugin_not_installed_do_not_turn_the_check_off(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    # tqdm's addopts name pytest-asyncio's --asyncio-mode: where the plugin is not installed
    # pytest exits with code 4 before running a test, and the check had been turned off.
    ini = '[tool.pytest.ini_options]\naddopts = "--made-up-plugin-mode=strict"\n'
    repo = make_repo(
        tmp_path / "stats",
        {"stats.py": STATS, "tests/test_stats.py": TESTS, "pyproject.toml": ini},
    )
    llm_server.queue(WRONG, RIGHT)
    code, out, err = improve(repo, llm_server, "stats.py", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["attempts"] == 2 and data["checked"] is True
    assert git(repo, "show", f"{data['branch']}:stats.py") == RIGHT.split("```python\n")[1][:-4]
    retry = llm_server.requests[1].body["messages"][-1]["content"]
    assert "tests/test_stats.py::test_mean" in retry
