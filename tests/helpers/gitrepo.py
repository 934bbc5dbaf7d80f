"""Real git repositories in temporary folders, and the invariant every command must keep.

The invariant: the index file's bytes, ``git status --porcelain``, HEAD, the current branch and
every existing ref are identical before and after an operation; the only new refs are the ones
the test expects.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path


def git(cwd: Path | str, *args: str, input: bytes | None = None, check: bool = True) -> str:
    # --no-optional-locks: looking (git status) must not rewrite the index being compared.
    argv = ["git", "--no-optional-locks", *args]
    proc = subprocess.run(argv, cwd=cwd, input=input, capture_output=True, check=False)
    if check and proc.returncode != 0:
        stderr = proc.stderr.decode(errors="replace")
        raise AssertionError(f"git {' '.join(args)} failed ({proc.returncode}): {stderr}")
    return proc.stdout.decode("utf-8", "replace")


def make_repo(
    path: Path, files: dict[str, str | bytes] | None = None, *, message: str = "initial"
) -> Path:
    """A repository at ``path`` on branch ``main`` with ``files`` committed (if any)."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    if files:
        write_files(path, files)
        git(path, "add", "-A")
        git(path, "commit", "-q", "-m", message)
    return path


def write_files(root: Path, files: dict[str, str | bytes]) -> None:
    for name, content in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_bytes(content.encode("utf-8"))


def commit_all(path: Path, message: str = "more") -> str:
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", message)
    return git(path, "rev-parse", "HEAD").strip()


@dataclass(frozen=True)
class Snapshot:
    """Everything about a checkout that git-gpte promises not to change."""

    index: bytes
    status: str
    head: str
    branch: str
    refs: dict[str, str]
    worktree: dict[str, bytes]

    @classmethod
    def take(cls, repo: Path) -> Snapshot:
        git_dir = Path(git(repo, "rev-parse", "--absolute-git-dir").strip())
        index_path = git_dir / "index"
        index = index_path.read_bytes() if index_path.exists() else b""
        refs = {}
        for line in git(repo, "for-each-ref", "--format=%(refname) %(objectname)").splitlines():
            name, oid = line.split(" ", 1)
            refs[name] = oid
        files: dict[str, bytes] = {}
        for dirpath, dirnames, filenames in os.walk(repo):
            dirnames[:] = [d for d in dirnames if d != ".git"]
            for name in filenames:
                full = Path(dirpath) / name
                if not full.is_symlink():
                    files[str(full.relative_to(repo))] = full.read_bytes()
        return cls(
            index=index,
            status=git(repo, "status", "--porcelain=v1", "--untracked-files=all"),
            head=git(repo, "rev-parse", "--verify", "-q", "HEAD", check=False).strip(),
            branch=git(repo, "symbolic-ref", "-q", "HEAD", check=False).strip(),
            refs=refs,
            worktree=files,
        )

    def assert_unchanged(self, repo: Path, *, new_branches: tuple[str, ...] = ()) -> None:
        """Fail unless the checkout is byte-identical and only ``new_branches`` were added."""
        after = Snapshot.take(repo)
        assert after.index == self.index, "the index file changed"
        assert after.status == self.status, (
            f"git status changed:\n{self.status}\n---\n{after.status}"
        )
        assert after.head == self.head, "HEAD moved"
        assert after.branch == self.branch, "the current branch changed"
        assert after.worktree == self.worktree, "files in the work tree changed"
        for ref, oid in self.refs.items():
            assert after.refs.get(ref) == oid, f"{ref} changed or vanished"
        added = {r for r in after.refs if r not in self.refs and r.startswith("refs/heads/")}
        assert added == {f"refs/heads/{b}" for b in new_branches}, f"new branches: {sorted(added)}"
