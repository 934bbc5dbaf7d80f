"""The last step: the edits become one commit, and a branch points at it.

Two ways, and nothing else: create a new branch (create-only: it fails if the name is taken,
so two runs cannot overwrite each other's work), or advance an existing one from the commit it
is expected at (a compare-and-swap: it fails if someone moved it meanwhile). The user's index,
work tree and HEAD are never touched.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..git import FileChange, Repository, advance_branch, build_commit, create_branch


@dataclass(frozen=True)
class CommitSpec:
    """Where the commit goes: on ``base`` (None: a root commit), then onto ``branch``.

    ``expect`` None creates ``branch``; a commit id advances it from that commit.
    """

    branch: str
    base: str | None
    message: str
    identity: tuple[str, str] | None = None
    expect: str | None = None
    reason: str = "git-gpte"


def commit(repo: Repository, spec: CommitSpec, changes: Sequence[FileChange]) -> str:
    """Build the commit and move the branch; returns the commit id.

    Every path is checked against the base tree and the work tree first (git.paths): a file
    under a file, over a symlink, or anywhere a symlink takes into a git directory is never
    committed, whichever pipeline produced it.
    """
    from ..git.paths import check_changes

    check_changes(
        repo,
        spec.base,
        [c.path for c in changes if c.content is not None],
        [c.path for c in changes if c.content is None],
    )
    sha = build_commit(repo, spec.base, changes, spec.message, identity=spec.identity)
    if spec.expect is None:
        create_branch(repo, spec.branch, sha, reason=spec.reason)
    else:
        advance_branch(repo, spec.branch, sha, spec.expect, spec.reason)
    return sha


def run_trailers(run_id: str, model: str) -> list[tuple[str, str]]:
    """The trailers every commit git-gpte makes carries: the run that made it (``git gpte log
    show``) and the model that wrote it."""
    return [("Gpte-Run", run_id), ("Gpte-Model", model)]
