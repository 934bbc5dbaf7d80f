"""Commits built with plumbing, never touching the user's index or work tree.

A commit is made from a base commit plus a set of file changes: blobs are written straight to
the object database, a temporary index file inside ``.git/gpte/`` is loaded from the base tree,
the changed entries are replaced, ``write-tree`` gives the tree and ``commit-tree`` the commit.
The temporary index is removed afterwards, even when a step fails.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..errors import EditError
from .repo import MODE_EXECUTABLE, MODE_FILE, Repository

ZERO_OID = "0" * 40


@dataclass(frozen=True)
class FileChange:
    """A file's new content (``None`` deletes it).

    ``executable`` None keeps the base's mode (or 100644 for a new file).
    """

    path: str
    content: bytes | None
    executable: bool | None = None


def format_message(summary: str, body: str = "", trailers: Iterable[tuple[str, str]] = ()) -> str:
    """A conventional commit message: summary line, blank line, body, blank line, trailers."""
    summary = " ".join(summary.split())
    parts = [summary]
    if body.strip():
        parts.append(body.strip("\n"))
    trailer_lines = [f"{key}: {' '.join(value.split())}" for key, value in trailers]
    if trailer_lines:
        parts.append("\n".join(trailer_lines))
    return "\n\n".join(parts) + "\n"


def summary_line(text: str, limit: int = 72) -> str:
    """The first line of ``text``, whitespace collapsed, cut at a word boundary to ``limit``."""
    first = " ".join(text.strip().splitlines()[0].split()) if text.strip() else "git-gpte edit"
    if len(first) <= limit:
        return first
    cut = first[: limit - 1].rsplit(" ", 1)[0].rstrip(" ,.;:")
    return (cut or first[: limit - 1]) + "…"


def identity_env(name: str, email: str) -> dict[str, str]:
    return {
        "GIT_AUTHOR_NAME": name,
        "GIT_AUTHOR_EMAIL": email,
        "GIT_COMMITTER_NAME": name,
        "GIT_COMMITTER_EMAIL": email,
    }


def build_tree(repo: Repository, base: str | None, changes: Sequence[FileChange]) -> str:
    """The tree of ``base`` with ``changes`` applied, via a temporary index file."""
    modes: dict[str, str] = {}
    if base is not None and changes:
        wanted = tuple(f":(literal){c.path}" for c in changes)
        modes = {e.path: e.mode for e in repo.tree_entries(base, wanted)}
    contents = [c.content for c in changes if c.content is not None]
    ids = iter(repo.write_blobs(contents))
    records = []
    for change in changes:
        if change.content is None:
            records.append(f"0 {ZERO_OID}\t{change.path}\0")
            continue
        if change.executable is None:
            mode = modes.get(change.path, MODE_FILE)
            if mode not in (MODE_FILE, MODE_EXECUTABLE):
                mode = MODE_FILE
        else:
            mode = MODE_EXECUTABLE if change.executable else MODE_FILE
        records.append(f"{mode} {next(ids)}\t{change.path}\0")
    with repo.temporary_index(base) as env:
        records_bytes = "".join(records).encode("utf-8", "surrogateescape")
        repo._git("update-index", "-z", "--index-info", env=env, input=records_bytes)
        return repo._git("write-tree", env=env)


def build_commit(
    repo: Repository,
    base: str | None,
    changes: Sequence[FileChange],
    message: str,
    *,
    identity: tuple[str, str] | None = None,
    allow_empty: bool = False,
) -> str:
    """Create a commit whose parent is ``base`` (None: a root commit) and return its id.

    Nothing references the commit yet; :func:`git_gpte.git.branch.create_branch` does that.
    """
    name, email = identity or repo.identity()
    tree = build_tree(repo, base, changes)
    if base is not None and not allow_empty and tree == repo._git("rev-parse", f"{base}^{{tree}}"):
        raise EditError("the edits change nothing: the result is identical to the base commit")
    fd, msg_path = tempfile.mkstemp(prefix="msg-", dir=repo.state_dir())
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(message.encode("utf-8"))
        args = ["commit-tree", tree]
        if base is not None:
            args += ["-p", base]
        args += ["-F", msg_path]
        return repo._git(*args, env=identity_env(name, email))
    finally:
        os.unlink(msg_path)
