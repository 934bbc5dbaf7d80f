"""A throw-away checkout of one commit, so the program under test never sees the user's files.

``git worktree add --detach`` into a fresh directory, locked while in use so a concurrent
``git worktree prune`` leaves it alone; afterwards ``git worktree remove --force``, the
directory deleted, and ``git worktree prune`` — also when the run fails, raises, or is
interrupted with Ctrl-C. Hooks are disabled for the checkout: creating a scratch worktree is
not a checkout the user's ``post-checkout`` hook was written for.

What ``run.sh`` builds to run the program (``.venv``, ``node_modules``…) is kept between runs
and heal attempts: after a run those directories are moved to a cache beside the worktree,
keyed by the dependency files of the commit (``requirements*.txt``, ``pyproject.toml``,
``package-lock.json``…), and moved back into the next checkout whose dependency files are the
same. The checkout always sits at the same path for one repository (so a virtual
environment's absolute paths stay true), and is fresh each time: nothing else of one attempt
reaches the next. A second run of the same repository at the same time gets a throw-away
directory and no cache. The modules a build generated in the user's package folders and git
ignores (``_version.py``) are copied in, so that the package imports from the checkout.
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

# Directories a run script builds that are worth keeping, and the files that decide whether
# a kept one still fits (the same dependencies).
CACHED_DIRS = (".venv", "venv", "node_modules")
DEPENDENCY_FILES = (
    "requirements.txt", "requirements-dev.txt", "requirements-test.txt", "pyproject.toml",
    "setup.py", "setup.cfg", "Pipfile.lock", "poetry.lock", "uv.lock", "package.json",
    "package-lock.json", "yarn.lock", "pnpm-lock.yaml", "run.sh",
)  # fmt: skip
KEEP_KEYS = 3  # cached dependency sets per repository


@contextlib.contextmanager
def temporary_worktree(repo: Repository, commit: str, *, cache: bool = True) -> Iterator[Path]:
    """Yield the path of a detached worktree of ``commit``; remove every trace afterwards
    (but the dependency directories, moved to the repository's run cache when ``cache``)."""
    with _place(repo, cache) as (parent, cache_dir):
        path = parent / "wt"
        try:
            add_worktree(repo, path, commit, "git-gpte run in progress")
        except GitCommandError as exc:
            _remove_tree(path)
            _prune(repo)
            raise RunError(
                f"cannot create a temporary worktree of {commit[:12]}: {exc.message}"
            ) from None
        _copy_generated_modules(repo, commit, path)
        key = _dependency_key(repo, commit) if cache_dir is not None else ""
        tracked = _tracked_dirs(repo, commit) if cache_dir is not None else set()
        try:
            if cache_dir is not None:
                _restore(cache_dir / key, path, tracked)
            yield path
        finally:
            with deferred():
                if cache_dir is not None:
                    _keep(path, cache_dir, key, tracked)
                remove_worktree(repo, path)


@contextlib.contextmanager
def _place(repo: Repository, cache: bool) -> Iterator[tuple[Path, Path | None]]:
    """Where the worktree goes: the repository's own stable folder (with its cache) when no
    other run holds it, else a fresh temporary one (without)."""
    import fcntl
    import hashlib

    if cache:
        common = str(repo.state_dir().parent.resolve())
        home = Path(tempfile.gettempdir()) / (
            "gpte-run-" + hashlib.sha256(common.encode()).hexdigest()[:12]
        )
        try:
            home.mkdir(mode=0o700, exist_ok=True)
            lock = open(home / "lock", "w")  # noqa: SIM115 - held for the whole run
        except OSError:
            lock = None
        if lock is not None:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                lock.close()
            else:
                try:
                    _remove_tree(home / "wt")  # what an interrupted run may have left
                    _prune(repo)
                    yield home, home / "cache"
                finally:
                    lock.close()
                return
    parent = Path(tempfile.mkdtemp(prefix="gpte-run-"))
    try:
        yield parent, None
    finally:
        _remove_tree(parent)


def _dependency_key(repo: Repository, commit: str) -> str:
    """A digest of the commit's dependency files (the same files: the same key)."""
    import hashlib

    digest = hashlib.sha256()
    for entry in repo.tree_entries(commit):  # sorted by path, as git lists them
        if entry.path.rsplit("/", 1)[-1] in DEPENDENCY_FILES:
            digest.update(f"{entry.path}\0{entry.sha}\0".encode())
    return digest.hexdigest()[:16]


# A generated module is small: a version string, a build's settings.
GENERATED_MODULE_BYTES = 64 * 1024


def _copy_generated_modules(repo: Repository, commit: str, worktree: Path) -> None:
    """Copy into the checkout the git-ignored Python files of the user's work tree that sit
    in a package folder of the commit: the modules a build writes and the package imports
    (``_version.py`` of setuptools-scm and hatch-vcs), which no commit holds. Without them
    the package cannot be imported from a fresh checkout (seen on humanize: ``from
    ._version import __version__``), so neither its tests nor the probe could run, and the
    result went out unchecked. Never over a file the commit has; nothing else is copied."""
    try:
        ignored = [p for p in repo.ignored_files() if p.endswith(".py")]
    except GitCommandError:
        return
    if not ignored:
        return
    packages = {
        entry.path.rsplit("/", 1)[0]
        for entry in repo.tree_entries(commit)
        if entry.path.endswith("/__init__.py")
    }
    for relative in ignored:
        folder = relative.rsplit("/", 1)[0] if "/" in relative else ""
        source, target = repo.root / relative, worktree / relative
        if folder not in packages or target.exists() or not target.parent.is_dir():
            continue
        with contextlib.suppress(OSError):
            small = source.stat().st_size <= GENERATED_MODULE_BYTES
            if small and source.is_file() and not source.is_symlink():
                shutil.copyfile(source, target)


def _tracked_dirs(repo: Repository, commit: str) -> set[str]:
    """The CACHED_DIRS names the commit itself has (its own, never cached or replaced)."""
    return {name for name in CACHED_DIRS if repo.tree_entries(commit, (f":(literal){name}",))}


def _restore(kept: Path, worktree: Path, tracked: set[str]) -> None:
    """Move the kept dependency directories into the fresh checkout (a tracked path of the
    same name wins: the commit's own files are never replaced)."""
    for name in CACHED_DIRS:
        source, target = kept / name, worktree / name
        if name not in tracked and source.is_dir() and not target.exists():
            with contextlib.suppress(OSError):
                source.rename(target)
    with contextlib.suppress(OSError):
        os.utime(kept)  # recently used: kept longest


def _keep(worktree: Path, cache_dir: Path, key: str, tracked: set[str]) -> None:
    """Move the dependency directories the run built (untracked) out of the checkout into the
    cache under ``key``; keep the newest KEEP_KEYS keys."""
    built = [
        worktree / n
        for n in CACHED_DIRS
        if (worktree / n).is_dir() and not (worktree / n).is_symlink() and n not in tracked
    ]
    if not built:
        return
    target = cache_dir / key
    with contextlib.suppress(OSError):
        target.mkdir(parents=True, exist_ok=True)
        for directory in built:
            _remove_tree(target / directory.name)
            directory.rename(target / directory.name)
        os.utime(target)
    keys = sorted((p for p in cache_dir.iterdir() if p.is_dir()), key=lambda p: p.stat().st_mtime)
    for old in keys[:-KEEP_KEYS]:
        _remove_tree(old)


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
