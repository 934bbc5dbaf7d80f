"""The git layer on real repositories: queries, commit building, create-only branches."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from git_gpte.errors import (
    BareRepository,
    BranchExists,
    DetachedHead,
    EditError,
    EmptyRepository,
    MissingIdentity,
    NotARepository,
    UsageError,
)
from git_gpte.git import (
    FileChange,
    Repository,
    branch_from_prompt,
    build_commit,
    create_branch,
    format_message,
    slugify,
    summary_line,
    unique_branch,
)
from tests.helpers.gitrepo import Snapshot, commit_all, git, make_repo, write_files


def test_discover_from_subdirectory(repo: Path) -> None:
    r = Repository.discover(repo / "src")
    assert r.root == repo


def test_not_a_repository(tmp_path: Path) -> None:
    with pytest.raises(NotARepository, match="not a git repository"):
        Repository.discover(tmp_path)


def test_bare_repository_refused(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "--bare", "b.git")
    with pytest.raises(BareRepository):
        Repository.discover(tmp_path / "b.git")


def test_empty_repository(tmp_path: Path) -> None:
    r = Repository.discover(make_repo(tmp_path / "e"))
    assert not r.has_commits()
    assert r.head_state() == "branch main"
    with pytest.raises(EmptyRepository, match="no commits"):
        r.resolve_commit("HEAD")


def test_detached_head(repo: Path) -> None:
    git(repo, "checkout", "-q", "--detach")
    r = Repository.discover(repo)
    assert r.current_branch() is None
    assert r.head_state().startswith("detached HEAD at ")
    with pytest.raises(DetachedHead, match="detached"):
        r.require_branch("this")


def test_bad_revision(repo: Path) -> None:
    with pytest.raises(UsageError, match="not a commit"):
        Repository.discover(repo).resolve_commit("no-such-rev")


def test_missing_identity(repo: Path, hermetic: Path) -> None:
    (hermetic / ".gitconfig").write_text("")
    r = Repository.discover(repo)
    with pytest.raises(MissingIdentity, match=r"user\.name and user\.email"):
        r.identity()


def test_tracked_files_unicode_spaces_and_ignore(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "u",
        {
            "a file.txt": "x\n",
            "dir/ünï cödé.py": "y\n",
            ".gitignore": "*.log\n",
            "tab\tname.txt": "z\n",
        },
    )
    (root / "ignored.log").write_text("noise\n")
    r = Repository.discover(root)
    assert sorted(r.tracked_files()) == sorted(
        [".gitignore", "a file.txt", "dir/ünï cödé.py", "tab\tname.txt"]
    )
    head = r.resolve_commit("HEAD")
    assert sorted(e.path for e in r.tree_entries(head)) == sorted(r.tracked_files())
    assert r.read_file(head, "dir/ünï cödé.py") == b"y\n"


def test_binary_and_text(tmp_path: Path) -> None:
    from git_gpte.git import decode_text, is_binary

    root = make_repo(
        tmp_path / "b",
        {
            "img.png": b"\x89PNG\r\n\x1a\n\0\0\0",
            "latin.txt": "caf\xe9\n".encode("latin-1"),
            "ok.txt": "é\n",
        },
    )
    r = Repository.discover(root)
    head = r.resolve_commit("HEAD")
    texts = {e.path: t for e, t in r.iter_text_files(head)}
    assert texts == {"img.png": None, "latin.txt": None, "ok.txt": "é\n"}
    assert is_binary(b"a\0b") and not is_binary(b"abc")
    assert decode_text(b"\xff\xfe") is None


def test_build_commit_all_kinds_of_change(repo: Path) -> None:
    write_files(repo, {"old.txt": "bye\n", "tool.sh": "#!/bin/sh\necho hi\n"})
    os.chmod(repo / "tool.sh", 0o755)
    commit_all(repo, "second")
    # dirty the index and the work tree: they must stay byte-identical
    write_files(repo, {"README.md": "# demo, edited by the user\n", "staged.txt": "staged\n"})
    git(repo, "add", "staged.txt")
    (repo / "untracked.txt").write_text("mine\n")
    before = Snapshot.take(repo)

    r = Repository.discover(repo)
    base = r.resolve_commit("HEAD")
    changes = [
        FileChange("src/app.py", b"def main():\n    print('hi')\n"),
        FileChange("new dir/ñew file.py", b"x = 1\n"),
        FileChange("old.txt", None),
        FileChange("run.sh", b"#!/bin/sh\necho run\n", executable=True),
        FileChange("tool.sh", b"#!/bin/sh\necho changed\n"),
        FileChange("deep/er/nested/path.txt", b"deep\n"),
    ]
    message = format_message(
        "Edit things", "body text", [("Gpte-Run", "abc123"), ("Gpte-Model", "m")]
    )
    commit = build_commit(r, base, changes, message)
    create_branch(r, "gpte/edit-things", commit)

    before.assert_unchanged(repo, new_branches=("gpte/edit-things",))
    assert git(repo, "rev-parse", f"{commit}^").strip() == base
    names = git(repo, "diff", "--name-status", "-z", base, commit).split("\0")
    pairs = dict(zip(names[1::2], names[0::2], strict=False))
    assert pairs == {
        "deep/er/nested/path.txt": "A",
        "new dir/ñew file.py": "A",
        "old.txt": "D",
        "run.sh": "A",
        "src/app.py": "M",
        "tool.sh": "M",
    }
    modes = {
        line.split("\t")[1]: line.split()[0]
        for line in git(repo, "ls-tree", "-r", commit).splitlines()
    }
    assert modes["run.sh"] == "100755"
    assert modes["tool.sh"] == "100755"  # mode kept when not specified
    assert modes["src/app.py"] == "100644"
    body = git(repo, "log", "-1", "--format=%B", commit)
    assert body.startswith("Edit things\n\nbody text\n\n")
    trailers = git(repo, "log", "-1", "--format=%(trailers:key=Gpte-Run,valueonly)", commit)
    assert trailers.strip() == "abc123"
    assert (
        git(repo, "log", "-1", "--format=%an <%ae>", commit).strip()
        == "Test User <test@example.com>"
    )
    assert not list(Path(r.state_dir()).glob("index-*")), "temporary index left behind"


def test_build_commit_on_base_that_is_not_head(repo: Path) -> None:
    first = git(repo, "rev-parse", "HEAD").strip()
    write_files(repo, {"later.txt": "later\n"})
    commit_all(repo, "later")
    r = Repository.discover(repo)
    commit = build_commit(r, first, [FileChange("x.txt", b"x\n")], "x\n")
    assert git(repo, "rev-parse", f"{commit}^").strip() == first
    files = git(repo, "ls-tree", "-r", "--name-only", commit).split()
    assert "later.txt" not in files and "x.txt" in files


def test_build_commit_nothing_changed(repo: Path) -> None:
    r = Repository.discover(repo)
    base = r.resolve_commit("HEAD")
    same = r.read_file(base, "README.md")
    with pytest.raises(EditError, match="change nothing"):
        build_commit(r, base, [FileChange("README.md", same)], "m\n")


def test_temporary_index_removed_on_error(repo: Path) -> None:
    r = Repository.discover(repo)
    with pytest.raises(Exception):  # noqa: B017 - any failure; the point is the cleanup
        build_commit(r, "0" * 40, [FileChange("a", b"a")], "m\n")
    assert not list(Path(r.state_dir()).glob("index-*"))


def test_root_commit_for_empty_repository(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "e")
    r = Repository.discover(root)
    commit = build_commit(r, None, [FileChange("a.txt", b"a\n")], "first\n")
    assert git(root, "rev-list", "--count", commit).strip() == "1"


def test_existing_branch_is_refused_and_untouched(repo: Path) -> None:
    r = Repository.discover(repo)
    base = r.resolve_commit("HEAD")
    git(repo, "branch", "gpte/taken")
    before = Snapshot.take(repo)
    commit = build_commit(r, base, [FileChange("a.txt", b"a\n")], "a\n")
    with pytest.raises(BranchExists, match="already exists"):
        create_branch(r, "gpte/taken", commit)
    with pytest.raises(BranchExists):
        create_branch(r, "gpte/taken/sub", commit)  # would clash with the existing ref
    before.assert_unchanged(repo)
    assert git(repo, "rev-parse", "gpte/taken").strip() == base


def test_unique_branch_and_slugs(repo: Path) -> None:
    r = Repository.discover(repo)
    assert slugify("Add logging to the CLI!") == "add-logging-cli"
    assert slugify("Ünïcode façade ☃ support") == "unicode-facade-support"
    assert slugify("!!!") == "edit"
    assert len(slugify("word " * 40)) <= 48
    name = branch_from_prompt("add logging")
    assert name == "gpte/add-logging"
    assert unique_branch(r, name) == name
    git(repo, "branch", name)
    assert unique_branch(r, name) == "gpte/add-logging-2"
    git(repo, "branch", "gpte/add-logging-2")
    assert unique_branch(r, name) == "gpte/add-logging-3"
    with pytest.raises(UsageError, match="not a valid branch name"):
        unique_branch(r, "bad..name")


def test_summary_line() -> None:
    assert summary_line("add logging\nmore") == "add logging"
    long = summary_line("word " * 30)
    assert len(long) <= 72 and long.endswith("…")


def test_blobs_in_bulk_through_one_cat_file(tmp_path: Path) -> None:
    """More blobs than one request window, in order, byte for byte (a NUL, no final newline);
    an id that is not a blob is a clear GitCommandError, and the reader still works after it."""
    from git_gpte.errors import GitCommandError

    files: dict[str, str | bytes] = {f"f{i:03}.txt": f"file {i}\n" * (i + 1) for i in range(150)}
    files["bin.dat"] = b"\x00\x01no newline at the end"
    root = make_repo(tmp_path / "bulk", files)
    repo = Repository.discover(root)
    entries = repo.tree_entries("HEAD")
    read = dict(repo.read_blobs([e.sha for e in entries]))
    assert len(read) == len(entries) == 151
    for entry in entries:
        assert read[entry.sha] == (root / entry.path).read_bytes()
    head = git(root, "rev-parse", "HEAD").strip()
    with pytest.raises(GitCommandError, match="not a blob"):
        repo.read_blob(head)  # a commit, not a blob
    with pytest.raises(GitCommandError, match="not a blob"):
        repo.read_blob("0" * 40)
    assert repo.read_blob(entries[0].sha) == (root / entries[0].path).read_bytes()
    repo.close()


def test_git_variables_of_the_caller_do_not_redirect_the_plumbing(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A GIT_INDEX_FILE or GIT_OBJECT_DIRECTORY inherited from a hook must not send commits to
    another index or object store: the one list in git/env.py strips them."""
    from git_gpte.git.env import STRIPPED, git_environment

    stray = tmp_path / "stray-index"
    monkeypatch.setenv("GIT_INDEX_FILE", str(stray))
    monkeypatch.setenv("GIT_OBJECT_DIRECTORY", str(tmp_path / "elsewhere"))
    env = git_environment()
    assert not set(STRIPPED) & set(env)
    handle = Repository.discover(repo)
    head = handle.resolve_commit("HEAD")
    commit = build_commit(handle, head, [FileChange("new.txt", b"x\n")], "add\n")
    monkeypatch.delenv("GIT_INDEX_FILE")
    monkeypatch.delenv("GIT_OBJECT_DIRECTORY")
    assert git(repo, "cat-file", "-t", commit).strip() == "commit"  # in the repository's store
    assert not stray.exists()
