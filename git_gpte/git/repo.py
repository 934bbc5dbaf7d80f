"""Repository queries: named operations on one repository.

Every git call goes through :meth:`Repository._git` (private to this package), which turns a
failing command into a :class:`~git_gpte.errors.GitCommandError` naming the command, its exit
code and its stderr.
Queries that list paths use ``-z`` so names with spaces, newlines or unicode survive. Nothing in
this module writes to the user's index, work tree or HEAD.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ..errors import (
    BareRepository,
    DetachedHead,
    EmptyRepository,
    GitCommandError,
    MissingIdentity,
    NotARepository,
    RepoError,
    UsageError,
)
from . import _process
from ._process import BLOB_WINDOW, BlobReader
from .env import git_environment
from .history import PastCommit, RecentChanges, parse_log, parse_new_lines, parse_subjects

MAX_RECENT_PATHS = 300

# Git's own rule for "binary": a NUL byte in the first 8000 bytes.
BINARY_SNIFF_BYTES = 8000

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


_QUOTED = {"\n": "\\n", "\t": "\\t", "\r": "\\r", '"': '\\"', "\\": "\\\\"}


def display_path(path: str) -> str:
    """``path`` fit to print: bytes that are not UTF-8 shown as ``\\xe9`` escapes; a name
    with control or text-direction characters in git's quoted form (``"a\\nb"``), so it can
    neither break a line nor turn the text around it."""
    if not is_utf8_name(path):
        path = path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    if not _UNSAFE.search(path):
        return path
    out = []
    for char in path:
        if char in _QUOTED:
            out.append(_QUOTED[char])
        elif _UNSAFE.match(char):
            out.append("".join(f"\\{byte:03o}" for byte in char.encode("utf-8")))
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def encode_path(path: str) -> bytes:
    """The bytes git knows ``path`` by (the inverse of the ``surrogateescape`` decoding)."""
    return path.encode("utf-8", "surrogateescape")


def _locate(cwd: str | os.PathLike[str], not_a_repo: NotARepository) -> tuple[str, str | None]:
    """(absolute git dir, work-tree root or None for a bare repository) as git resolves them
    from ``cwd`` and, when set, GIT_DIR/GIT_WORK_TREE (relative to ``cwd``, as for git)."""
    # The repository's location is the one thing taken from the caller's GIT_* variables.
    env = git_environment({k: os.environ[k] for k in _LOCATION_ENV if os.environ.get(k)})
    if not os.path.isdir(cwd):
        raise not_a_repo
    try:
        out = _process.run(
            ["rev-parse", "--absolute-git-dir", "--is-bare-repository"], cwd=cwd, env=env
        )
    except GitCommandError:
        raise not_a_repo from None
    git_dir, _, bare = out.partition("\n")
    if bare.strip() == "true":
        return git_dir, None
    try:
        top = _process.run(["rev-parse", "--show-toplevel"], cwd=cwd, env=env)
    except GitCommandError:
        top = ""
    return git_dir, top or None


_FULL_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
# Up to this many blobs are written one process each (no temporary files needed).
BLOBS_ONE_BY_ONE = 8


class Repository:
    """A non-bare git repository with at least the checks each command needs."""

    def __init__(self, root: Path, git_dir: Path, location: Mapping[str, str] | None = None):
        self.root = root
        self.git_dir = git_dir
        # Absolute GIT_DIR/GIT_WORK_TREE when the user chose the repository through them.
        self._location = dict(location or {})
        self._blobs = BlobReader(root, git_environment(self._location))
        # Answers that cannot change while a command runs, kept so each is asked once: the
        # common git directory, and the files of a commit (a commit id names fixed content).
        self._common: Path | None = None
        self._trees: dict[str, list[TreeEntry]] = {}
        self._head: str | None = None  # HEAD's commit, while _head_at is what HEAD's files say
        self._head_at: tuple[str, str] | None = None
        self.git_dirs_found: tuple[str, ...] | None = None  # see git.paths.git_dirs

    # ------------------------------------------------------------------ opening
    @classmethod
    def discover(cls, cwd: str | os.PathLike[str]) -> Repository:
        """Find the repository containing ``cwd`` (like git does), refusing bare ones."""
        not_a_repo = NotARepository(
            f"not a git repository (or any parent up to /): {cwd}",
            hint="run inside a repository, or use -C PATH",
        )
        git_dir, top = _locate(cwd, not_a_repo)
        if top is None:
            raise BareRepository(f"{git_dir} is a bare repository; git-gpte needs a working tree")
        location = {}
        if any(os.environ.get(name) for name in _LOCATION_ENV):
            location = {"GIT_DIR": git_dir, "GIT_WORK_TREE": top}
        return cls(Path(top), Path(git_dir), location)

    def close(self) -> None:
        """Stop the blob reader (it is also stopped when the process exits)."""
        self._blobs.close()

    # ------------------------------------------------------------------ running git
    def _git(
        self,
        *args: str,
        env: Mapping[str, str] | None = None,
        input: bytes | None = None,
        strip: bool = True,
    ) -> str:
        """Run ``git <args>`` in the repository root and return stdout (for ``git_gpte.git``
        only). ``env`` adds to the environment :func:`git_environment` builds."""
        full_env = git_environment(self._location, env)
        return _process.run(args, cwd=self.root, env=full_env, input=input, strip=strip)

    def _git_ok(self, *args: str) -> bool:
        """True when ``git <args>`` exits 0 (for yes/no questions)."""
        try:
            self._git(*args)
        except GitCommandError:
            return False
        return True

    # ------------------------------------------------------------------ state
    def resolve_commit(self, rev: str) -> str:
        """The full commit id of ``rev``; clear errors for an empty repo or a bad revision.
        HEAD is asked once per command (see :meth:`forget_head`)."""
        stamp = self._head_stamp() if rev == "HEAD" else None
        if stamp is not None and self._head is not None and self._head_at == stamp:
            return self._head
        try:
            found = self._git(
                "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"
            )
        except GitCommandError:
            if rev == "HEAD" and not self.has_commits():
                raise EmptyRepository(
                    "this repository has no commits yet",
                    hint="commit something first, or use 'git gpte init' to start a project",
                ) from None
            raise UsageError(f"not a commit: {rev!r}") from None
        if stamp is not None:
            self._head, self._head_at = found, stamp
        return found

    def object_ids(self, names: Sequence[str]) -> list[str | None]:
        """The object id each of ``names`` (``rev^{tree}``, ``rev:path``) stands for, None for
        one that names nothing; one ``git cat-file --batch-check`` for all of them."""
        if any("\n" in name for name in names):
            raise UsageError("an object name cannot hold a line break")
        out = self._git(
            "cat-file",
            "--batch-check=%(objectname)",
            input="".join(f"{n}\n" for n in names).encode(),
        )
        found = out.split("\n") if out else []
        return [None if line.endswith(" missing") or not line else line for line in found]

    def _head_stamp(self) -> tuple[str, str] | None:
        """What HEAD says and when the files that resolve it last changed: the same stamp,
        the same commit (a commit made by anyone since changes the stamp). None: unknown."""
        try:
            head = (self.git_dir / "HEAD").read_text(encoding="utf-8").strip()
            marks = []
            if head.startswith("ref: "):
                packed = self.common_dir() / "packed-refs"
                for candidate in (self.common_dir() / head[5:], self.git_dir / head[5:], packed):
                    if candidate.exists():  # git replaces a ref file: a new inode each time
                        info = candidate.stat()
                        marks.append(f"{info.st_ino}:{info.st_mtime_ns}")
            return head, ",".join(marks)
        except OSError:
            return None

    def forget_head(self) -> None:
        """HEAD was moved (a checkout): ask git again next time."""
        self._head = self._head_at = None

    def has_commits(self) -> bool:
        return self._git_ok("rev-parse", "--verify", "--quiet", "HEAD^{commit}")

    def current_branch(self) -> str | None:
        """The checked-out branch name, or None on a detached HEAD."""
        try:
            ref = self._git("symbolic-ref", "--quiet", "HEAD")
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
        return f"detached HEAD at {self._git('rev-parse', '--short', 'HEAD')}"

    def ref_exists(self, ref: str) -> bool:
        return self._git_ok("show-ref", "--verify", "--quiet", ref)

    def common_dir(self) -> Path:
        """The git directory shared by all worktrees (``.git`` of the main one), asked once."""
        if self._common is None:
            self._common = (self.root / self._git("rev-parse", "--git-common-dir")).resolve()
        return self._common

    def state_dir(self) -> Path:
        """``.git/gpte/``: the tool's own files, shared by all worktrees, never in the work tree."""
        path = self.common_dir() / "gpte"
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            what = "a file, not a directory" if path.is_file() else exc.strerror or str(exc)
            raise RepoError(
                f"cannot keep git-gpte's records in {path}: {what}",
                hint="it must be a writable directory; move whatever is there aside",
            ) from None
        return path

    def scratch_dir(self) -> Path:
        """Where short-lived files go (a temporary index): ``.git/gpte/``, or the system's
        temporary directory when that cannot be written (a read-only ``.git``: commands that
        only read still work)."""
        try:
            path = self.state_dir()
        except RepoError:
            return Path(tempfile.gettempdir())
        return path if os.access(path, os.W_OK) else Path(tempfile.gettempdir())

    @contextmanager
    def temporary_index(self, tree: str | None) -> Iterator[dict[str, str]]:
        """An index file inside ``.git/gpte/`` loaded from ``tree`` (None: empty).

        Yields the environment that points git at it; the file is removed afterwards, even on
        error. The user's own index is never read or written.
        """
        fd, index_path = tempfile.mkstemp(prefix="index-", dir=self.scratch_dir())
        os.close(fd)
        os.unlink(index_path)  # git wants to create it itself
        env = {"GIT_INDEX_FILE": index_path}
        try:
            if tree is None:
                self._git("read-tree", "--empty", env=env)
            else:
                self._git("read-tree", tree, env=env)
            yield env
        finally:
            for path in (index_path, index_path + ".lock"):
                if os.path.exists(path):
                    os.unlink(path)

    def config_get(self, key: str) -> str | None:
        try:
            return self._git("config", "--get", key)
        except GitCommandError:
            return None

    def is_partial_clone(self) -> bool:
        """True for a clone made with ``--filter`` (a promisor remote): objects it lacks are
        fetched on demand, so history walks that read old blobs would go to the network."""
        try:
            found = self._git(
                "config", "--get-regexp", r"^(extensions\.partialclone|remote\..*\.promisor)$"
            )
        except GitCommandError:
            return False  # none of those keys
        for line in found.splitlines():
            key, _, value = line.partition(" ")
            if key.startswith("extensions.") or value.strip().lower() in ("true", "yes", "on", "1"):
                return True
        return False

    def config_set(self, key: str, value: str, *, scope: str = "local") -> None:
        """``git config --<scope> key value`` (scope: local or global). Raises GitCommandError."""
        self._git("config", f"--{scope}", key, value)

    def identity(self) -> tuple[str, str]:
        """(name, email) git would commit as; a clear error when it is not configured."""
        configured: dict[str, str] = {}
        if not (os.environ.get("GIT_AUTHOR_NAME") and os.environ.get("GIT_AUTHOR_EMAIL")):
            try:  # both keys in one question
                out = self._git("config", "-z", "--get-regexp", r"^user\.(name|email)$")
            except GitCommandError:
                out = ""
            for record in out.split("\0"):
                key, _, value = record.partition("\n")
                if key:
                    configured[key] = value
        name = os.environ.get("GIT_AUTHOR_NAME") or configured.get("user.name")
        email = os.environ.get("GIT_AUTHOR_EMAIL") or configured.get("user.email")
        if not name or not email:
            missing = " and ".join(
                k for k, v in (("user.name", name), ("user.email", email)) if not v
            )
            raise MissingIdentity(
                f"git does not know who you are: {missing} not set",
                hint=f'git config --global {missing.split(" and ")[0]} "..."',
            )
        return name, email

    # ------------------------------------------------------------------ history
    def diff_stat(self, old: str, new: str) -> str:
        """``git diff --stat`` between two commits, as git prints it (no colour)."""
        return self._git("diff", "--stat", "--no-color", old, new)

    def is_ancestor(self, commit: str, tip: str) -> bool:
        """True when ``commit`` is ``tip`` or in its history."""
        return self._git_ok("merge-base", "--is-ancestor", commit, tip)

    def branch_tip(self, branch: str) -> str | None:
        """The commit branch ``branch`` points at; None when there is no such branch."""
        try:
            return (
                self._git("rev-parse", "--verify", "--quiet", f"refs/heads/{branch}^{{commit}}")
                or None
            )
        except GitCommandError:
            return None

    def commits_with_files(
        self, since: str | None, tip: str, limit: int = 50
    ) -> list[tuple[str, str, tuple[str, ...]]]:
        """(sha, subject, paths changed) of the commits after ``since`` up to ``tip``, oldest
        first, at most ``limit``."""
        spec = f"{since}..{tip}" if since else tip
        out = self._git(
            "log", f"-n{limit}", "--reverse", "--no-renames", "--name-only", "-z",
            "--format=%x01%H%x00%s", spec, "--",
        )  # fmt: skip
        found = []
        for record in out.split("\x01")[1:]:
            sha, _, rest = record.partition("\0")
            subject, _, names = rest.partition("\0")
            files = tuple(n.strip("\n") for n in names.split("\0") if n.strip("\n"))
            found.append((sha, subject, files))
        return found

    def recent_changes(self, commit: str, depth: int) -> RecentChanges:
        """What ``commit`` and its first-parent ancestors (at most ``depth`` commits) changed:
        the paths per commit, and the lines of ``commit`` they wrote (see :mod:`.history`).
        Lines are left out when the commits touched more than ``MAX_RECENT_PATHS`` paths (a
        vendored update, a reformat: no hint of where work goes on). A partial clone gives
        nothing: the diff would fetch old blobs from its remote, one by one."""
        if self.is_partial_clone():
            return RecentChanges()
        log = self._git(
            "log", "--first-parent", f"-n{depth}", "--no-renames", "--name-only", "-z",
            "--diff-merges=first-parent", "--format=%x01%P%x02%an%x02%s", commit, "--",
        )  # fmt: skip
        commits = parse_log(log)
        chain = self._git("rev-list", "--first-parent", f"-n{depth + 1}", commit, "--").split()
        if len(chain) < 2 or not commits or sum(map(len, commits)) > MAX_RECENT_PATHS:
            return RecentChanges(commits)  # a sweeping change marks no lines worth a lift
        diff = self._git(
            "-c", "core.quotePath=false", "diff", "-U0", "--no-color", "--no-ext-diff",
            "--no-renames", "--src-prefix=a/", "--dst-prefix=b/", chain[-1], commit, "--",
            strip=False,
        )  # fmt: skip
        worked_on = {path for paths in commits for path in paths}
        lines = {p: spans for p, spans in parse_new_lines(diff).items() if p in worked_on}
        return RecentChanges(commits, lines)

    def commit_id(self, rev: str) -> str | None:
        """The full id of the commit ``rev`` names; None when it names none (an abbreviated
        id of another repository, say)."""
        try:
            found = self._git(
                "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"
            )
        except GitCommandError:
            return None
        return found or None

    def commit_with_subject(self, commit: str, subject: str, depth: int) -> str | None:
        """The newest of ``commit`` and the commits before it (at most ``depth``) whose
        subject is ``subject``; None when none is."""
        log = self._git("log", f"-n{depth}", "--format=%H%x00%s", commit, "--")
        for line in log.split("\n"):
            sha, _, found = line.partition("\0")
            if found.strip() == subject.strip():
                return sha
        return None

    def commit_diff(self, commit: str, context: int) -> str:
        """What ``commit`` changed against its first parent, ``git diff -U<context>`` (``a/``
        and ``b/`` prefixes); a root commit is an error (GitCommandError). A partial clone
        gives nothing, as for :meth:`recent_changes`: the old blobs would come from its
        remote, one by one."""
        if self.is_partial_clone():
            return ""
        return self._git(
            "-c", "core.quotePath=false", "diff", f"-U{context}", "--no-color", "--no-ext-diff",
            "--no-renames", "--src-prefix=a/", "--dst-prefix=b/", f"{commit}^", commit, "--",
            strip=False,
        )  # fmt: skip

    def past_commits(self, commit: str, depth: int) -> tuple[PastCommit, ...]:
        """The subjects and paths of ``commit`` and the commits before it (merges left out,
        at most ``depth``; see :func:`.history.parse_subjects`). A partial clone gives
        nothing, as for :meth:`recent_changes`."""
        if self.is_partial_clone():
            return ()
        log = self._git(
            "log", "--no-merges", f"-n{depth}", "--no-renames", "--name-only", "-z",
            "--format=%x01%P%x02%an%x02%s", commit, "--",
        )  # fmt: skip
        return parse_subjects(log)

    def trailer_values(self, rev: str, key: str, depth: int) -> list[list[str]]:
        """For ``rev`` and its first-parent ancestors (newest first, at most ``depth``): the
        values of the ``key`` trailer in each commit message."""
        out = self._git(
            "log",
            "--first-parent",
            f"-n{depth}",
            f"--format=%(trailers:key={key},valueonly,separator=%x20)",
            rev,
            "--",
        )
        return [line.split() for line in out.splitlines()]

    # ------------------------------------------------------------------ files
    def tree_entries(self, rev: str, pathspecs: tuple[str, ...] = ()) -> list[TreeEntry]:
        """Every file in the tree of ``rev`` (recursively), optionally narrowed by pathspecs.

        A commit id's listing is kept: one ``ls-tree`` per commit per command, whoever asks
        (the plan, the index, the commit being built); literal pathspecs are answered from it.
        """
        cached = self._trees.get(rev)
        if cached is not None and all(p.startswith(":(literal)") for p in pathspecs):
            if not pathspecs:
                return list(cached)
            wanted = {p[len(":(literal)") :] for p in pathspecs}
            return [
                e
                for e in cached
                if e.path in wanted or any(e.path.startswith(w + "/") for w in wanted)
            ]
        entries = self._list_tree(rev, pathspecs)
        if not pathspecs and _FULL_ID.fullmatch(rev):
            self._trees[rev] = entries
        return list(entries)

    def _list_tree(self, rev: str, pathspecs: tuple[str, ...]) -> list[TreeEntry]:
        args = ["ls-tree", "-r", "-z", "-l", "--full-tree", rev]
        if pathspecs:
            args += ["--", *pathspecs]
        out = self._git(*args, strip=False)
        entries = []
        for record in out.split("\0"):
            if not record:
                continue
            meta, path = record.split("\t", 1)
            mode, _kind, sha, size = meta.split()
            entries.append(TreeEntry(path, mode, sha, int(size) if size != "-" else 0))
        return entries

    def files_mentioning(
        self, rev: str, words: Iterable[str], pathspecs: tuple[str, ...]
    ) -> list[str]:
        """Paths at ``rev`` (within ``pathspecs``) holding any of ``words`` as a whole word
        (``git grep -l -w -F``); no words, or no match: an empty list."""
        out = self._grep(["-l", "-w"], [w for w in words if w], rev, pathspecs)
        prefix = rev + ":"
        return [p[len(prefix) :] if p.startswith(prefix) else p for p in out.split("\0") if p]

    def _grep(
        self, options: Sequence[str], words: Sequence[str], rev: str, pathspecs: Sequence[str]
    ) -> str:
        """``git grep -z -F -I --full-name`` for any of ``words`` at ``rev``, NUL-separated as
        it prints it; no words, or no match: an empty string."""
        if not words:
            return ""
        args = ["grep", *options, "-z", "-F", "-I", "--full-name"]
        for word in words:
            args += ["-e", word]
        try:
            return self._git(*args, rev, "--", *pathspecs, strip=False)
        except GitCommandError as exc:
            if exc.returncode == 1:  # no match
                return ""
            raise

    def lines_holding(self, rev: str, words: Sequence[str]) -> list[tuple[str, int, str]]:
        """The (path, line number, line) of each line of the text files at ``rev`` holding
        any of ``words`` (``git grep -n -F``: fixed strings, which git finds several times
        faster than a regular expression); no words, or no match: an empty list. A partial
        clone gives nothing, as for :meth:`recent_changes`: a blob it lacks would come from its
        remote, one by one."""
        if self.is_partial_clone():
            return []
        out = self._grep(["-n"], words, rev, ())
        if not out:
            return []
        return _grep_lines(out, rev + ":")

    def tracked_files(self) -> list[str]:
        """Paths in the index (what ``git ls-files`` shows), NUL-separated on the wire."""
        out = self._git("ls-files", "-z", "--full-name", strip=False)
        return [p for p in out.split("\0") if p]

    def untracked_files(self) -> list[str]:
        """Untracked paths that ``.gitignore`` does not exclude (what ``git status`` lists)."""
        out = self._git("ls-files", "-z", "--others", "--exclude-standard", strip=False)
        return [p for p in out.split("\0") if p]

    def ignored_files(self) -> list[str]:
        """Untracked paths ``.gitignore`` excludes, a wholly ignored directory as one entry
        ending in ``/`` (``.venv/``), so that a large one costs nothing to list."""
        out = self._git(
            "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory",
            strip=False,
        )  # fmt: skip
        return [p for p in out.split("\0") if p]

    def read_blob(self, sha: str) -> bytes:
        """Raw content of a blob, through the repository's long-lived ``cat-file --batch``."""
        return self._blobs.read([sha])[0]

    def read_blobs(self, shas: Iterable[str]) -> Iterator[tuple[str, bytes]]:
        """(sha, content) for each blob, in order, through the same ``cat-file --batch``.

        For reading many blobs at once (indexing a whole tree): the ids go out a window at a
        time, so memory holds one window of blobs, not the tree.
        """
        wanted = list(shas)
        for start in range(0, len(wanted), BLOB_WINDOW):
            chunk = wanted[start : start + BLOB_WINDOW]
            yield from zip(chunk, self._blobs.read(chunk), strict=True)

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
        return self._git("hash-object", "-w", "--stdin", input=data)

    def write_blobs(self, contents: Sequence[bytes]) -> list[str]:
        """Store each of ``contents`` as a blob, their ids in order: one ``git hash-object``
        for all of them (a reply creating 20,000 files is one process, not 20,000)."""
        if len(contents) <= BLOBS_ONE_BY_ONE:
            return [self.write_blob(data) for data in contents]
        with tempfile.TemporaryDirectory(dir=self.scratch_dir()) as tmp:
            paths = []
            for number, data in enumerate(contents):
                path = os.path.join(tmp, str(number))
                with open(path, "wb") as handle:
                    handle.write(data)
                paths.append(path)
            listing = "".join(p + "\n" for p in paths).encode()
            out = self._git("hash-object", "-w", "--no-filters", "--stdin-paths", input=listing)
        ids = out.split()
        if len(ids) != len(contents):
            raise GitCommandError(f"git hash-object wrote {len(ids)} of {len(contents)} blobs")
        return ids

    def unmerged_paths(self) -> list[str]:
        """Paths with an unresolved merge conflict in the index (during a merge, rebase, ...)."""
        out = self._git("diff", "--name-only", "-z", "--diff-filter=U", strip=False)
        return sorted({p for p in out.split("\0") if p})

    def dirty_paths(self) -> set[str]:
        """Paths with staged or unstaged changes to tracked files (untracked ignored)."""
        out = self._git("status", "--porcelain=v1", "-z", "--untracked-files=no", strip=False)
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


def _grep_lines(out: str, prefix: str) -> list[tuple[str, int, str]]:
    """``git grep -z -n``'s records read in order: REV:PATH, a NUL, the line's number, a NUL,
    its text and a newline. A path may hold a newline, and a line's text a NUL (git takes a
    file for text by its first 8,000 bytes: a logo's PDF stream further on holds both
    "Version" and NULs), so each field ends at the first separator of its own kind."""
    found: list[tuple[str, int, str]] = []
    at = 0
    while at < len(out):
        path_end = out.find("\0", at)
        number_end = out.find("\0", path_end + 1) if path_end >= 0 else -1
        if number_end < 0:
            break
        text_end = out.find("\n", number_end + 1)
        text_end = len(out) if text_end < 0 else text_end
        number = out[path_end + 1 : number_end]
        if number.isascii() and number.isdigit():
            text = out[number_end + 1 : text_end]
            found.append((out[at:path_end].removeprefix(prefix), int(number), text))
        at = text_end + 1
    return found
