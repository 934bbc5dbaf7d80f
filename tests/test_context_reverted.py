"""A request that reverts a commit is about what that commit wrote, whatever its words."""

from __future__ import annotations

import json
from pathlib import Path

from git_gpte.context.reverted import Hunk, locate, parse_hunks, reverted_ids, reverted_subject
from tests.conftest import run_gpte
from tests.helpers.context_cli import holds, sent
from tests.helpers.gitrepo import commit_all, git, make_repo, write_files

DIFF = """diff --git a/src/config.py b/src/config.py
index 1111111..2222222 100644
--- a/src/config.py
+++ b/src/config.py
@@ -10,2 +10,3 @@ def load(path):
     found = find(path)
+    found = prefer_local(found)
     return found
@@ -30,3 +31,2 @@ def save(path):
     data = dump()
-    check(data)
     write(path, data)
diff --git a/schema.sql b/schema.sql
--- a/schema.sql
+++ b/schema.sql
@@ -4,3 +4,3 @@ create table t (
 id int,
--- the name
+++ the name, unique
 name text
\\ No newline at end of file
diff --git a/old.py b/old.py
deleted file mode 100644
--- a/old.py
+++ /dev/null
@@ -1 +0,0 @@
-x = 1
"""


def test_the_commits_a_request_reverts_are_named_by_id_or_by_subject() -> None:
    message = 'Revert "Prefer `.flake8` if present"\n\nThis reverts commit DB9D4AD8b4cc2aab.\n'
    assert reverted_ids(message) == ("db9d4ad8b4cc2aab",)
    assert reverted_subject(message) == "Prefer `.flake8` if present"
    assert reverted_subject('Revert "Revert "Fix routes""') == 'Revert "Fix routes"'
    assert reverted_subject('Revert "Add hooks" (#4521)\n\nReverts a/b#4519') == "Add hooks"
    assert reverted_ids("Reverts owner/repo#12") == ()
    assert reverted_subject("Reverting the cache is not a revert") is None


def test_a_diffs_new_sides_are_read_with_their_context() -> None:
    hunks = parse_hunks(DIFF)
    assert hunks == {
        "src/config.py": (
            Hunk(
                10,
                ("    found = find(path)", "    found = prefer_local(found)", "    return found"),
            ),
            Hunk(31, ("    data = dump()", "    write(path, data)")),
        ),
        # lines that look like a diff's headers are a hunk's own lines
        "schema.sql": (Hunk(4, ("id int,", "++ the name, unique", "name text")),),
    }  # a deleted file has no new side


def test_hunks_are_found_where_they_stand_now_the_nearest_when_repeated() -> None:
    text = "\n".join(["a", "x", "y", "b", "c", "x", "y", "d", "e"])
    assert locate([Hunk(6, ("x", "y"))], text) == ((6, 7),)  # moved by nothing: the one at 6
    assert locate([Hunk(1, ("x", "y"))], text) == ((2, 3),)  # moved down a line
    assert locate([Hunk(4, ("x", "z"))], text) == ()  # edited since: not found


def _module(name: str, count: int) -> str:
    return "".join(
        f"def {name}_step{n}(items, limit):\n"
        f"    total = sum(item.size for item in items[:limit])\n"
        f"    return total * {n}\n\n\n"
        for n in range(count)
    )


def test_a_revert_sends_the_lines_the_reverted_commit_wrote(tmp_path: Path) -> None:
    # Seen on flake8: 'Revert "Prefer `.flake8` if present for options."' changed
    # options/config.py, which none of its words matched well (ranked past a 16k budget).
    files = {f"pkg/mod{n}.py": _module(f"mod{n}", 40) for n in range(6)}
    files["pkg/options/config.py"] = _module("config", 60)
    repo = make_repo(tmp_path / "r", files)
    text = files["pkg/options/config.py"].replace(
        "def config_step37(items, limit):\n",
        "def config_step37(items, limit):\n    items = sorted(items, key=by_name)\n",
    )
    write_files(repo, {"pkg/options/config.py": text})
    reverted = commit_all(repo, "Prefer the local file when present")
    for n in range(6):  # later work elsewhere: the reverted lines are not the latest change
        write_files(repo, {f"pkg/mod{n}.py": _module(f"mod{n}", 41)})
        commit_all(repo, f"more steps in mod{n}")
    added = text.splitlines().index("    items = sorted(items, key=by_name)") + 1
    for request in (
        f'Revert "Prefer the local file when present"\n\nThis reverts commit {reverted[:12]}.',
        'Revert "Prefer the local file when present"',  # GitHub's button: no commit id
    ):
        entries = sent(repo, request, 1500)
        assert holds(entries, "pkg/options/config.py", added), entries
        why = run_gpte("context", "--json", "--tokens", "1500", request, cwd=repo)
        picks = {p["path"]: p for p in json.loads(why.stdout)["picks"]}
        assert "changed by the commit it reverts" in picks["pkg/options/config.py"]["reasons"]


def test_a_commit_id_this_history_lacks_changes_nothing(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.py": _module("a", 5)})
    git(repo, "rev-parse", "HEAD")
    request = 'Revert "gone"\n\nThis reverts commit 0123456789abcdef0123456789abcdef01234567.'
    done = run_gpte("context", "--format", "lines", "--tokens", "1500", request, cwd=repo)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["a.py"]


def test_a_sweeping_commit_reverted_points_nowhere(tmp_path: Path) -> None:
    files = {f"pkg/m{n}.py": _module(f"m{n}", 3) for n in range(31)}
    repo = make_repo(tmp_path / "r", files)
    write_files(repo, {path: text + "\n# reformatted\n" for path, text in files.items()})
    sweeping = commit_all(repo, "Reformat everything")
    request = f'Revert "Reformat everything"\n\nThis reverts commit {sweeping}.'
    done = run_gpte("context", "--json", "--tokens", "4000", request, cwd=repo)
    assert done.returncode == 0, done.stderr
    reasons = [r for p in json.loads(done.stdout)["picks"] for r in p["reasons"]]
    assert "changed by the commit it reverts" not in reasons


def test_a_partial_clone_fetches_nothing_for_a_revert(tmp_path: Path) -> None:
    files = {f"pkg/m{n}.py": _module(f"m{n}", 20) for n in range(3)}
    root = make_repo(tmp_path / "r", files)
    write_files(root, {"pkg/m1.py": files["pkg/m1.py"].replace("* 7\n", "* 70\n")})
    change = commit_all(root, "Scale the seventh step")
    git(root, "config", "uploadpack.allowFilter", "true")
    partial = tmp_path / "partial"
    git(tmp_path, "clone", "-q", "--filter=blob:none", f"file://{root}", str(partial))

    def missing() -> int:
        listed = git(partial, "rev-list", "--objects", "--missing=print", "--all")
        return sum(line.startswith("?") for line in listed.splitlines())

    before = missing()
    assert before > 0  # the first commit's m1.py is not here
    request = f'Revert "Scale the seventh step"\n\nThis reverts commit {change}.'
    done = run_gpte("context", "--format", "lines", "--tokens", "1500", request, cwd=partial)
    assert done.returncode == 0, done.stderr
    assert missing() == before
