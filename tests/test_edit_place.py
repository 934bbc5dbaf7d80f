# ruff: noqa: E501  (replies are test data; kept on one line to read like the reply)
"""Each LLM mistake category, on both sides: what must be repaired and what must be refused."""

from __future__ import annotations

import pytest

from git_gpte.edit import apply_reply, check_path, parse_reply
from git_gpte.errors import UnsafePathError

BASE = "".join(f"line {i}\n" for i in range(1, 31))
CODE = (
    "import os\n\n\ndef load(path):\n    with open(path) as f:\n        return f.read()\n\n\n"
    "def save(path, data):\n    with open(path, 'w') as f:\n        f.write(data)\n\n\n"
    "def main():\n    data = load('a')\n    save('b', data)\n"
)


def run(files: dict[str, str], reply: str, known: tuple[str, ...] = ()):  # type: ignore[no-untyped-def]
    return apply_reply(files, parse_reply(reply), known_paths=known or tuple(files))


def diff(path: str, body: str) -> str:
    return f"```diff\n--- {path}\n+++ {path}\n{body}```\n"


def test_exact_hunk_applies() -> None:
    r = run({"a.txt": BASE}, diff("a.txt", "@@ -4,3 +4,3 @@\n line 4\n-line 5\n+LINE 5\n line 6\n"))
    assert r.files["a.txt"] == BASE.replace("line 5\n", "LINE 5\n")
    assert [x.status for x in r.reports] == ["applied"]


def test_wrong_line_number_repaired_and_garbage_numbers() -> None:
    for header in ("@@ -20,3 +20,3 @@", "@@ ... @@", "@@ -999 +1 @@"):
        r = run({"a.txt": BASE}, diff("a.txt", f"{header}\n line 4\n-line 5\n+LINE 5\n line 6\n"))
        assert r.files["a.txt"] == BASE.replace("line 5\n", "LINE 5\n"), header


def test_context_that_occurs_twice_needs_the_line_number() -> None:
    text = "a\nb\nc\n" + "x\n" * 20 + "a\nb\nc\n"
    body = " a\n-b\n+B\n c\n"
    ok = run({"f": text}, diff("f", "@@ -24,3 +24,3 @@\n" + body))
    assert ok.files["f"] == "a\nb\nc\n" + "x\n" * 20 + "a\nB\nc\n"
    for header in ("@@ ... @@", "@@ -12,3 +12,3 @@"):
        refused = run({"f": text}, diff("f", header + "\n" + body))
        assert refused.files == {} and refused.refused, header
        assert "occur 2 times" in refused.refused[0].detail


def test_context_not_in_file_is_refused_with_closest_candidate() -> None:
    r = run(
        {"c.py": CODE},
        diff("c.py", "@@ -9,3 +9,3 @@\n def store(path, blob):\n-    pass\n+    return 1\n"),
    )
    assert r.files == {} and len(r.refused) == 1
    prompt = r.retry_prompt()
    assert "c.py, hunk 1" in prompt and "def store(path, blob):" in prompt


def test_skipped_context_line_is_kept() -> None:
    r = run(
        {"c.py": CODE},
        diff(
            "c.py",
            "@@ -9,3 +9,3 @@\n def save(path, data):\n-        f.write(data)\n+        f.write(data.strip())\n",
        ),
    )
    assert r.files["c.py"] == CODE.replace("f.write(data)", "f.write(data.strip())")
    assert r.reports[0].status == "corrected" and "skipped" in r.reports[0].detail


def test_invented_context_line_is_left_out_but_reordered_context_refused() -> None:
    body = "@@ -9,4 +9,4 @@\n def save(path, data):\n     # write the data\n     with open(path, 'w') as f:\n-        f.write(data)\n+        f.write(data or '')\n"
    r = run({"c.py": CODE}, diff("c.py", body))
    assert r.files["c.py"] == CODE.replace("f.write(data)", "f.write(data or '')")
    moved = "@@ -9,4 +9,4 @@\n     with open(path, 'w') as f:\n def save(path, data):\n-        f.write(data)\n+        f.write(1)\n"
    assert run({"c.py": CODE}, diff("c.py", moved)).refused


def test_whitespace_drift_and_missing_leading_space() -> None:
    body = "@@ -4,3 +4,3 @@\ndef load(path):   \n  with open(path) as f:\n-        return f.read()\n+        return f.read().strip()\n"
    r = run({"c.py": CODE}, diff("c.py", body))
    assert r.files["c.py"] == CODE.replace("return f.read()", "return f.read().strip()")


def test_removed_line_not_in_file_is_refused() -> None:
    body = "@@ -4,3 +4,3 @@\n def load(path):\n     with open(path) as f:\n-        return f.readlines()\n+        return 1\n"
    r = run({"c.py": CODE}, diff("c.py", body))
    assert r.files == {} and "not in the file" in r.refused[0].detail


def test_context_resembling_an_added_line_is_refused_not_duplicated() -> None:
    text = "def f(a):\n    x = a\n    return x + 1\n\ndef g():\n    pass\n"
    body = "@@ -1,4 +1,4 @@\n-def f(a):\n+def f(a, b):\n+    return a + b + 1\n \n def g():\n"
    r = run({"m.py": text}, diff("m.py", body))
    assert r.files == {} and r.refused


def test_hunks_out_of_order_apply_against_original_numbers() -> None:
    body = "@@ -20,3 +20,4 @@\n line 20\n+new after 20\n line 21\n line 22\n@@ -2,3 +2,2 @@\n line 2\n-line 3\n line 4\n"
    r = run({"a.txt": BASE}, diff("a.txt", body))
    expected = BASE.replace("line 3\n", "").replace("line 20\n", "line 20\nnew after 20\n")
    assert r.files["a.txt"] == expected


def test_overlapping_hunks_refused_and_duplicate_hunk_applies_once() -> None:
    hunk = "@@ -4,3 +4,3 @@\n line 4\n-line 5\n+LINE 5\n line 6\n"
    r = run({"a.txt": BASE}, diff("a.txt", hunk + hunk))
    assert r.files["a.txt"] == BASE.replace("line 5\n", "LINE 5\n")
    assert [x.status for x in r.reports] == ["applied", "corrected"]
    other = "@@ -5,3 +5,3 @@\n line 5\n-line 6\n+LINE 6\n line 7\n"
    r2 = run({"a.txt": BASE}, diff("a.txt", hunk + other))
    assert r2.refused and "overlaps" in r2.refused[0].detail


def test_two_diffs_for_one_file_and_diff_given_twice() -> None:
    first = diff("a.txt", "@@ -4,3 +4,3 @@\n line 4\n-line 5\n+LINE 5\n line 6\n")
    second = diff("a.txt", "@@ -20,3 +20,3 @@\n line 20\n-line 21\n+LINE 21\n line 22\n")
    r = run({"a.txt": BASE}, first + second + first)
    assert r.files["a.txt"] == BASE.replace("line 5\n", "LINE 5\n").replace(
        "line 21\n", "LINE 21\n"
    )
    assert not r.refused


def test_new_file_then_edit_in_same_reply() -> None:
    reply = (
        "```diff\n--- /dev/null\n+++ n.py\n@@ -0,0 +1,3 @@\n+a = 1\n+b = 2\n+c = 3\n```\n"
        + diff("n.py", "@@ -1,3 +1,3 @@\n a = 1\n-b = 2\n+b = 20\n c = 3\n")
    )
    r = run({}, reply)
    assert r.files["n.py"] == "a = 1\nb = 20\nc = 3\n"


def test_new_file_over_existing_content_refused() -> None:
    r = run({"n.py": "x\n"}, "--- /dev/null\n+++ n.py\n@@ -0,0 +1 @@\n+y\n")
    assert r.refused and r.files == {}


def test_only_added_lines_on_existing_file_refused() -> None:
    r = run({"a.txt": BASE}, diff("a.txt", "@@ -3,0 +4,1 @@\n+inserted\n"))
    assert r.files == {} and "no context" in r.refused[0].detail


def test_insertion_at_line_one() -> None:
    r = run({"a.txt": BASE}, diff("a.txt", "@@ -1,2 +1,3 @@\n+first\n line 1\n line 2\n"))
    assert r.files["a.txt"] == "first\n" + BASE


def test_added_comment_equal_to_preceding_line_not_duplicated() -> None:
    text = "def f():\n    # TODO\n    pass\n"
    r = run(
        {"f.py": text}, diff("f.py", "@@ -2,2 +2,2 @@\n+    # TODO\n+    return 1\n-    pass\n")
    )
    assert r.files["f.py"] == "def f():\n    # TODO\n    return 1\n"


def test_bare_basename_resolved_when_unique() -> None:
    files = {"asyncio/events.py": BASE, "other/x.py": ""}
    r = run(
        files,
        diff("events.py", "@@ -4,3 +4,3 @@\n line 4\n-line 5\n+LINE 5\n line 6\n"),
        tuple(files),
    )
    assert "asyncio/events.py" in r.files
    ambiguous = {"a/events.py": BASE, "b/events.py": BASE}
    r2 = run(ambiguous, diff("events.py", "@@ -4,3 +4,3 @@\n line 4\n-line 5\n+LINE 5\n line 6\n"))
    assert r2.files == {} and r2.refused


def test_crlf_file_keeps_crlf_and_final_newline_state() -> None:
    text = "a\r\nb\r\nc\r\nd"
    r = run({"w.txt": text}, diff("w.txt", "@@ -1,3 +1,4 @@\n a\n-b\n+B\n+B2\n c\n"))
    assert r.files["w.txt"] == "a\r\nB\r\nB2\r\nc\r\nd"


def test_no_newline_at_end_of_file_marker() -> None:
    r = run(
        {"f": "a\nb\n"}, "--- f\n+++ f\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n\\ No newline at end of file\n"
    )
    assert r.files["f"] == "a\nc"


def test_deletion_via_dev_null() -> None:
    r = run({"f": "a\n"}, "--- a/f\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n")
    assert r.files == {"f": None}


def test_several_mistakes_in_one_hunk() -> None:
    body = "@@ -40,3 +40,3 @@\n def save(path, data):  # store it\n   with open(path, 'w') as f:\n-        f.write(data)\n+        f.write(data + '\\n')\n \n"
    r = run({"c.py": CODE}, diff("c.py", body))
    assert r.files["c.py"] == CODE.replace("f.write(data)", "f.write(data + '\\n')")


@pytest.mark.parametrize(
    "bad", ["/etc/passwd", "../x", "a/../../x", ".git/config", "x/.git/hooks/pre-commit", "C:\\x"]
)
def test_unsafe_paths_raise_and_nothing_applies(bad: str) -> None:
    with pytest.raises(UnsafePathError):
        check_path(bad)
    with pytest.raises(UnsafePathError):
        run(
            {"ok": "a\n"},
            f"--- ok\n+++ ok\n@@ -1 +1 @@\n-a\n+b\n--- /dev/null\n+++ {bad}\n@@ -0,0 +1 @@\n+x\n",
        )


def test_check_path_normalises() -> None:
    assert check_path("./src//app.py") == "src/app.py"
    assert check_path("src/../app.py") == "app.py"


def test_search_replace_applies_and_ambiguity_refused() -> None:
    reply = "c.py\n```\n<<<<<<< SEARCH\n    with open(path) as f:\n        return f.read()\n=======\n    with open(path) as f:\n        return f.read().strip()\n>>>>>>> REPLACE\n```\n"
    r = run({"c.py": CODE}, reply)
    assert r.files["c.py"] == CODE.replace("return f.read()", "return f.read().strip()")
    dup = "c.py\n```\n<<<<<<< SEARCH\n\n\ndef\n=======\nx\n>>>>>>> REPLACE\n```\n"
    assert run({"c.py": CODE}, dup).refused


def test_corrected_diff_and_json() -> None:
    r = run(
        {"c.py": CODE},
        diff(
            "c.py",
            "@@ -9,3 +9,3 @@\n def save(path, data):\n-        f.write(data)\n+        f.write(data.strip())\n",
        ),
    )
    assert (
        "@@ -9,3 +9,3 @@\n def save(path, data):\n     with open(path, 'w') as f:\n"
        in r.corrected_diff()
    )
    data = r.to_json()
    assert data["corrected"] == 1 and data["files"] == {"c.py": "written"}
