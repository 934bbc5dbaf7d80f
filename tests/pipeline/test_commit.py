"""pipeline/commit.py on real repositories: a new branch is created only if free, an existing one
advances only from where it was expected, unsafe paths are never committed, and the user's
checkout is never touched."""

from __future__ import annotations

from pathlib import Path

import pytest

from git_gpte.errors import BranchExists, UnsafePathError
from git_gpte.git import FileChange, Repository, format_message
from git_gpte.pipeline.commit import CommitSpec, commit, run_trailers
from tests.helpers.gitrepo import Snapshot, git, make_repo

WHO = ("Ada", "ada@example.com")


@pytest.fixture
def repo(tmp_path: Path) -> Repository:
    return Repository.discover(make_repo(tmp_path / "r", {"a.py": "x = 1\n", "b.py": "y = 2\n"}))


def test_a_new_branch_holds_the_changes_and_the_message(repo: Repository) -> None:
    before = Snapshot.take(repo.root)
    base = repo.resolve_commit("HEAD")
    message = format_message("Set x to 2", "Prompt:\n\n    set x", run_trailers("abc123", "m"))
    changes = [FileChange("a.py", b"x = 2\n"), FileChange("b.py", None), FileChange("c.py", b"")]
    sha = commit(repo, CommitSpec("gpte/x", base, message, WHO), changes)
    assert git(repo.root, "rev-parse", "refs/heads/gpte/x").strip() == sha
    assert git(repo.root, "show", f"{sha}:a.py") == "x = 2\n"
    assert git(repo.root, "ls-tree", "--name-only", sha).split() == ["a.py", "c.py"]
    body = git(repo.root, "log", "-1", "--format=%an <%ae>%n%B", sha)
    assert body.startswith("Ada <ada@example.com>\nSet x to 2\n")
    assert "Gpte-Run: abc123\nGpte-Model: m" in body
    before.assert_unchanged(repo.root, new_branches=("gpte/x",))


def test_a_taken_name_is_never_overwritten(repo: Repository) -> None:
    base = repo.resolve_commit("HEAD")
    first = commit(repo, CommitSpec("gpte/x", base, "one", WHO), [FileChange("a.py", b"1\n")])
    with pytest.raises(BranchExists):
        commit(repo, CommitSpec("gpte/x", base, "two", WHO), [FileChange("a.py", b"2\n")])
    assert git(repo.root, "rev-parse", "refs/heads/gpte/x").strip() == first


def test_a_branch_advances_only_from_where_it_was_expected(repo: Repository) -> None:
    base = repo.resolve_commit("HEAD")
    first = commit(repo, CommitSpec("gpte/x", base, "one", WHO), [FileChange("a.py", b"1\n")])
    second = commit(
        repo, CommitSpec("gpte/x", first, "two", WHO, expect=first), [FileChange("a.py", b"2\n")]
    )
    assert git(repo.root, "rev-parse", f"{second}^").strip() == first
    with pytest.raises(BranchExists):  # moved meanwhile: the stale expectation loses
        commit(
            repo, CommitSpec("gpte/x", first, "three", WHO, expect=first), [FileChange("b.py", b"")]
        )
    assert git(repo.root, "rev-parse", "refs/heads/gpte/x").strip() == second


@pytest.mark.parametrize("path", ["a.py/inner.py", ".git/hooks/post-commit"])
def test_unsafe_paths_are_never_committed(repo: Repository, path: str) -> None:
    base = repo.resolve_commit("HEAD")
    with pytest.raises(UnsafePathError):
        commit(repo, CommitSpec("gpte/x", base, "m", WHO), [FileChange(path, b"boom\n")])
    assert git(repo.root, "branch", "--list", "gpte/x").strip() == ""
