"""Linked worktrees: a scratch checkout of one commit, and its removal."""

from __future__ import annotations

import contextlib
from pathlib import Path

from ..errors import GitCommandError
from .repo import Repository

# Creating a scratch worktree is not a checkout the user's post-checkout hook was written for.
_NO_HOOKS = ("-c", "core.hooksPath=/dev/null")


def add_worktree(repo: Repository, path: Path, commit: str, reason: str) -> None:
    """A detached worktree of ``commit`` at ``path``, locked (with ``reason``) so a concurrent
    ``git worktree prune`` leaves it alone. Raises GitCommandError."""
    repo._git(
        *_NO_HOOKS, "worktree", "add", "--detach", "--lock", "--reason", reason, str(path), commit
    )


def remove_worktree(repo: Repository, path: Path) -> None:
    """Unregister and delete a (locked, possibly dirty) worktree. Raises GitCommandError."""
    repo._git("worktree", "remove", "--force", "--force", str(path))


def prune_worktrees(repo: Repository) -> None:
    """Forget worktrees whose directories are gone (never fails)."""
    with contextlib.suppress(GitCommandError):
        repo._git("worktree", "prune")
