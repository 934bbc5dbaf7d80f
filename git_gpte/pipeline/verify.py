"""``--check CMD``: the user's own check, run on the edited result before it is committed.

The result is built as a commit object no ref points at (the base plus the edits) and the
command runs in a temporary worktree of it, through the execution layer (scrubbed environment,
timeout, process group killed): the user's checkout is never touched. A failure is a problem
like a refused hunk: its output goes back to the model.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable

from ..config import Settings
from ..edit.pycheck import Problem
from ..git import FileChange, Repository, build_commit, format_message
from ..ui import Console
from .edit_loop import Verify


def judged_by(verify: Verify | None) -> list[str]:
    """What judged the results, in words for the user ("the project's tests", "the probe"):
    a check that keeps that account has ``judged_by()`` (the project's tests may have turned
    themselves off on the base, the probe may have been dropped); one without (the user's
    command) always judges."""
    if verify is None:
        return []
    own = getattr(verify, "judged_by", None)
    return list(own()) if callable(own) else ["--check"]


def files_the_check_runs(command: str, tracked: Iterable[str]) -> frozenset[str]:
    """The test files ``command`` names: a tracked test file, a directory of them, or pytest's
    ``file::test``. They are the yardstick of the result, so the model is not to change them
    (a check passed by rewriting its tests is no check). A command that names none (``make
    test``) protects nothing."""
    try:
        words = shlex.split(command)
    except ValueError:
        return frozenset()
    from ..context.languages import is_test

    paths = [p for p in tracked if is_test(p)]
    named: set[str] = set()
    for word in words:
        if word.startswith("-"):
            continue
        target = word.split("::", 1)[0].removeprefix("./").rstrip("/")
        if not target:
            continue
        named.update(p for p in paths if p == target or p.startswith(target + "/"))
    return frozenset(named)


def check_command(
    repo: Repository,
    settings: Settings,
    base: str,
    command: str,
    identity: tuple[str, str],
    console: Console,
    timeout: float | None = None,
) -> Verify:
    """A :data:`Verify` that runs ``command`` (a shell command) on base + the edits."""
    from ..run import RunOptions, run_commit

    options = RunOptions.resolve(settings, command=command, timeout=timeout)
    options.environment().check()  # an unusable environment is one clear line, before asking

    def verify(changes: list[FileChange]) -> list[Problem]:
        message = format_message("git-gpte: the result being checked", "")
        commit = build_commit(repo, base, changes, message, identity=identity)
        console.info(f"checking the result: {command}")
        result = run_commit(repo, commit, options)
        if result.success:
            console.info("check passed")
            return []
        console.info(f"check failed: {result.status_text()}")
        return [
            Problem(
                "check",
                "",
                None,
                f"The check `{command}` fails on the result ({result.status_text()}). "
                f"Its output:\n{result.feedback_text()}",
            )
        ]

    return verify
