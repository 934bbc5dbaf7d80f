"""A request about a boundary the answers missed: the comparisons' other strictness, tried.

Seen on the own tasks (ratelimit/window-boundary, inventory/low-stock-boundary,
ledger/statement-end-date): the 1.5B model wrote the function back unchanged in every run. A
candidate is taken only when the probe and the tests pass on it and on no other candidate.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from git_gpte.edit.boundary import asks_boundary, boundary_flips
from tests.conftest import run_gpte
from tests.helpers.gitrepo import Snapshot, git, make_repo
from tests.helpers.llm_server import LLMServer, self_hosted_env

LIMITER = '''\
"""A sliding window of calls."""


class Limiter:
    def __init__(self, limit, window, clock):
        self.limit, self.window, self.clock = limit, window, clock
        self.calls = []

    def _expire(self, now):
        cutoff = now - self.window
        while self.calls and self.calls[0] < cutoff:
            self.calls.pop(0)

    def allow(self):
        now = self.clock()
        self._expire(now)
        if len(self.calls) >= self.limit:
            return False
        self.calls.append(now)
        return True
'''
FIXED = LIMITER.replace("self.calls[0] < cutoff", "self.calls[0] <= cutoff")
FLIP = "`<` made `<=` in Limiter._expire (limiter.py:11)"  # the fix, as git-gpte says it
UNCHANGED = f"limiter.py\n```python\n{LIMITER}```\n"  # an answer writing it back as it was
# A probe that passes on the code before: it stands for nothing.
USELESS = "```python\nfrom limiter import Limiter\nassert Limiter(1, 1, None).limit == 1\n```"
TESTS = """\
from limiter import Limiter


def test_the_limit_holds():
    now = [0.0]
    limiter = Limiter(2, 10, lambda: now[0])
    assert limiter.allow() and limiter.allow()
    assert not limiter.allow()
"""
REQUEST = (
    "Limiter still counts a call made exactly `window` seconds ago, so allow() keeps "
    "refusing. A call that is `window` seconds old should no longer count; fix it."
)
# Made `>` in allow, the comparison lets this through too; the project's test tells them apart.
PROBE = """\
```python
from limiter import Limiter

now = [0.0]
limiter = Limiter(1, 10, lambda: now[0])
assert limiter.allow()
now[0] = 10.0
assert limiter.allow()
```
"""


def _repo(tmp_path: Path, module: str = LIMITER) -> Path:
    return make_repo(tmp_path / "lim", {"limiter.py": module, "tests/test_limiter.py": TESTS})


def _committed_fix(root: Path) -> str:
    """The branch improve made, whose limiter.py must be the fix."""
    branch = git(root, "branch", "--list", "gpte/*").strip(" *\n")
    assert git(root, "show", f"{branch}:limiter.py") == FIXED
    return branch


def _improve(root: Path, llm_server: LLMServer, *replies: str) -> subprocess.CompletedProcess[str]:
    """``improve REQUEST`` with no retry, the model answering ``replies`` in turn."""
    llm_server.queue(*replies)
    env = self_hosted_env(llm_server, GPTE_PROBE="")
    return run_gpte("improve", REQUEST, "--max-retries", "0", cwd=root, env=env, timeout=300)


def test_the_candidates_are_the_named_functions_comparisons_then_their_callees() -> None:
    flips = boundary_flips(REQUEST, {"limiter.py": LIMITER})
    assert [(f.function, f.old, f.new) for f in flips] == [
        ("Limiter.allow", ">=", ">"),
        ("Limiter._expire", "<", "<="),
    ]
    assert flips[1].text == FIXED
    assert flips[0].describe() == "`>=` made `>` in Limiter.allow (limiter.py:17)"
    # "allow" as a plain English word names nothing: no function, no candidate.
    assert boundary_flips("allow calls made exactly at the window", {"limiter.py": LIMITER}) == []


def test_only_a_request_about_a_boundary_is_searched() -> None:
    for request in (
        "An item whose stock is exactly at its reorder level is not treated as low.",
        "The period should include both its start and its end date.",
        "Ranges should be inclusive of the upper bound.",
        "page_count should return at least 1",
    ):
        assert asks_boundary(request), request
    for request in ("Add logging to allow()", "Rename allow to permit", "Add a docstring"):
        assert not asks_boundary(request), request


def test_a_boundary_the_answers_missed_is_found_by_the_probe_and_the_tests(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    root = _repo(tmp_path)
    before = Snapshot.take(root)
    done = _improve(root, llm_server, UNCHANGED, PROBE, PROBE)
    assert done.returncode == 0, done.stderr
    assert "trying the other strictness of 2 comparison(s)" in done.stderr
    assert f"{FLIP}: the probe and the checks pass" in done.stderr
    branch = _committed_fix(root)
    body = git(root, "log", "-1", "--format=%B", branch)
    assert "found by trying the comparisons of the functions the request names" in body
    before.assert_unchanged(root, new_branches=(branch,))


def test_two_candidates_the_checks_cannot_tell_apart_take_neither(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    # Without the test of the limit, `>` in allow passes the probe as well.
    root = make_repo(tmp_path / "lim", {"limiter.py": LIMITER})
    before = Snapshot.take(root)
    done = _improve(root, llm_server, UNCHANGED, PROBE, PROBE)
    assert done.returncode != 0
    assert "2 of them pass the checks, which cannot tell" in done.stderr
    assert git(root, "branch", "--list", "gpte/*").strip() == ""
    before.assert_unchanged(root)


# Stopped by the project's own error (no clock to call): asked again once, shown the tests' calls.
MISUSING = PROBE.replace("lambda: now[0]", "None")


def test_a_probe_asked_again_is_asked_once_for_all_the_candidates(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    root = _repo(tmp_path)
    done = _improve(root, llm_server, UNCHANGED, MISUSING, MISUSING, PROBE)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("asking again with the tests' calls of allow") == 1
    assert len(llm_server.requests) == 4
    _committed_fix(root)


def test_with_no_probe_standing_the_one_candidate_the_tests_allow_goes_out_not_verified(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    # `>` in allow breaks the project's test of the limit; `<=` in _expire is the only one left.
    root = _repo(tmp_path)
    before = Snapshot.take(root)
    done = _improve(root, llm_server, UNCHANGED, USELESS, USELESS)
    assert done.returncode == 1, done.stderr
    assert "no probe stands to judge them" in done.stderr
    assert f"{FLIP}: the only one the tests allow" in done.stderr
    assert "not verified" in done.stderr
    branch = _committed_fix(root)
    before.assert_unchanged(root, new_branches=(branch,))


# Seen with the 1.5B model: a first call asserted refused, on a fresh limiter. It fails on the
# code before and on every candidate alike.
WRONG_PROBE = """\
```python
from limiter import Limiter

now = [0.0]
limiter = Limiter(1, 10, lambda: now[0])
assert not limiter.allow()
```
"""


def test_a_probe_failing_on_every_candidate_leaves_the_choice_to_the_tests(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    root = _repo(tmp_path)
    done = _improve(root, llm_server, UNCHANGED, WRONG_PROBE, WRONG_PROBE)
    assert done.returncode == 1, done.stderr
    assert "the probe fails on every one of them: it cannot tell them apart" in done.stderr
    assert "the only one the tests allow" in done.stderr
    _committed_fix(root)


def test_with_no_probe_and_tests_that_allow_two_candidates_none_is_taken(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    # A test that never reaches the limit: both comparisons pass it.
    lenient = TESTS.replace(
        "assert limiter.allow() and limiter.allow()\n    assert not limiter.allow()",
        "assert limiter.allow()",
    )
    assert lenient != TESTS
    root = make_repo(tmp_path / "lim", {"limiter.py": LIMITER, "tests/test_limiter.py": lenient})
    before = Snapshot.take(root)
    done = _improve(root, llm_server, UNCHANGED, USELESS, USELESS)
    assert done.returncode != 0
    assert "the tests pass on 2 of them, so they cannot tell: none taken" in done.stderr
    assert git(root, "branch", "--list", "gpte/*").strip() == ""
    before.assert_unchanged(root)


PERIOD = """\
def in_period(items, start, end):
    if end < start:
        raise ValueError("the period ends before it starts")
    return [item for item in items if start <= item < end]
"""
PERIOD_TESTS = """\
from period import in_period


def test_in_period():
    assert in_period([2, 3, 7], 1, 4) == [2, 3]
"""
INCLUDE = "in_period() leaves out items on the last day: the period should include both its ends."


def test_a_request_to_include_takes_only_the_comparison_that_lets_more_in(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    # The tests pass on all three flips (ledger/statement-end-date); two of them let less in:
    # `end <= start` raises for more periods, `start < item` drops the first day.
    root = make_repo(tmp_path / "p", {"period.py": PERIOD, "tests/test_period.py": PERIOD_TESTS})
    useless = "```python\nfrom period import in_period\nassert in_period([], 1, 2) == []\n```"
    llm_server.queue(f"period.py\n```python\n{PERIOD}```\n", useless, useless)
    env = self_hosted_env(llm_server, GPTE_PROBE="")
    done = run_gpte("improve", INCLUDE, "--max-retries", "0", cwd=root, env=env, timeout=300)
    assert done.returncode == 1, done.stderr
    assert "trying the other strictness of 1 comparison(s)" in done.stderr
    assert "`<` made `<=` in in_period (period.py:4): the only one the tests allow" in done.stderr
    branch = git(root, "branch", "--list", "gpte/*").strip(" *\n")
    fixed = PERIOD.replace("item < end", "item <= end")
    assert git(root, "show", f"{branch}:period.py") == fixed
