# ruff: noqa: E501  (replies are test data; kept on one line to read like the reply)
"""``git gpte apply`` on replies that tripped earlier versions: each case end to end, by the CLI."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import run_gpte
from tests.helpers.gitrepo import Snapshot, make_repo


def reply(tmp_path: Path, text: str) -> str:
    path = tmp_path / "reply.md"
    path.write_text(text, encoding="utf-8")
    return str(path)


def apply_json(repo: Path, tmp_path: Path, text: str, *args: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    proc = run_gpte("apply", "--json", *args, reply(tmp_path, text), cwd=repo)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, json.loads(proc.stdout) if proc.stdout.strip() else {}


# ------------------------------------------------------------------ mixed formats
MIXED = """I changed both files.

```diff
--- a.py
+++ a.py
@@ -1,2 +1,2 @@
 def a():
-    return 1
+    return 2
```

b.py
```python
<<<<<<< SEARCH
def b():
    return 1
=======
def b():
    return 3
>>>>>>> REPLACE
```

c.txt
```
a brand new file
```
"""


def test_a_reply_mixing_formats_applies_every_edit(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "r", {"a.py": "def a():\n    return 1\n", "b.py": "def b():\n    return 1\n"}
    )
    proc = run_gpte("apply", reply(tmp_path, MIXED), cwd=repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "3 file(s) changed" in proc.stdout
    assert (repo / "a.py").read_text() == "def a():\n    return 2\n"
    assert (repo / "b.py").read_text() == "def b():\n    return 3\n"
    assert (repo / "c.txt").read_text() == "a brand new file\n"


def test_mixed_reply_on_a_branch_names_both_formats(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "r", {"a.py": "def a():\n    return 1\n", "b.py": "def b():\n    return 1\n"}
    )
    text = MIXED.split("c.txt")[0]
    proc = run_gpte("apply", "--branch", "mixed", reply(tmp_path, text), cwd=repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    from tests.helpers.gitrepo import git

    assert git(repo, "show", "mixed:b.py") == "def b():\n    return 3\n"
    assert "Gpte-Apply: diff+search-replace" in git(repo, "log", "-1", "--format=%B", "mixed")


def test_search_replace_text_inside_a_diff_is_the_diffs_content(tmp_path: Path) -> None:
    # A diff that adds SEARCH/REPLACE markers to a prompt file: they are lines of the diff,
    # not an edit of their own.
    repo = make_repo(tmp_path / "r", {"prompt.txt": "Use blocks like:\nend\n"})
    text = (
        "```diff\n--- prompt.txt\n+++ prompt.txt\n@@ -1,2 +1,7 @@\n Use blocks like:\n"
        "+<<<<<<< SEARCH\n+old\n+=======\n+new\n+>>>>>>> REPLACE\n end\n```\n"
    )
    code, data = apply_json(repo, tmp_path, text)
    assert code == 0 and len(data["hunks"]) == 1
    assert (repo / "prompt.txt").read_text() == (
        "Use blocks like:\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\nend\n"
    )


# ------------------------------------------------------------------ git's quoted paths
def test_git_quoted_utf8_path_is_the_real_file(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"café.py": "x = 1\n"})
    text = '--- "a/caf\\303\\251.py"\n+++ "b/caf\\303\\251.py"\n@@ -1 +1 @@\n-x = 1\n+x = 2\n'
    proc = run_gpte("apply", reply(tmp_path, text), cwd=repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (repo / "café.py").read_text() == "x = 2\n"
    assert sorted(p.name for p in repo.iterdir() if p.name != ".git") == ["café.py"]


def test_git_quoted_path_with_a_newline_is_refused_nothing_written(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"ok.py": "x = 1\n"})
    snap = Snapshot.take(repo)
    text = (
        "--- ok.py\n+++ ok.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"
        '--- /dev/null\n+++ "b/evil\\nname.py"\n@@ -0,0 +1 @@\n+boom\n'
    )
    proc = run_gpte("apply", reply(tmp_path, text), cwd=repo)
    assert proc.returncode == 7, proc.stdout + proc.stderr
    assert "control character" in proc.stderr and len(proc.stderr.strip().splitlines()) <= 2
    snap.assert_unchanged(repo)
    assert not (repo / "b").exists() and not (repo / "evil").exists()


def test_git_quoted_escapes_and_non_utf8_bytes(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {'say "hi".txt': "a\n"})
    text = '--- "a/say \\"hi\\".txt"\t2024-01-01 10:00\n+++ "b/say \\"hi\\".txt"\t2024-01-01 10:00\n@@ -1 +1 @@\n-a\n+b\n'
    proc = run_gpte("apply", reply(tmp_path, text), cwd=repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (repo / 'say "hi".txt').read_text() == "b\n"
    bad = '--- /dev/null\n+++ "b/x\\377.py"\n@@ -0,0 +1 @@\n+x\n'
    proc = run_gpte("apply", reply(tmp_path, bad), cwd=repo)
    assert proc.returncode == 7 and "not UTF-8" in proc.stderr


# ------------------------------------------------------------------ near-identical blocks
TWIN = """import log


def fetch_all(url, mirror):
    try:
        config = fetch(url)
    except OSError:
        log.warning("failed %s", url)
        config = None
    try:
        config = fetch(mirror)
    except OSError:
        log.warning("failed %s", mirror)
        config = None
    return config
"""
# Meant for the second block (mirror): every line matches it exactly, except an invented
# comment and one wrongly indented line. The first block only resembles it (url, not mirror),
# and the header's line number points at the first block.
TWIN_REPLY = """```diff
--- twin.py
+++ twin.py
@@ -5,5 +5,5 @@
     try:
       config = fetch(mirror)
     except OSError:
         log.warning("failed %s", mirror)
         # retry once
-        config = None
+        config = {}
```
"""


def test_exact_lines_outweigh_a_near_identical_neighbour(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"twin.py": TWIN})
    code, data = apply_json(repo, tmp_path, TWIN_REPLY)
    assert code == 0 and data["hunks"][0]["status"] == "corrected"
    assert data["hunks"][0]["line"] == 10
    assert (repo / "twin.py").read_text() == TWIN.replace(
        '"failed %s", mirror)\n        config = None', '"failed %s", mirror)\n        config = {}'
    )


def test_near_identical_blocks_with_nothing_exact_to_decide_are_refused(tmp_path: Path) -> None:
    # The hunk's fetch line is the first block's, its log line the second's: each block has
    # one line that only resembles the hunk's, and with no line number nothing decides.
    repo = make_repo(tmp_path / "r", {"twin.py": TWIN})
    snap = Snapshot.take(repo)
    text = TWIN_REPLY.replace("@@ -5,5 +5,5 @@", "@@ ... @@").replace("fetch(mirror)", "fetch(url)")
    code, data = apply_json(repo, tmp_path, text)
    assert code == 6 and data["hunks"][0]["status"] == "refused"
    assert "several places" in data["hunks"][0]["detail"]
    snap.assert_unchanged(repo)


# ------------------------------------------------------------------ added lines with no anchor
EMPTY_SEARCH = "{path}\n```\n<<<<<<< SEARCH\n=======\nprint('added')\n>>>>>>> REPLACE\n```\n"
NO_CONTEXT = "```diff\n--- {path}\n+++ {path}\n@@ -0,0 +1 @@\n+print('added')\n```\n"


def test_empty_search_and_context_free_hunk_follow_one_rule(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"full.py": "x = 1\n", "empty.py": "", "blank.py": "\n"})
    snap = Snapshot.take(repo)
    details = []
    for form in (EMPTY_SEARCH, NO_CONTEXT):
        code, data = apply_json(repo, tmp_path, form.format(path="full.py"))
        assert code == 6 and data["hunks"][0]["status"] == "refused"
        details.append(data["hunks"][0]["detail"])
    snap.assert_unchanged(repo)
    assert details[0] == details[1] and "nothing to place them by" in details[0]
    # On an empty (or blank) file and on a new file, both write the added lines.
    for form in (EMPTY_SEARCH, NO_CONTEXT):
        for path in ("empty.py", "blank.py", "new.py"):
            code, data = apply_json(repo, tmp_path, form.format(path=path), "--check")
            assert code == 0, (form, path, data)
    proc = run_gpte("apply", reply(tmp_path, EMPTY_SEARCH.format(path="empty.py")), cwd=repo)
    assert proc.returncode == 0 and (repo / "empty.py").read_text() == "print('added')\n"
    proc = run_gpte("apply", reply(tmp_path, NO_CONTEXT.format(path="new.py")), cwd=repo)
    assert proc.returncode == 0 and "new.py did not exist: created it" in proc.stdout
    assert (repo / "new.py").read_text() == "print('added')\n"


# ------------------------------------------------------------------ path lines
def test_bare_root_names_and_bracket_paths_before_blocks(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "r",
        {
            "tool": "#!/bin/sh\necho old\n",
            "setup": "name=old\n",
            "pages/[id].jsx": "export default 1;\n",
            "file[1].py": "x = 1\n",
        },
    )
    text = (
        "tool\n```sh\n<<<<<<< SEARCH\necho old\n=======\necho new\n>>>>>>> REPLACE\n```\n\n"
        "pages/[id].jsx\n```jsx\n<<<<<<< SEARCH\nexport default 1;\n=======\nexport default 2;\n>>>>>>> REPLACE\n```\n"
    )
    proc = run_gpte("apply", reply(tmp_path, text), cwd=repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (repo / "tool").read_text() == "#!/bin/sh\necho new\n"
    assert (repo / "pages/[id].jsx").read_text() == "export default 2;\n"
    whole = "setup\n```\nname=new\n```\n\nfile[1].py\n```python\nx = 2\n```\n"
    proc = run_gpte("apply", reply(tmp_path, whole), cwd=repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (repo / "setup").read_text() == "name=new\n"
    assert (repo / "file[1].py").read_text() == "x = 2\n"


def test_prose_lines_before_fences_are_not_paths(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.py": "x = 1\n"})
    snap = Snapshot.take(repo)
    labels = [
        "Output",
        "output",
        "Example:",
        "Usage:",
        "bash",
        "Done.",
        "Here is the fix:",
        "tool:",
        "Sure!",
        "Explanation",
        "(optional)",
        "[1]",
        "Note:",
    ]
    text = "".join(f"{label}\n```\nsome text\n```\n\n" for label in labels)
    proc = run_gpte("apply", reply(tmp_path, text), cwd=repo)
    assert proc.returncode == 6 and "no edits found" in proc.stderr
    snap.assert_unchanged(repo)
    assert sorted(p.name for p in repo.iterdir()) == [".git", "a.py"]


def test_whole_file_named_only_in_the_prose_before_the_fence(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "one\ntwo\n"})
    text = "Here is the new version of `a.txt`:\n\n```\none\ntwo\nthree\n```\n"
    proc = run_gpte("apply", reply(tmp_path, text), cwd=repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (repo / "a.txt").read_text() == "one\ntwo\nthree\n"
    # Prose that announces a part of a file, or names two files, names no whole file.
    snap = Snapshot.take(repo)
    for sentence in (
        "Add this to `a.txt`:",
        "Here is the updated function in `a.txt`:",
        "The new lines for `a.txt` and `b.txt`:",
        "Here is the new version of `a.txt`.",
    ):
        proc = run_gpte("apply", reply(tmp_path, f"{sentence}\n```\nfour\n```\n"), cwd=repo)
        assert proc.returncode == 6 and "no edits found" in proc.stderr, sentence
    snap.assert_unchanged(repo)


# ------------------------------------------------------------------ SEARCH that lost indentation
ACCOUNT = """class Account:
    def deposit(self, amount):
        if amount <= 0:
            raise ValueError("amount")
        self.balance += amount
        return self.balance

    def withdraw(self, amount):
        self.balance -= amount
        return self.balance
"""


def sr_block(search: str, replace: str) -> str:
    return (
        f"acct.py\n```python\n<<<<<<< SEARCH\n{search}\n=======\n{replace}\n>>>>>>> REPLACE\n```\n"
    )


def test_search_without_indentation_reindents_the_replacement(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"acct.py": ACCOUNT})
    # Uniform: the SEARCH lost 4 spaces; the REPLACE nests a block and has a blank line.
    text = sr_block(
        "def withdraw(self, amount):\n    self.balance -= amount",
        'def withdraw(self, amount):\n    if amount > self.balance:\n        raise ValueError("overdraft")\n\n    self.balance -= amount',
    )
    # Varied: every line flattened to column 0; each changed line replaces a similar one.
    text += sr_block(
        'if amount <= 0:\nraise ValueError("amount")',
        'if amount < 0:\nraise ValueError("negative amount")',
    )
    proc = run_gpte("apply", reply(tmp_path, text), cwd=repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "indented 4 spaces deeper" in proc.stdout and "line by line" in proc.stdout
    result = (repo / "acct.py").read_text()
    assert result == ACCOUNT.replace(
        "    def withdraw(self, amount):\n",
        '    def withdraw(self, amount):\n        if amount > self.balance:\n            raise ValueError("overdraft")\n\n',
    ).replace(
        '        if amount <= 0:\n            raise ValueError("amount")',
        '        if amount < 0:\n            raise ValueError("negative amount")',
    )
    compile(result, "acct.py", "exec")


def test_search_that_lost_nesting_it_cannot_restore_is_refused(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"acct.py": ACCOUNT})
    snap = Snapshot.take(repo)
    for search, replace in [
        # flattened, and the new lines open a block: how deep `log` goes is lost
        (
            'if amount <= 0:\nraise ValueError("amount")\nself.balance += amount',
            'if amount <= 0:\nraise ValueError("amount")\nif amount > 100:\nlog(amount)\nself.balance += amount',
        ),
        # flattened, inserted between lines of different depth: inside the `if` or after it?
        (
            'if amount <= 0:\nraise ValueError("amount")\nself.balance += amount',
            'if amount <= 0:\nraise ValueError("amount")\nlog(amount)\nself.balance += amount',
        ),
    ]:
        code, data = apply_json(repo, tmp_path, sr_block(search, replace))
        assert code == 6 and "indented differently" in data["hunks"][0]["detail"], data
    snap.assert_unchanged(repo)


def test_diff_whose_lines_lost_indentation_is_reindented_too(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"acct.py": ACCOUNT})
    text = "```diff\n--- acct.py\n+++ acct.py\n@@ -9,2 +9,3 @@\n self.balance -= amount\n+self.log(amount)\n return self.balance\n```\n"
    proc = run_gpte("apply", reply(tmp_path, text), cwd=repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (repo / "acct.py").read_text() == ACCOUNT.replace(
        "-= amount\n        return self.balance\n",
        "-= amount\n        self.log(amount)\n        return self.balance\n",
    )
    # Indented too deep by the same amount everywhere: the added line comes back out.
    repo2 = make_repo(tmp_path / "r2", {"acct.py": ACCOUNT})
    deep = sr_block(
        "            self.balance -= amount\n            return self.balance",
        "            self.balance -= amount\n            return round(self.balance, 2)",
    )
    proc = run_gpte("apply", reply(tmp_path, deep), cwd=repo2)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "        return round(self.balance, 2)\n" in (repo2 / "acct.py").read_text()


def test_context_that_lost_the_diffs_leading_space_moves_no_added_line(tmp_path: Path) -> None:
    # Every context line lacks the diff's leading space, so it reads one space short of the
    # file; the added line kept its '+' and is right as written.
    repo = make_repo(tmp_path / "r", {"acct.py": ACCOUNT})
    text = "```diff\n--- acct.py\n+++ acct.py\n@@ -8,3 +8,4 @@\n    def withdraw(self, amount):\n        self.balance -= amount\n+        self.log(amount)\n        return self.balance\n```\n"
    proc = run_gpte("apply", reply(tmp_path, text), cwd=repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "indented" not in proc.stdout
    assert (repo / "acct.py").read_text() == ACCOUNT.replace(
        "-= amount\n        return self.balance\n",
        "-= amount\n        self.log(amount)\n        return self.balance\n",
    )


# ------------------------------------------------------------------ writing
def test_a_write_that_fails_writes_nothing_and_says_so(tmp_path: Path) -> None:
    """A disk that fills up half way through: no file is changed, exit 10 (not "cannot be
    read"). Simulated with a file-size limit the process cannot write past."""
    import resource
    import subprocess
    import sys

    big = "x = 1\n" * 40_000  # ~240 KB: over the limit below
    repo = make_repo(tmp_path / "r", {"a.py": "a = 1\n", "big.py": big})
    before = Snapshot.take(repo)
    text = "a.py\n```python\na = 2\n```\n\nbig.py\n```python\n" + big + "y = 2\n```\n"

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (100_000, 100_000))

    proc = subprocess.run(
        [sys.executable, "-m", "git_gpte", "apply", reply(tmp_path, text)],
        cwd=repo,
        capture_output=True,
        text=True,
        preexec_fn=limit,
        check=False,
    )
    assert proc.returncode == 10, proc.stdout + proc.stderr
    assert "nothing was written" in proc.stderr and "Traceback" not in proc.stderr
    assert (repo / "a.py").read_text() == "a = 1\n"
    before.assert_unchanged(repo)
    assert not [p for p in repo.iterdir() if p.name.startswith(".gpte-")]


def test_a_huge_near_miss_block_is_refused_not_searched_for_minutes(tmp_path: Path) -> None:
    lines = [f"    value_{i} = compute_{i % 97}(arg_{i % 13}, {i})" for i in range(20_000)]
    repo = make_repo(tmp_path / "r", {"m.py": "\n".join(lines) + "\n"})
    block = lines[10_000:13_000]
    search = [x.replace("compute", "compote") if k % 10 == 0 else x for k, x in enumerate(block)]
    replace = [*search[:1500], search[1500] + "  # edited", *search[1501:]]
    text = (
        "m.py\n```python\n<<<<<<< SEARCH\n"
        + "\n".join(search)
        + "\n=======\n"
        + "\n".join(replace)
        + "\n>>>>>>> REPLACE\n```\n"
    )
    code, data = apply_json(repo, tmp_path, text, "--check")
    assert code == 6
    [report] = data["hunks"]
    assert report["status"] == "refused" and "too long to place by similarity" in report["detail"]


def test_a_reply_creating_many_files_is_committed_in_one_pass(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.py": "a = 1\n"})
    text = "\n".join(
        f"```diff\n--- /dev/null\n+++ gen/d{i % 50}/f{i}.py\n@@ -0,0 +1 @@\n+x = {i}\n```"
        for i in range(5_000)
    )
    proc = run_gpte("apply", "--branch", "many", reply(tmp_path, text), cwd=repo)
    assert proc.returncode == 0, proc.stderr
    from tests.helpers.gitrepo import git

    assert len(git(repo, "ls-tree", "-r", "--name-only", "many").split()) == 5_001
    assert git(repo, "show", "many:gen/d7/f4507.py") == "x = 4507\n"
