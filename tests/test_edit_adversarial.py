# ruff: noqa: E501  (replies are test data; kept on one line to read like the reply)
"""Replies written to trick the engine: each hunk must land at the right place or be refused."""

from __future__ import annotations

from git_gpte.edit import apply_reply, parse_reply


def run(files: dict[str, str], reply: str):  # type: ignore[no-untyped-def]
    return apply_reply(files, parse_reply(reply), known_paths=tuple(files))


def diff(path: str, body: str, new: str | None = None) -> str:
    return f"```diff\n--- {path}\n+++ {new or path}\n{body}```\n"


def test_fuzzy_hunk_on_two_identical_blocks_close_together_is_refused() -> None:
    # Both copies fall in one alignment window: the second must still be seen as a rival.
    text = "x = 1\nx = 1\nx = 1\nif a:\n    b()\n    c()\n\nif a:\n    b()\n    c()\n\n"
    r = run(
        {"m.py": text},
        diff("m.py", "@@ ... @@\n if a:\n     # call b\n     b()\n-    c()\n+    d()\n"),
    )
    assert r.files == {} and r.reports[0].status == "refused"
    assert "several places" in r.reports[0].detail


def test_line_number_cannot_pick_a_copy_when_the_diffs_numbers_are_off() -> None:
    # Hunk 1 is unique and shows the numbers are 18 lines short; hunk 2's number points
    # exactly at the first copy of its context, but shifted like hunk 1 it points at the other.
    head = "".join(f"def u{i}():\n    return {i}\n\n" for i in range(30))
    fill = "".join(f"def v{i}():\n    return {i}\n\n" for i in range(6))
    text = (
        head
        + "def h1():\n    y = compute()\n    return None\n\n"
        + fill
        + "def h2():\n    y = compute()\n    return None\n"
    )
    lines = text.split("\n")
    u3, h1 = lines.index("def u25():"), lines.index("def h1():")
    h2 = lines.index("def h2():")
    off = h2 - h1
    reply = diff(
        "t.py",
        f"@@ -{u3 + 1 - off},2 +{u3 + 1 - off},2 @@\n def u25():\n-    return 25\n+    return 99\n"
        f"@@ -{h1 + 2},2 +{h1 + 2},2 @@\n     y = compute()\n-    return None\n+    return y\n",
    )
    r = run({"t.py": text}, reply)
    assert [x.status for x in r.reports] == ["corrected", "refused"]
    assert "off by" in r.reports[1].detail
    assert r.files["t.py"] == text.replace("    return 25\n", "    return 99\n", 1)


def test_line_number_picks_a_copy_when_neighbouring_hunks_agree() -> None:
    text = "a\nb\nc\n" + "x\n" * 20 + "a\nb\nc\n" + "y\n" * 5 + "unique\n"
    reply = diff(
        "d.txt", "@@ -25,3 +25,3 @@\n a\n-b\n+B\n c\n@@ -34,1 +34,1 @@\n-unique\n+UNIQUE\n"
    )
    r = run({"d.txt": text}, reply)
    assert not r.refused
    assert r.files["d.txt"] == "a\nb\nc\n" + "x\n" * 20 + "a\nB\nc\n" + "y\n" * 5 + "UNIQUE\n"


def test_crlf_file_without_final_newline_stays_crlf() -> None:
    r = run({"c.txt": "a\r\nb\r\nc"}, diff("c.txt", "@@ -2,2 +2,3 @@\n b\n c\n+d\n"))
    assert r.files["c.txt"] == "a\r\nb\r\nc\r\nd"
    r = run(
        {"c.txt": "a\r\nb\r\nc\r\n"},
        diff("c.txt", "@@ -2,2 +2,2 @@\n b\n-c\n+C\n\\ No newline at end of file\n"),
    )
    assert r.files["c.txt"] == "a\r\nb\r\nC"
    r = run(
        {"c.txt": "a\r\nb\r\nc"},
        diff("c.txt", "@@ -2,2 +2,2 @@\n b\n-c\n\\ No newline at end of file\n+C\n"),
    )
    assert r.files["c.txt"] == "a\r\nb\r\nC\r\n"


def test_deletion_whose_lines_are_not_the_files_is_refused() -> None:
    reply = "```diff\n--- a/x.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-foo\n-bar\n```\n"
    r = run({"x.txt": "a\nb\n"}, reply)
    assert r.files == {} and r.reports[0].status == "refused"
    good = "```diff\n--- a/x.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n```\n"
    assert run({"x.txt": "a\nb\n"}, good).files == {"x.txt": None}


def test_rename_diff_moves_the_edited_file() -> None:
    reply = "```diff\n--- a/x.txt\n+++ b/y.txt\n@@ -2,3 +2,3 @@\n b\n-c\n+C\n d\n```\n"
    r = run({"x.txt": "a\nb\nc\nd\ne\n"}, reply)
    assert r.files == {"y.txt": "a\nb\nC\nd\ne\n", "x.txt": None}
    assert "renamed x.txt to y.txt" in r.reports[0].detail
    # Both exist: which one the hunks mean is unknowable.
    r = run({"x.txt": "a\nb\nc\nd\ne\n", "y.txt": "a\nb\nc\nd\ne\n"}, reply)
    assert r.files == {} and r.reports[0].status == "refused"


def test_whole_file_block_that_is_an_excerpt_is_refused_or_placed_by_its_definitions() -> None:
    src = "import os\n\n\ndef main():\n    print(os.getcwd())\n    return 0\n\n\ndef helper():\n    return 1\n"
    lazy = "**app.py**\n```python\nimport os\n\n\ndef main():\n    return 1\n\n# ... rest of the file unchanged ...\n```\n"
    r = run({"app.py": src}, lazy)
    # The elision stands between definitions: main, written whole, replaces main; the rest
    # of the file stays.
    assert r.files == {
        "app.py": src.replace("    print(os.getcwd())\n    return 0", "    return 1")
    }
    assert r.reports[0].detail == "placed by its definitions: replaced main"
    # Within a function, it stands for that function's code: refused.
    cut = lazy.replace("    return 1\n\n# ...", "    return 1\n    # ...")
    r = run({"app.py": src}, cut)
    assert r.files == {} and "elision" in r.reports[0].detail
    # One function, whole: it replaces the function of its name, the rest stays.
    excerpt = "### app.py\n```python\ndef helper():\n    return 2\n```\n"
    r = run({"app.py": src}, excerpt)
    assert r.files == {"app.py": src.replace("return 1", "return 2")}
    assert r.reports[0].status == "corrected" and "replaced helper" in r.reports[0].detail
    # Not Python: nothing tells where an excerpt goes.
    r = run({"app.txt": src}, excerpt.replace("app.py", "app.txt"))
    assert r.files == {} and "excerpt" in r.reports[0].detail
    full = "app.py\n```python\nimport os\n\n\ndef main():\n    return 0\n```\n"
    assert run({"app.py": src}, full).files == {
        "app.py": "import os\n\n\ndef main():\n    return 0\n"
    }
    stub = "app.py\n```python\nclass P:\n    def f(self): ...\n    ...\n```\n"
    assert (
        run({"app.py": "class P:\n    pass\n"}, stub).files["app.py"]
        == "class P:\n    def f(self): ...\n    ...\n"
    )


def test_spaces_in_the_reply_become_tabs_in_a_tab_indented_file() -> None:
    text = "def f():\n\tif x:\n\t\treturn 1\n\treturn 2\n"
    reply = diff(
        "t.py",
        "@@ -2,3 +2,4 @@\n     if x:\n-        return 1\n+        log(x)\n+        return 3\n     return 2\n",
    )
    r = run({"t.py": text}, reply)
    assert r.files["t.py"] == "def f():\n\tif x:\n\t\tlog(x)\n\t\treturn 3\n\treturn 2\n"
    assert "tabs" in r.reports[0].detail


def test_a_result_found_far_away_is_not_taken_as_already_applied() -> None:
    from git_gpte.edit import apply_reply, parse_reply

    body = [f"def f{i}(x):\n    y = x + {i}\n    return y\n\n" for i in range(60)]
    text = "".join(body)
    # The hunk's old lines are not in the file; its new side (``    return x``) is, but only
    # 200 lines away, in f55: that coincidence must not be reported as "already applied".
    far = text.replace("def f55(x):\n    y = x + 55\n    return y\n", "def f55(x):\n    return x\n")
    reply = (
        "```diff\n--- m.py\n+++ m.py\n@@ -6,2 +6,1 @@\n-    y = x * 7\n"
        "-    return y\n+    return x\n```\n"
    )
    result = apply_reply({"m.py": far}, parse_reply(reply), known_paths=["m.py"])
    reports = [r for r in result.reports if r.path == "m.py"]
    assert reports and reports[0].status == "refused", reports[0].detail
    assert "m.py" not in result.files


def test_exact_lines_outweigh_a_resembling_neighbour_whatever_the_line_number() -> None:
    # Two near-identical try/except blocks; the hunk matches the second exactly but for an
    # invented comment and one wrongly indented line. The first differs only in `url`.
    block = '    try:\n        config = fetch({0})\n    except OSError:\n        log.warning("failed %s", {0})\n        config = None\n'
    text = (
        "def f(url, mirror):\n"
        + block.format("url")
        + block.format("mirror")
        + "    return config\n"
    )
    body = '     try:\n       config = fetch(mirror)\n     except OSError:\n         log.warning("failed %s", mirror)\n         # retry once\n-        config = None\n+        config = {}\n'
    want = (
        text[: text.rindex("config = None")]
        + "config = {}"
        + text[text.rindex("config = None") + 13 :]
    )
    for header in ("@@ ... @@", *(f"@@ -{n},5 +{n},5 @@" for n in range(1, 14))):
        r = run({"t.py": text}, diff("t.py", header + "\n" + body))
        assert r.files == {"t.py": want}, (header, r.reports[0].detail)


def test_a_whole_file_block_copying_a_neighbour_under_another_name_is_refused() -> None:
    # Seen (csvreport/sort-option): the package's __init__.py written out under report.py's
    # path; written, it replaced the module with its neighbour's docstring and version.
    init = '"""pkg: tables.\n\nLoad a file with load(), then\nturn it into a table.\n"""\n\n'
    init += '__version__ = "0.4.1"\n'
    report = "TOTAL = 'TOTAL'\n\n\ndef build(rows):\n    return [TOTAL, *rows]\n"
    files = {"pkg/__init__.py": init, "pkg/report.py": report, "other/x.py": init}
    copy = init.replace("pkg: tables.", "Tables.")
    result = run(files, f"pkg/report.py\n```python\n{copy}```\n")
    assert result.files == {}
    assert "is a copy of pkg/__init__.py" in result.reports[0].detail
    # the module's own text with a change, or a new module's text, is written
    changed = report.replace("*rows]", "*sorted(rows)]")
    assert run(files, f"pkg/report.py\n```python\n{changed}```\n").files
    assert run(files, f"pkg/new.py\n```python\n{copy}```\n").files
    # a file of another folder is not what it copies
    del files["pkg/__init__.py"]
    assert run(files, f"pkg/report.py\n```python\n{copy}```\n").files


def test_a_comment_of_the_file_that_reads_like_an_elision_is_its_code() -> None:
    # more-itertools' intersperse has "# islice(..., 1, None) -> x_0, e, x_1, e, x_2..."; a
    # block copying it was refused as leaving code out, on every retry.
    comment = "    # islice(..., 1, None) -> x_0, e, x_1, e, x_2...\n"
    others = "".join(f"\n\ndef other_{n}():\n    return {n}\n" for n in range(3))
    src = f"def spread(items):\n{comment}    return items[1:]\n{others}"
    whole = src.replace("items[1:]", "items[2:]")
    r = run({"app.py": src}, f"app.py\n```python\n{whole}```\n")
    assert r.files == {"app.py": whole}
    one = f"app.py\n```python\ndef spread(items):\n{comment}    return items[2:]\n```\n"
    r = run({"app.py": src}, one)
    assert r.files == {"app.py": whole} and "replaced spread" in r.reports[0].detail
    # one the file does not have still stands for code left out
    r = run({"app.py": src}, one.replace("x_2...", "x_3..."))
    assert r.files == {} and "leaves code out" in r.reports[0].detail
