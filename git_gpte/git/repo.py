"""Repository queries on GitPython's command wrapper.

Every git call goes through :meth:`Repository.git_run`, which turns a failing command into a
:class:`~git_gpte.errors.GitCommandError` naming the command, its exit code and its stderr.
Queries that list paths use ``-z`` so names with spaces, newlines or unicode survive. Nothing in
this module writes to the user's index, work tree or HEAD.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import git
from git.exc import GitCommandError as _GitPythonCommandError
from git.exc import InvalidGitRepositoryError, NoSuchPathError

from ..errors import (
    BareRepository,
    DetachedHead,
    EmptyRepository,
    GitCommandError,
    MissingIdentity,
    NotARepository,
    UsageError,
)

# Git's own rule for "binary": a NUL byte in the first 8000 bytes.
BINARY_SNIFF_BYTES = 8000

# Variables that would redirect our plumbing at the user's index or another repository.
_STRIPPED_ENV = ("GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES")

# Variables that choose the repository (``git --git-dir``/``--work-tree`` export them to
# subcommands, hooks set GIT_DIR). Honoured once, when the repository is found; after that git
# is given their absolute values, since it runs in the work tree's root, not the user's cwd.
_LOCATION_ENV = ("GIT_DIR", "GIT_WORK_TREE")

MODE_FILE = "100644"
MODE_EXECUTABLE = "100755"
MODE_SYMLINK = "120000"
MODE_SUBMODULE = "160000"


@dataclass(frozen=True)
class TreeEntry:
    """One file of a commit's tree (``git ls-tree -r -l``)."""

    path: str
    mode: str
    sha: str
    size: int

    @property
    def is_regular(self) -> bool:
        return self.mode in (MODE_FILE, MODE_EXECUTABLE)

    @property
    def executable(self) -> bool:
        return self.mode == MODE_EXECUTABLE


def is_binary(data: bytes) -> bool:
    """True for content git itself would call binary (a NUL in the first 8000 bytes)."""
    return b"\0" in data[:BINARY_SNIFF_BYTES]


def decode_text(data: bytes) -> str | None:
    """The content as text, or None when it is binary or not UTF-8."""
    if is_binary(data):
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def is_utf8_name(path: str) -> bool:
    """False for a path git stores as bytes that are not UTF-8.

    Git output is decoded with ``surrogateescape``, so such bytes arrive as lone surrogates: the
    name round-trips to git, but cannot be put in a JSON request or printed as it is.
    """
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def display_path(path: str) -> str:
    """``path`` fit to print: bytes that are not UTF-8 shown as ``\\xe9`` escapes."""
    if is_utf8_name(path):
        return path
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def encode_path(path: str) -> bytes:
    """The bytes git knows ``path`` by (the inverse of the ``surrogateescape`` decoding)."""
    return path.encode("utf-8", "surrogateescape")


def _locate_with_git(cwd: str | os.PathLike[str], not_a_repo: NotARepository) -> tuple[str, str]:
    """(absolute git dir, work-tree root) as git resolves them from ``cwd`` and GIT_DIR/
    GIT_WORK_TREE (relative values are relative to ``cwd``, as for git itself)."""
    runner = git.Git(os.fspath(cwd))
    try:
        git_dir = str(runner.execute(["git", "rev-parse", "--absolute-git-dir"]))
    except (_GitPythonCommandError, OSError):
        raise not_a_repo from None
    try:
        top = str(runner.execute(["git", "rev-parse", "--show-toplevel"]))
    except _GitPythonCommandError:
        top = ""
    if not top:
        raise BareRepository(f"{git_dir} is a bare repository; git-gpte needs a working tree")
    return git_dir, top


class Repository:
    """A non-bare git repository with at least the checks each command needs."""

    def __init__(self, repo: git.Repo, location: Mapping[str, str] | None = None) -> None:
        self.repo = repo
        # Absolute GIT_DIR/GIT_WORK_TREE when the user chose the repository through them.
        self._location = dict(location or {})
        if self._location:
            repo.git.update_environment(**self._location)
        self.root = Path(self._location.get("GIT_WORK_TREE") or repo.working_tree_dir or "")
        self.git_dir = Path(self._location.get("GIT_DIR") or repo.git_dir)

    # ------------------------------------------------------------------ opening
    @classmethod
    def discover(cls, cwd: str | os.PathLike[str]) -> Repository:
        """Find the repository containing ``cwd`` (like git does), refusing bare ones."""
        not_a_repo = NotARepository(
            f"not a git repository (or any parent up to /): {cwd}",
            hint="run inside a repository, or use -C PATH",
        )
        if any(os.environ.get(name) for name in _LOCATION_ENV):
            git_dir, top = _locate_with_git(cwd, not_a_repo)
            try:
                repo = git.Repo(git_dir)
            except (InvalidGitRepositoryError, NoSuchPathError):
                raise not_a_repo from None
            return cls(repo, {"GIT_DIR": git_dir, "GIT_WORK_TREE": top})
        try:
            repo = git.Repo(cwd, search_parent_directories=True)
        except (InvalidGitRepositoryError, NoSuchPathError):
            raise not_a_repo from None
        if repo.bare or repo.working_tree_dir is None:
            raise BareRepository(
                f"{repo.git_dir} is a bare repository; git-gpte needs a working tree"
            )
        return cls(repo)

    # ------------------------------------------------------------------ running git
    def git_run(
        self,
        *args: str,
        env: Mapping[str, str] | None = None,
        stdin_path: str | None = None,
        strip: bool = True,
    ) -> str:
        """Run ``git <args>`` in the repository root and return stdout.

        ``env`` adds to a copy of the environment with index/object redirections removed;
        ``stdin_path`` feeds a file to the command's standard input.
        """
        full_env = {k: v for k, v in os.environ.items() if k not in _STRIPPED_ENV}
        # No optional locks: `git status` and friends must not refresh (rewrite) the user's
        # index behind their back; the index bytes are part of what we promise not to touch.
        full_env["GIT_OPTIONAL_LOCKS"] = "0"
        full_env.update(self._location)
        if env:
            full_env.update(env)
        kwargs: dict[str, Any] = {"env": full_env, "strip_newline_in_stdout": strip}
        try:
            if stdin_path is not None:
                with open(stdin_path, "rb") as handle:
                    out = self.repo.git.execute(["git", *args], istream=handle, **kwargs)
            else:
                out = self.repo.git.execute(["git", *args], **kwargs)
        except _GitPythonCommandError as exc:
            stderr = (exc.stderr or "").strip().replace("\n", " ")
            stderr = stderr.removeprefix("stderr: ").strip("'")
            raise GitCommandError(
                f"git {' '.join(args)} failed (exit {exc.status}): {stderr}"
            ) from None
        return str(out)

    def git_ok(self, *args: str) -> bool:
        """True when ``git <args>`` exits 0 (for yes/no questions)."""
        try:
            self.git_run(*args)
        except GitCommandError:
            return False
        return True

    # ------------------------------------------------------------------ state
    def resolve_commit(self, rev: str) -> str:
        """The full commit id of ``rev``; clear errors for an empty repo or a bad revision."""
        if rev == "HEAD" and not self.has_commits():
            raise EmptyRepository(
                "this repository has no commits yet",
                hint="commit something first, or use 'git gpte init' to start a project",
            )
        try:
            return self.git_run(
                "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"
            )
        except GitCommandError:
            raise UsageError(f"not a commit: {rev!r}") from None

    def has_commits(self) -> bool:
        return self.git_ok("rev-parse", "--verify", "--quiet", "HEAD^{commit}")

    def current_branch(self) -> str | None:
        """The checked-out branch name, or None on a detached HEAD."""
        try:
            ref = self.git_run("symbolic-ref", "--quiet", "HEAD")
        except GitCommandError:
            return None
        return ref.removeprefix("refs/heads/")

    def require_branch(self, what: str) -> str:
        """The current branch, or a clear error for commands that need one."""
        branch = self.current_branch()
        if branch is None:
            raise DetachedHead(
                f"HEAD is detached; {what} needs a branch",
                hint="git switch <branch> first",
            )
        return branch

    def head_state(self) -> str:
        """A one-line description of HEAD for messages ("branch main" / "detached at abc1234")."""
        branch = self.current_branch()
        if branch is not None:
            return f"branch {branch}"
        if not self.has_commits():
            return "no commits yet"
        return f"detached HEAD at {self.git_run('rev-parse', '--short', 'HEAD')}"

    def ref_exists(self, ref: str) -> bool:
        return self.git_ok("show-ref", "--verify", "--quiet", ref)

    def state_dir(self) -> Path:
        """``.git/gpte/``: the tool's own files, shared by all worktrees, never in the work tree."""
        common = self.git_run("rev-parse", "--git-common-dir")
        path = (self.root / common).resolve() / "gpte"
        path.mkdir(parents=True, exist_ok=True)
        return path

    @contextmanager
    def temporary_index(self, tree: str | None) -> Iterator[dict[str, str]]:
        """An index file inside ``.git/gpte/`` loaded from ``tree`` (None: empty).

        Yields the environment that points git at it; the file is removed afterwards, even on
        error. The user's own index is never read or written.
        """
        fd, index_path = tempfile.mkstemp(prefix="index-", dir=self.state_dir())
        os.close(fd)
        os.unlink(index_path)  # git wants to create it itself
        env = {"GIT_INDEX_FILE": index_path}
        try:
            if tree is None:
                self.git_run("read-tree", "--empty", env=env)
            else:
                self.git_run("read-tree", tree, env=env)
            yield env
        finally:
            for path in (index_path, index_path + ".lock"):
                if os.path.exists(path):
                    os.unlink(path)

    def config_get(self, key: str) -> str | None:
        try:
            return self.git_run("config", "--get", key)
        except GitCommandError:
            return None

    def identity(self) -> tuple[str, str]:
        """(name, email) git would commit as; a clear error when it is not configured."""
        name = os.environ.get("GIT_AUTHOR_NAME") or self.config_get("user.name")
        email = os.environ.get("GIT_AUTHOR_EMAIL") or self.config_get("user.email")
        if not name or not email:
            missing = " and ".join(
                k for k, v in (("user.name", name), ("user.email", email)) if not v
            )
            raise MissingIdentity(
                f"git does not know who you are: {missing} not set",
                hint=f'git config --global {missing.split(" and ")[0]} "..."',
            )
        return name, email

    # ------------------------------------------------------------------ files
    def tree_entries(self, rev: str, pathspecs: tuple[str, ...] = ()) -> list[TreeEntry]:
        """Every file in the tree of ``rev`` (recursively), optionally narrowed by pathspecs."""
        args = ["ls-tree", "-r", "-z", "-l", "--full-tree", rev]
        if pathspecs:
            args += ["--", *pathspecs]
        out = self.git_run(*args, strip=False)
        entries = []
        for record in out.split("\0"):
            if not record:
                continue
            meta, path = record.split("\t", 1)
            mode, _kind, sha, size = meta.split()
            entries.append(TreeEntry(path, mode, sha, int(size) if size != "-" else 0))
        return entries

    def tracked_files(self) -> list[str]:
        """Paths in the index (what ``git ls-files`` shows), NUL-separated on the wire."""
        out = self.git_run("ls-files", "-z", "--full-name", strip=False)
        return [p for p in out.split("\0") if p]

    def untracked_files(self) -> list[str]:
        """Untracked paths that ``.gitignore`` does not exclude (what ``git status`` lists)."""
        out = self.git_run("ls-files", "-z", "--others", "--exclude-standard", strip=False)
        return [p for p in out.split("\0") if p]

    def read_blob(self, sha: str) -> bytes:
        """Raw content of a blob, through GitPython's persistent ``cat-file --batch``."""
        data: bytes = self.repo.odb.stream(bytes.fromhex(sha)).read()
        return data

    def read_blobs(self, shas: Iterable[str]) -> Iterator[tuple[str, bytes]]:
        """(sha, content) for each blob, streamed through one ``git cat-file --batch`` process.

        For reading many blobs at once (indexing a whole tree): one process, one pipe, the ids
        written by a thread while the contents are read, so memory holds one blob at a time.
        """
        import subprocess
        import threading

        wanted = list(shas)
        if not wanted:
            return
        env = {k: v for k, v in os.environ.items() if k not in _STRIPPED_ENV}
        env["GIT_OPTIONAL_LOCKS"] = "0"
        env.update(self._location)
        proc = subprocess.Popen(
            ["git", "cat-file", "--batch"],
            cwd=self.root,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        assert proc.stdin is not None and proc.stdout is not None

        def feed() -> None:
            assert proc.stdin is not None
            try:
                for sha in wanted:
                    proc.stdin.write(sha.encode("ascii") + b"\n")
                proc.stdin.close()
            except (BrokenPipeError, ValueError):
                pass

        writer = threading.Thread(target=feed, daemon=True)
        writer.start()
        try:
            for sha in wanted:
                header = proc.stdout.readline().split()
                if len(header) == 2 and header[1] == b"missing":
                    raise GitCommandError(f"git cat-file --batch: object {sha} is missing")
                if len(header) != 3:
                    raise GitCommandError(f"git cat-file --batch: unexpected reply for {sha}")
                size = int(header[2])
                data = proc.stdout.read(size)
                proc.stdout.read(1)  # the newline after the content
                yield sha, data
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            writer.join(timeout=1)

    def read_file(self, rev: str, path: str) -> bytes:
        """Raw content of ``path`` at ``rev``; a clear error when it is not there."""
        entries = [e for e in self.tree_entries(rev, (f":(literal){path}",)) if e.path == path]
        if not entries:
            raise UsageError(f"{path!r} does not exist at {rev}")
        return self.read_blob(entries[0].sha)

    def iter_text_files(self, rev: str) -> Iterator[tuple[TreeEntry, str | None]]:
        """(entry, text or None for binary/non-UTF-8) for each regular file of ``rev``."""
        for entry in self.tree_entries(rev):
            if entry.is_regular:
                yield entry, decode_text(self.read_blob(entry.sha))

    def write_blob(self, data: bytes) -> str:
        """Store ``data`` as a loose blob object and return its id (no index involved)."""
        from io import BytesIO

        from gitdb import IStream

        stream = self.repo.odb.store(IStream("blob", len(data), BytesIO(data)))
        return str(stream.hexsha.decode() if isinstance(stream.hexsha, bytes) else stream.hexsha)

    def dirty_paths(self) -> set[str]:
        """Paths with staged or unstaged changes to tracked files (untracked ignored)."""
        out = self.git_run("status", "--porcelain=v1", "-z", "--untracked-files=no", strip=False)
        paths: set[str] = set()
        records = iter(out.split("\0"))
        for record in records:
            if len(record) < 4:
                continue
            status, path = record[:2], record[3:]
            paths.add(path)
            if "R" in status or "C" in status:
                paths.add(next(records, ""))
        paths.discard("")
        return paths
