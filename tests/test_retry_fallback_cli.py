"""A retry that breaks the project's tests is dropped: ``git gpte improve`` goes back to the
result before it, through the CLI against the scripted server.

The replies reproduce what a real 1.5B code model answered (bench/solve.py,
textstats/empty-text): asked to make three functions return 0.0 on an empty text, it changed
two; asked for the third, it made it return a tuple, and the tests failed from then on.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run_gpte
from tests.helpers.gitrepo import Snapshot, git, make_repo
from tests.helpers.llm_server import LLMServer

STATS = """\
def words(text):
    return text.split()


def average(text):
    ws = words(text)
    return sum(len(w) for w in ws) / len(ws)


def score(text):
    ws = words(text)
    return round(100 - 10 * sum(len(w) for w in ws) / len(ws), 1)
"""

TESTS = """\
import stats


def test_score():
    assert stats.score("ab cd") == 80.0
"""

AVERAGE_DONE = STATS.replace(
    "    ws = words(text)\n    return sum",
    "    ws = words(text)\n    if not ws:\n        return 0.0\n    return sum",
)

SCORE_TUPLE = AVERAGE_DONE.replace(
    "    return round(100",
    "    if not ws:\n        return 0.0, 0\n    return round(100",
).replace("/ len(ws), 1)", "/ len(ws), 1), len(ws)")

BOTH_DONE = AVERAGE_DONE.replace(
    "    return round(100", "    if not ws:\n        return 0.0\n    return round(100"
)

REQUEST = "Make average and score return 0.0 when the text has no words."


def _whole(text: str) -> str:
    return f"stats.py\n```python\n{text}```\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "stats", {"stats.py": STATS, "tests/test_stats.py": TESTS})


def _improve(repo: Path, server: LLMServer, *args: str) -> tuple[int, str]:
    env = {
        "OPENAI_BASE_URL": server.openai_base_url,
        "MODEL_NAME": "local-model",
        "PYTHONPATH": ".",
    }
    result = run_gpte("improve", REQUEST, "--no-probe", *args, cwd=repo, env=env)
    return result.returncode, result.stdout + result.stderr


def test_a_retry_that_breaks_tests_is_asked_again_from_the_result_before_it(
    project: Path, llm_server: LLMServer
) -> None:
    assert SCORE_TUPLE != AVERAGE_DONE and BOTH_DONE != AVERAGE_DONE
    llm_server.queue(_whole(AVERAGE_DONE), _whole(SCORE_TUPLE), _whole(BOTH_DONE))
    code, said = _improve(project, llm_server, "-b", "empty")
    assert code == 0, said
    assert "the answer broke tests the result before it passed: asking again" in said
    assert git(project, "show", "empty:stats.py") == BOTH_DONE
    second, third = (r.body["messages"] for r in llm_server.requests[1:3])
    # The dropped answer's retry is the one asked before it, and says what the answer broke.
    assert third[:-1] == second[:-1]
    assert third[-1]["content"].startswith(second[-1]["content"].rstrip())
    dropped = third[-1]["content"][len(second[-1]["content"].rstrip()) :]
    assert "An answer to this was not kept" in dropped
    assert "tests/test_stats.py::test_score" in dropped
    assert "E " in dropped  # pytest's own words of what failed


def test_with_no_attempt_left_the_result_before_the_broken_one_is_what_is_said(
    project: Path, llm_server: LLMServer
) -> None:
    before = Snapshot.take(project)
    llm_server.queue(_whole(AVERAGE_DONE), _whole(SCORE_TUPLE))
    code, said = _improve(project, llm_server, "--max-retries", "1")
    assert code == 6, said  # a request not done, not the tests the last answer broke
    assert "the last answer broke tests: keeping the result before it" in said
    assert "score is as it was" in said
    before.assert_unchanged(project)
