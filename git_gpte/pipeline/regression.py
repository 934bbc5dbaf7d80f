"""``--check auto``: the project's own tests, failing a result only on what it breaks.

A small model's most common wrong result compiles, defines every name and does the wrong thing
(``None`` where ``[]`` was asked, a boundary moved); only running code sees it. The user's
``--check CMD`` does, when they give one. With none given, the tests the repository already has
are the next best yardstick — but they may already fail on the base (a missing service, a test
the user is still writing), and a result is not to be blamed for that. So the tests run twice
in temporary worktrees, on the base once and on each result, and a result fails only when a test
that passed on the base fails (or errors) on it. That is what a reviewer means by "it broke the
tests".

Python projects with tracked test files are run with pytest, the interpreter on ``PATH`` (the
user's active environment, which has the project's dependencies), the worktree first on the
import path so an editable install of the user's checkout does not answer for the result. A base
on which pytest cannot run at all (not installed, no tests collected, a timeout) turns the check
off with one line saying so: it cannot tell a regression from the way things are.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from ..config import Settings
from ..edit.pycheck import Problem
from ..git import FileChange, Repository, build_commit, format_message
from ..run import RunCommand, RunOptions, RunResult, run_commit
from ..ui import Console

AUTO = "auto"

# -rfE lists every failed and erroring test by id at the end (the part of the output a capped
# tail keeps); short tracebacks (the failing line and its error) leave a small model's window
# for the code; collection errors in one module do not stop the others from running.
PYTEST = "python3 -m pytest -q --tb=short -rfE -p no:cacheprovider --continue-on-collection-errors"

# pytest's exit code for a command line it cannot use. The usual cause is the project's own
# ``addopts`` naming options of plugins this environment lacks (``--asyncio-mode``, ``--cov``,
# ``-n auto``: tqdm's suite exits so where pytest-asyncio is not installed, before running any
# of its 154 tests). The base is then run once more with ``addopts`` cleared; the tests, not
# the options, are what judges a result.
USAGE_ERROR = 4
WITHOUT_ADDOPTS = f"{PYTEST} -o addopts="

# The base run decides whether the check is usable at all; a suite slower than this is one the
# user should name (``--check``) with the part of it worth waiting for.
BASE_TIMEOUT = 300.0

# pytest's short summary: "FAILED tests/test_a.py::test_x - AssertionError: ...",
# "ERROR tests/test_b.py - ImportError ...".
_SUMMARY = re.compile(r"^(?:FAILED|ERROR) (\S.*?)(?: - .*)?$")

# pytest's exit codes that mean the tests ran: all passed, some failed, collection errors.
_RAN = (0, 1, 2)


def suite_command(tracked: Iterable[str]) -> str | None:
    """The command that runs the project's tests, when the files say how: Python test files
    (``test_*.py``, ``*_test.py``, ``conftest.py``) → pytest. None otherwise."""
    from ..context.languages import is_test

    for path in tracked:
        name = path.rsplit("/", 1)[-1]
        if name.endswith(".py") and is_test(path) and name not in ("__init__.py", "setup.py"):
            return PYTEST
    return None


def failed_tests(output: str) -> frozenset[str]:
    """The ids pytest's short summary lists as failed or erroring."""
    found = set()
    for line in output.splitlines():
        match = _SUMMARY.match(line.rstrip())
        if match:
            found.add(match.group(1).strip())
    return frozenset(found)


@dataclass(frozen=True)
class Baseline:
    """What the tests did on the base: ``failing`` the ids that already fail there."""

    failing: frozenset[str]
    seconds: float = 0.0  # how long the base run took: a result's run gets a few times that

    def timeout(self, limit: float) -> float:
        """Time for a result's run: ample for the same suite, short of waiting out a loop the
        edit introduced for the whole configured limit."""
        return min(limit, max(60.0, 5 * self.seconds))


def baseline_of(result: RunResult) -> Baseline | str:
    """The base run as a baseline, or why it cannot be one (a reason in a few words)."""
    if result.timed_out:
        return f"they took over {BASE_TIMEOUT:.0f} s"
    if result.exit_code not in _RAN:
        return f"{result.status_text()} before running any test"
    failing = failed_tests(result.output_tail)
    if result.exit_code and not failing:
        return f"{result.status_text()} without listing a failed test"
    return Baseline(failing, result.duration)


def regressions(baseline: Baseline, result: RunResult) -> list[str] | None:
    """The tests that pass on the base and fail on the result (None: none). A run that fails
    without naming a test (it timed out, crashed, pytest itself failed) is one regression,
    described by how it ended."""
    if result.success:
        return None
    if result.timed_out or result.exit_code not in _RAN:
        return [f"the test run {result.status_text()}"]
    failing = failed_tests(result.output_tail)
    if not failing:
        return [f"the test run {result.status_text()}"]
    new = sorted(failing - baseline.failing)
    return new or None


def regression_problem(new: list[str], result: RunResult) -> Problem:
    """The failure as the model and the user see it: what broke (its first line is the
    refusal's one line), then pytest's own words."""
    shown = ", ".join(new[:5]) + (f" (and {len(new) - 5} more)" if len(new) > 5 else "")
    return Problem(
        "check",
        "",
        None,
        f"Tests that pass before your edits fail after them: {shown}.\n"
        "Make them pass again (change a test only if the request changes what it checks).\n"
        f"{result.feedback_text()}",
    )


@dataclass(frozen=True)
class OnBase:
    """Runs ``options``' command on the base, or on the base with changes laid over it (a
    commit no ref points at), in a temporary worktree, the checkout first on the import path
    (see import_path_first): how the project's tests and the probe judge a result."""

    repo: Repository
    options: RunOptions
    base: str
    identity: tuple[str, str]

    def run(self, changes: list[FileChange], timeout: float) -> RunResult:
        """The run on base + ``changes`` (none: the base itself), within ``timeout`` seconds
        and the configured limit."""
        commit = self.base
        if changes:
            message = format_message("git-gpte: the result being checked", "")
            commit = build_commit(self.repo, self.base, changes, message, identity=self.identity)
        timed = replace(self.options, timeout=min(self.options.timeout, timeout))
        return run_commit(self.repo, commit, timed, environ=import_path_first(os.environ))


class RegressionCheck:
    """A :data:`Verify` failing results that break tests passing on the base. The base runs
    once, on the first result to check (a reply that fails cheaper checks costs no test run);
    ``off`` says why the tests could not judge, once the base showed it."""

    def __init__(
        self,
        repo: Repository,
        options: RunOptions,
        base: str,
        identity: tuple[str, str],
        console: Console,
    ) -> None:
        self.runner = OnBase(repo, options, base, identity)
        self.options, self.console = options, console
        self.baseline: Baseline | None = None
        self.off: str | None = None

    def judged_by(self) -> list[str]:
        """The tests, once they ran on a result (and so judged it)."""
        return ["the project's tests"] if self.baseline is not None else []

    def __call__(self, changes: list[FileChange]) -> list[Problem]:
        baseline = self._baseline()
        if baseline is None:
            return []
        self.console.info("running the project's tests on the result")
        result = self.runner.run(changes, baseline.timeout(self.options.timeout))
        new = regressions(baseline, result)
        if new is None:
            self.console.info("no test that passed before fails")
            return []
        self.console.info(f"tests that passed before fail: {', '.join(new[:3])}")
        return [regression_problem(new, result)]

    def _baseline(self) -> Baseline | None:
        if self.baseline is None and self.off is None:
            self.console.info(
                f"running the project's tests on the base: {self.options.command.display}"
            )
            result = self.runner.run([], BASE_TIMEOUT)
            found = baseline_of(result)
            if isinstance(found, str) and self._options_refused(result):
                found = self._without_addopts(found)
            if isinstance(found, str):
                self.off = found
                self.console.info(f"not checking the result with the project's tests: {found}")
            else:
                self.baseline = found
        return self.baseline

    def _options_refused(self, result: RunResult) -> bool:
        return (
            not result.timed_out
            and result.exit_code == USAGE_ERROR
            and self.options.command.display == PYTEST
        )

    def _without_addopts(self, why: str) -> Baseline | str:
        """The base run again with the project's ``addopts`` cleared; kept for the results'
        runs when the tests then run (else ``why`` the first run could not be used)."""
        plain = replace(self.options, command=RunCommand.shell(WITHOUT_ADDOPTS, source="auto"))
        runner = replace(self.runner, options=plain)
        self.console.info(
            f"the tests {why}; running them again without the project's pytest addopts "
            "(plugins it names may not be installed)"
        )
        found = baseline_of(runner.run([], BASE_TIMEOUT))
        if isinstance(found, str):
            return why
        self.runner, self.options = runner, plain
        return found


def regression_check(
    repo: Repository,
    settings: Settings,
    base: str,
    identity: tuple[str, str],
    console: Console,
) -> RegressionCheck | None:
    """The check of ``base``'s results by the project's own tests; None when the project has
    no tests git-gpte knows how to run."""
    command = suite_command(entry.path for entry in repo.tree_entries(base))
    if command is None:
        return None
    options = RunOptions.resolve(settings, command=command)
    options.environment().check()
    return RegressionCheck(repo, options, base, identity, console)


def import_path_first(environ: Mapping[str, str]) -> dict[str, str]:
    """The environment with the checkout (and its ``src/``) ahead on the import path: an
    editable install of the user's own checkout would otherwise answer for the result."""
    paths = ["src", "."]
    current = environ.get("PYTHONPATH", "")
    return {**environ, "PYTHONPATH": os.pathsep.join([*paths, current] if current else paths)}
