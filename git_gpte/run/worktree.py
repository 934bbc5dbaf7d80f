"""A throw-away checkout of one commit, so the program under test never sees the user's files.

``git worktree add --detach`` into a fresh temporary directory, locked while in use so a
concurrent ``git worktree prune`` leaves it alone; afterwards ``git worktree remove --force``,
the directory deleted, and ``git worktree prune`` — also when the run fails, raises, or is
interrupted with Ctrl-C. Hooks are disabled for the checkout: creating a scratch worktree is
not a checkout the user's ``post-checkout`` hook was written for.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ..errors import GitCommandError, RunError
from ..git.repo import Repository
from ..git.worktree import add_worktree, prune_worktrees
from ..git.worktree import remove_worktree as git_remove_worktree
from ..signals import deferred


@contextlib.contextmanager
def temporary_worktree(repo: Repository, commit: str) -> Iterator[Path]:
    """Yield the path of a detached worktree of ``commit``; remove every trace afterwards."""
    parent = Path(tempfile.mkdtemp(prefix="gpte-run-"))
    path = parent / f"wt-{commit[:12]}"
    try:
        add_worktree(repo, path, commit, "git-gpte run in progress")
    except GitCommandError as exc:
        _remove_tree(parent)
        _prune(repo)
        raise RunError(
            f"cannot create a temporary worktree of {commit[:12]}: {exc.message}"
        ) from None
    try:
        yield path
    finally:
        with deferred():
            remove_worktree(repo, path)
            _remove_tree(parent)


def remove_worktree(repo: Repository, path: Path) -> None:
    """Unregister and delete one worktree, falling back to deleting it by hand and pruning."""
    try:
        # Twice --force: the worktree is locked, and the run may have left untracked files.
        git_remove_worktree(repo, path)
    except GitCommandError:
        _remove_tree(path)
    _prune(repo)


def _prune(repo: Repository) -> None:
    prune_worktrees(repo)


def _remove_tree(path: Path) -> None:
    """``rm -rf``, including read-only files and directories a build may have left."""

    def make_writable(func: Callable[..., Any], target: str, _exc: Any) -> None:
        with contextlib.suppress(OSError):
            os.chmod(os.path.dirname(target), stat.S_IRWXU)
            os.chmod(target, stat.S_IRWXU)
            func(target)

    if path.exists() or path.is_symlink():
        shutil.rmtree(path, onerror=make_writable)
