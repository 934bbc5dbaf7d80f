"""The two times git-gpte moves the user's checkout, both only when asked or when nothing can
be lost: ``improve --checkout`` switching to the new branch, and ``init`` filling the index and
work tree of a repository's very first commit (as ``git clone`` would)."""

from __future__ import annotations

from pathlib import Path

from ..errors import GitCommandError
from .repo import Repository


def switch_branch(repo: Repository, branch: str, worktree_commit: str | None = None) -> None:
    """Switch to ``branch`` the way git would, refusing (GitCommandError) rather than touching
    local work.

    With ``worktree_commit`` (``--from-worktree``) the branch's first commit *is* the user's
    uncommitted work, which ``git switch`` would see as local changes in the way; then the
    switch is made with plumbing from that commit to the branch tip, after checking the work
    tree still matches it; the index is restored if anything fails.
    """
    repo.forget_head()
    if worktree_commit is None:
        repo._git("switch", "--quiet", branch)
        return
    index = Path(repo._git("rev-parse", "--path-format=absolute", "--git-path", "index"))
    saved = index.read_bytes() if index.exists() else None
    try:
        repo._git("read-tree", worktree_commit)
        # read-tree leaves no stat data: refresh it, so diff-files lists only real differences.
        repo._git_ok("update-index", "-q", "--refresh")
        changed = repo._git("diff-files", "--name-only")
        if changed:
            raise GitCommandError(
                f"the work tree changed while the model was answering ({changed.splitlines()[0]})"
            )
        repo._git("read-tree", "-m", "-u", worktree_commit, f"refs/heads/{branch}")
    except GitCommandError:
        if saved is not None:
            index.write_bytes(saved)
        raise
    repo._git("symbolic-ref", "-m", "git-gpte improve --checkout", "HEAD", f"refs/heads/{branch}")


def check_out_first_commit(repo: Repository, branch: str, commit: str) -> bool:
    """Put the repository's first commit in the index and work tree, as ``git clone`` does,
    when that cannot lose or hide anything: HEAD names ``branch``, nothing is staged, and git's
    one-way merge finds no untracked file in the way (it refuses rather than overwrite).
    False when the checkout was left alone."""
    if repo.current_branch() != branch or repo._git("ls-files", "-z", "--cached"):
        return False
    repo.forget_head()
    return repo._git_ok("read-tree", "-m", "-u", commit)
