"""Where a path named by a reply really lands, and whether git-gpte may write it there.

A path that passed the text checks (no ``..``, no ``.git`` part, not absolute) can still reach
git's own files through a symlink: ``meta -> .git`` makes ``meta/hooks/pre-commit`` a hook and
``meta/config`` a config with ``core.fsmonitor`` (a command git runs). So the path is resolved
twice before anything is written or committed:

* against the **tree being edited** (the base commit's entries with the edits so far laid over
  them): each symlink on the way is followed by its target as git stores it;
* against the **work tree**, with the file system's own resolution (``realpath``).

Where either lands outside the repository or inside a git directory — this repository's
``--git-dir`` and ``--git-common-dir`` (which hold linked worktrees' admin dirs and absorbed
submodules' git dirs), the git dir a submodule's ``.git`` file names, or any ``.git`` component —
the path is **unsafe**: the whole reply is refused (exit 7) and nothing is written.

A tree cannot hold a file under a file, nor a file where a symlink or submodule is: writing one
would make git replace the entry (``util.py/x.py`` deletes ``util.py``). Such a path, and a path
that goes through a symlink inside the repository, is **refused** for that file only (its hunks
are reported and can be fed back), never committed.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from ..errors import UnsafePathError
from .repo import MODE_FILE, MODE_SUBMODULE, MODE_SYMLINK, Repository, TreeEntry

# Symlinks followed on one path before giving up, as the kernel does (ELOOP).
MAX_LINK_HOPS = 40


@dataclass(frozen=True)
class PathProblem:
    """Why a path may not be written; ``unsafe`` refuses the whole reply (exit 7)."""

    message: str
    unsafe: bool


def git_dirs(repo: Repository) -> tuple[str, ...]:
    """Real paths of every git directory a write could reach: this repository's own, the common
    one (linked worktrees' admin dirs and absorbed submodules live inside it), and the git dir
    named by each submodule's ``.git`` file in the work tree."""
    if repo.git_dirs_found is not None:
        return repo.git_dirs_found
    found = {os.path.realpath(repo.git_dir)}
    found.add(os.path.realpath(repo.common_dir()))
    out = repo._git("ls-files", "-z", "--stage", strip=False)
    for record in out.split("\0"):
        if not record.startswith(MODE_SUBMODULE + " "):
            continue
        path = record.split("\t", 1)[1]
        dot_git = os.path.join(repo.root, path, ".git")
        if os.path.isfile(dot_git):
            try:
                with open(dot_git, encoding="utf-8", errors="surrogateescape") as handle:
                    line = handle.readline().strip()
            except OSError:
                continue
            if line.startswith("gitdir:"):
                target = line.removeprefix("gitdir:").strip()
                found.add(os.path.realpath(os.path.join(repo.root, path, target)))
    repo.git_dirs_found = tuple(sorted(found))
    return repo.git_dirs_found


def _inside(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip("/") + "/")


def _git_part(relative: str) -> bool:
    return any(part.lower() == ".git" for part in relative.split("/"))


def worktree_problem(
    root: str | Path, path: str, dirs: Iterable[str], *, outside_ok: bool = False
) -> PathProblem | None:
    """Where ``root/path`` lands through the work tree's symlinks (the file system resolves
    them), if that is inside a git directory or (unless ``outside_ok``) outside the repository.
    """
    real_root = os.path.realpath(root)
    real = os.path.realpath(os.path.join(real_root, path))
    for directory in dirs:
        if _inside(real, directory):
            return PathProblem(f"{path!r} leads into the git directory {directory}", unsafe=True)
    if not _inside(real, real_root):
        if outside_ok:
            return None
        return PathProblem(
            f"{path!r} goes through a symlink that leaves the repository (to {real})", unsafe=True
        )
    relative = os.path.relpath(real, real_root).replace(os.sep, "/")
    if _git_part(relative):
        return PathProblem(f"{path!r} leads into a git directory ({relative})", unsafe=True)
    return None


def resolve_in_tree(
    path: str,
    mode_of: Callable[[str], str | None],
    read_link: Callable[[str], bytes],
    root: str,
) -> tuple[str | None, list[str]]:
    """(``path`` with the tree's symlinks followed, or None when it leaves the repository;
    the symlinks followed). Pure: the tree is seen through ``mode_of`` and ``read_link``."""
    pending = path.split("/")
    done: list[str] = []
    links: list[str] = []
    while pending:
        part = pending.pop(0)
        current = "/".join([*done, part])
        if mode_of(current) != MODE_SYMLINK:
            done.append(part)
            continue
        links.append(current)
        if len(links) > MAX_LINK_HOPS:
            return None, links
        target = read_link(current).decode("utf-8", "surrogateescape")
        if target.startswith("/"):
            real_root = os.path.realpath(root)
            if not _inside(target, real_root) and not _inside(target, root):
                return None, links
            base = real_root if _inside(target, real_root) else root
            target = os.path.relpath(target, base).replace(os.sep, "/")
            joined = posixpath.normpath(target)
        else:
            joined = posixpath.normpath(posixpath.join("/".join(done), target))
        if joined == ".." or joined.startswith("../"):
            return None, links
        pending = ([] if joined == "." else joined.split("/")) + pending
        done = []
    return "/".join(done), links


class TreeView:
    """The tree being edited: a commit's entries with edits laid over them (new text files,
    deletions). What :func:`tree_problem` needs to know about it."""

    def __init__(
        self,
        entries: Mapping[str, TreeEntry],
        read_blob: Callable[[str], bytes],
        changes: Mapping[str, str | bytes | None] | None = None,
    ) -> None:
        self.entries = entries
        self.read_blob = read_blob
        self.changes = changes if changes is not None else {}
        self._dirs: set[str] | None = None

    def mode_of(self, path: str) -> str | None:
        if path in self.changes:
            return None if self.changes[path] is None else MODE_FILE
        entry = self.entries.get(path)
        return entry.mode if entry is not None else None

    def read_link(self, path: str) -> bytes:
        return self.read_blob(self.entries[path].sha)

    def is_dir(self, path: str) -> bool:
        if self._dirs is None:
            self._dirs = {
                "/".join(parts[:k])
                for parts in (p.split("/") for p in self.entries)
                for k in range(1, len(parts))
            }
        prefix = path + "/"
        return path in self._dirs or any(
            c.startswith(prefix) for c, text in self.changes.items() if text is not None
        )


def tree_problem(path: str, tree: TreeView, root: str, dirs: Iterable[str]) -> PathProblem | None:
    """Why ``path`` may not be written into ``tree`` (see the module's docstring), or None."""
    resolved, links = resolve_in_tree(path, tree.mode_of, tree.read_link, root)
    if resolved is None:
        via = links[-1] if links else path
        return PathProblem(
            f"{path!r} goes through the symlink {via!r}, which leaves the repository", unsafe=True
        )
    if links:
        if _git_part(resolved):
            return PathProblem(
                f"{path!r} goes through the symlink {links[0]!r} into a git directory ({resolved})",
                unsafe=True,
            )
        landing = worktree_problem(root, resolved, dirs)
        if landing is not None:
            return PathProblem(
                f"{path!r} goes through the symlink {links[0]!r}: {landing.message}", unsafe=True
            )
        if links[0] == path:
            return PathProblem(
                f"{path} is a symlink; git-gpte does not edit symlinks (the link is left as it is)",
                unsafe=False,
            )
        return PathProblem(
            f"{path} goes through the symlink {links[0]}; git-gpte does not write through links "
            f"(edit {resolved} instead)",
            unsafe=False,
        )
    parts = path.split("/")
    for k in range(1, len(parts)):
        prefix = "/".join(parts[:k])
        mode = tree.mode_of(prefix)
        if mode == MODE_SUBMODULE:
            return PathProblem(
                f"{path} is inside the submodule {prefix}; git-gpte does not edit submodules",
                unsafe=False,
            )
        if mode is not None:
            return PathProblem(
                f"{prefix} is a file, so {path} cannot be created under it (that would delete it)",
                unsafe=False,
            )
    mode = tree.mode_of(path)
    if mode == MODE_SUBMODULE:
        return PathProblem(f"{path} is a submodule; git-gpte does not edit submodules", False)
    if mode is None and tree.is_dir(path):
        return PathProblem(
            f"{path} is a directory, so it cannot be written as a file (that would delete "
            "what is in it)",
            unsafe=False,
        )
    # Nothing is written to the work tree here, but a checkout of the result would follow the
    # work tree's own symlinks: refuse a path that reaches a git directory there too.
    return worktree_problem(root, path, dirs, outside_ok=True)


def worktree_refusal(root: str | Path, path: str) -> PathProblem | None:
    """Why ``root/path`` cannot be written as a text file in the work tree (it is a symlink,
    a directory, or under something that is not a directory), or None. Run after
    :func:`worktree_problem` has found where it lands safe."""
    full = os.path.join(root, path)
    if os.path.islink(full):
        return PathProblem(
            f"{path} is a symlink; git-gpte does not edit symlinks (the link is left as it is)",
            False,
        )
    if os.path.isdir(full):
        return PathProblem(f"{path} is a directory, so it cannot be written as a file", False)
    parts = path.split("/")
    for k in range(1, len(parts)):
        prefix = "/".join(parts[:k])
        where = os.path.join(root, prefix)
        if os.path.lexists(where) and not os.path.isdir(where):
            return PathProblem(
                f"{prefix} is a file, so {path} cannot be created under it", unsafe=False
            )
    return None


def check_changes(
    repo: Repository,
    base: str | None,
    written: Iterable[str],
    deleted: Iterable[str] = (),
) -> None:
    """The last check before a commit of model output: every written path, against ``base``'s
    tree with ``deleted`` removed and against the work tree. Raises UnsafePathError naming every
    problem (at this point nothing is left to refuse hunk by hunk)."""
    entries = {e.path: e for e in repo.tree_entries(base)} if base is not None else {}
    tree = TreeView(entries, repo.read_blob, dict.fromkeys(deleted))
    dirs = git_dirs(repo)
    problems = [
        problem.message
        for path in written
        if (problem := tree_problem(path, tree, str(repo.root), dirs)) is not None
    ]
    if problems:
        raise UnsafePathError("refusing to commit, nothing written: " + "; ".join(problems))


def paths_in_the_way(repo: Repository, paths: Iterable[str]) -> list[str]:
    """Which of ``paths`` (a commit's files) cannot be written to the work tree without
    overwriting something of the user's: the path exists there (a file, directory or symlink),
    something that is not a directory sits where one of its parent directories should be (an
    untracked symlink included: writing through it would replace it), or the index holds the
    path or one of its parents. The rest can be restored from the commit without loss."""
    out = repo._git("ls-files", "-z", "--cached", strip=False)
    staged = {p for p in out.split("\0") if p}
    blocked = []
    for path in paths:
        parts = path.split("/")
        prefixes = ["/".join(parts[:k]) for k in range(1, len(parts))]
        if (
            os.path.lexists(os.path.join(repo.root, path))
            or path in staged
            or any(p in staged for p in prefixes)
            or any(
                os.path.lexists(os.path.join(repo.root, p))
                and (
                    os.path.islink(os.path.join(repo.root, p))
                    or not os.path.isdir(os.path.join(repo.root, p))
                )
                for p in prefixes
            )
        ):
            blocked.append(path)
    return blocked
