# ruff: noqa: E501  (replies are test data; kept on one line to read like the reply)
"""``git gpte apply`` end to end, through the installed CLI."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.conftest import run_gpte
from tests.helpers.gitrepo import Snapshot, git

GOOD = "```diff\n--- src/app.py\n+++ src/app.py\n@@ -1,2 +1,2 @@\n def main():\n-    print('hello')\n+    print('hello, world')\n```\n"
BAD = "```diff\n--- src/app.py\n+++ src/app.py\n@@ -1,2 +1,2 @@\n def start():\n-    print('bye')\n+    print('x')\n```\n"


def reply(tmp_path: Path, text: str) -> str:
    path = tmp_path / "reply.md"
    path.write_text(text)
    return str(path)


def test_applies_to_work_tree_exit_0(repo: Path, tmp_path: Path) -> None:
    proc = run_gpte("apply", reply(tmp_path, GOOD), cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert "applied   src/app.py hunk 1" in proc.stdout
    assert (repo / "src/app.py").read_text().startswith("def main():\n    print('hello, world')\n")
    assert git(repo, "diff", "--cached") == ""  # the index is not touched


def test_some_refused_exit_1_others_written(repo: Path, tmp_path: Path) -> None:
    text = (
        GOOD
        + "```diff\n--- README.md\n+++ README.md\n@@ -1 +1 @@\n-# nothing like this\n+# x\n```\n"
    )
    proc = run_gpte("apply", reply(tmp_path, text), cwd=repo)
    assert proc.returncode == 1
    assert "refused   README.md hunk 1" in proc.stdout
    assert "hello, world" in (repo / "src/app.py").read_text()
    assert (repo / "README.md").read_text() == "# demo\n"


def test_all_refused_exit_6_nothing_written(repo: Path, tmp_path: Path) -> None:
    snap = Snapshot.take(repo)
    proc = run_gpte("apply", reply(tmp_path, BAD), cwd=repo)
    assert proc.returncode == 6 and "every hunk was refused" in proc.stderr
    snap.assert_unchanged(repo)


def test_no_edits_exit_6_and_unreadable_reply_exit_2(repo: Path, tmp_path: Path) -> None:
    proc = run_gpte("apply", "-", cwd=repo, input="Sorry, I cannot help with that.\n")
    assert proc.returncode == 6 and "no edits found" in proc.stderr
    proc = run_gpte("apply", str(tmp_path / "missing.md"), cwd=repo)
    assert proc.returncode == 2 and "cannot read the reply" in proc.stderr
    (tmp_path / "bin.md").write_bytes(b"\xff\xfe\x00bad")
    proc = run_gpte("apply", str(tmp_path / "bin.md"), cwd=repo)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


def test_stdin_and_check_writes_nothing(repo: Path) -> None:
    snap = Snapshot.take(repo)
    proc = run_gpte("apply", "--check", "-", cwd=repo, input=GOOD)
    assert proc.returncode == 0 and "--check: nothing written" in proc.stdout
    snap.assert_unchanged(repo)


def test_json_report(repo: Path, tmp_path: Path) -> None:
    proc = run_gpte(
        "apply",
        "--json",
        "--check",
        reply(tmp_path, GOOD + BAD.replace("src/app.py", "README.md")),
        cwd=repo,
    )
    data = json.loads(proc.stdout)
    assert proc.returncode == 1
    assert [h["status"] for h in data["hunks"]] == ["applied", "refused"]
    assert data["hunks"][1]["expected"] == ["def start():", "    print('bye')"]
    assert "README.md, hunk 1" in data["retry_prompt"] and data["written"] is False


def test_unsafe_path_exit_7_nothing_written(repo: Path, tmp_path: Path) -> None:
    snap = Snapshot.take(repo)
    evil = GOOD + "```diff\n--- /dev/null\n+++ ../evil.txt\n@@ -0,0 +1 @@\n+x\n```\n"
    proc = run_gpte("apply", reply(tmp_path, evil), cwd=repo)
    assert proc.returncode == 7 and "leaves the repository" in proc.stderr
    snap.assert_unchanged(repo)
    assert not (repo.parent / "evil.txt").exists()


def test_symlink_escape_refused(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, repo / "link")
    git(repo, "add", "link")
    git(repo, "commit", "-q", "-m", "link")
    snap = Snapshot.take(repo)
    proc = run_gpte(
        "apply", reply(tmp_path, "--- /dev/null\n+++ link/x.py\n@@ -0,0 +1 @@\n+x\n"), cwd=repo
    )
    assert proc.returncode == 7 and "symlink" in proc.stderr
    assert not (outside / "x.py").exists()
    snap.assert_unchanged(repo)


def test_binary_target_refused_clearly(repo: Path, tmp_path: Path) -> None:
    (repo / "data.bin").write_bytes(b"\x00\x01\x02a\n")
    git(repo, "add", "data.bin")
    git(repo, "commit", "-q", "-m", "bin")
    proc = run_gpte(
        "apply", reply(tmp_path, "--- data.bin\n+++ data.bin\n@@ -1 +1 @@\n-a\n+b\n"), cwd=repo
    )
    assert proc.returncode == 6 and "binary or not UTF-8" in proc.stdout


def test_branch_commits_and_checkout_stays_identical(repo: Path, tmp_path: Path) -> None:
    (repo / "README.md").write_text("# local change\n")  # uncommitted work must survive
    snap = Snapshot.take(repo)
    proc = run_gpte("apply", "--branch", "gpte/greet", reply(tmp_path, GOOD), cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert "created branch gpte/greet" in proc.stdout
    snap.assert_unchanged(repo, new_branches=("gpte/greet",))
    shown = git(repo, "show", "gpte/greet:src/app.py")
    assert "hello, world" in shown
    assert git(repo, "rev-parse", "gpte/greet^").strip() == snap.head
    assert (
        git(repo, "show", "-s", "--format=%s", "gpte/greet").strip()
        == "Apply LLM edits to src/app.py"
    )
    again = run_gpte("apply", "--branch", "gpte/greet", reply(tmp_path, GOOD), cwd=repo)
    assert again.returncode == 3 and "already exists" in again.stderr


def test_crlf_file_stays_crlf(repo: Path, tmp_path: Path) -> None:
    (repo / "w.txt").write_bytes(b"a\r\nb\r\nc\r\n")
    git(repo, "add", "w.txt")
    git(repo, "commit", "-q", "-m", "crlf")
    proc = run_gpte(
        "apply",
        reply(tmp_path, "--- w.txt\n+++ w.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"),
        cwd=repo,
    )
    assert proc.returncode == 0
    assert (repo / "w.txt").read_bytes() == b"a\r\nB\r\nc\r\n"


def test_not_a_repository(tmp_path: Path) -> None:
    proc = run_gpte("apply", "-", cwd=tmp_path, input=GOOD)
    assert proc.returncode == 3 and "not a git repository" in proc.stderr
