# ruff: noqa: E501  (replies are test data; kept on one line to read like the reply)
"""Parsing LLM replies: lenient about form, exact about content."""

from __future__ import annotations

from collections import Counter

import pytest

from git_gpte.edit import parse_reply, search_replace_blocks
from tests.conftest import SHARED

AIDER = SHARED / "corpora" / "aider-search-replace"


def test_fenced_diff_with_prose_and_empty_fence() -> None:
    reply = "Intro\n```diff\n```\nMore prose\n```diff\n--- /dev/null\n+++ new.py\n@@ -0,0 +1,2 @@\n+a\n+b\n```\nbye\n"
    parsed = parse_reply(reply)
    assert [(e.path, e.kind, e.content) for e in parsed.edits] == [("new.py", "new", "a\nb\n")]


def test_git_prefixes_dropped_and_deletion() -> None:
    reply = "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n--- a/old.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n"
    parsed = parse_reply(reply)
    assert [(e.path, e.kind) for e in parsed.edits] == [("x.py", "modify"), ("old.py", "delete")]


def test_hunk_without_numbers_and_context_without_space() -> None:
    reply = "```diff\n--- f.py\n+++ f.py\n@@ ... @@\ndef f():\n-    return 1\n+    return 2\n```\n"
    hunk = parse_reply(reply).edits[0].hunks[0]
    assert hunk.old_start is None
    assert hunk.lines == [(" ", "def f():"), ("-", "    return 1"), ("+", "    return 2")]


def test_missing_closing_fence_reads_to_the_end() -> None:
    reply = "```diff\n--- f.py\n+++ f.py\n@@ -1,2 +1,2 @@\n a\n-b\n+c"
    parsed = parse_reply(reply)
    assert parsed.edits[0].hunks[0].lines == [(" ", "a"), ("-", "b"), ("+", "c")]
    assert any("unclosed" in p for p in parsed.problems)


def test_removed_sql_comment_is_not_a_file_header() -> None:
    reply = "--- q.sql\n+++ q.sql\n@@ -1,2 +1,1 @@\n--- old comment\n select 1\n"
    hunk = parse_reply(reply).edits[0].hunks[0]
    assert hunk.lines == [("-", "-- old comment"), (" ", "select 1")]


def test_no_newline_marker() -> None:
    reply = "--- f\n+++ f\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n"
    hunk = parse_reply(reply).edits[0].hunks[0]
    assert hunk.no_newline_old and hunk.no_newline_new


def test_whole_file_blocks() -> None:
    reply = "Here:\n\n**src/app.py**\n```python\nprint(1)\n```\n\nrun.sh\n```bash\npython src/app.py\n```\n"
    parsed = parse_reply(reply)
    assert [(e.path, e.kind, e.content) for e in parsed.edits] == [
        ("src/app.py", "whole-file", "print(1)\n"),
        ("run.sh", "whole-file", "python src/app.py\n"),
    ]


def test_search_replace_block() -> None:
    reply = "x.py\n```python\n<<<<<<< SEARCH\na = 1\nb = 2\n=======\na = 1\nb = 3\n>>>>>>> REPLACE\n```\n"
    parsed = parse_reply(reply)
    assert parsed.format == "search-replace"
    assert parsed.edits[0].hunks[0].lines == [(" ", "a = 1"), ("-", "b = 2"), ("+", "b = 3")]


def test_unknown_format_is_an_error() -> None:
    with pytest.raises(ValueError):
        parse_reply("x", "patch")


@pytest.mark.skipif(not AIDER.exists(), reason="shared corpora absent")
def test_udiff_multi_reply_gpt4() -> None:
    parsed = parse_reply((AIDER / "udiff_multi_reply_gpt4.txt").read_text())
    assert [e.path for e in parsed.edits] == ["aider/versioncheck.py", "aider/main.py"]
    first, second = (e.hunks for e in parsed.edits)
    assert first[0].old_start is None
    assert [op for op, _ in first[0].lines] == [" ", " ", "+"]
    added = [t for op, t in second[0].lines if op == "+"]
    assert added[1] == '        "--check-update",' and len(added) == 6


@pytest.mark.skipif(not AIDER.exists(), reason="shared corpora absent")
def test_search_replace_matches_aider_gold_parse() -> None:
    gold: Counter[tuple[str, str, str]] = Counter()
    lines = (AIDER / "chat-history-search-replace-gold.txt").read_text().split("\n")
    i = 0
    while i < len(lines):
        if lines[i].startswith("@@@ SEARCH: "):
            path = lines[i][len("@@@ SEARCH: ") :].split(" @@@")[0]
            j = lines.index("@" * 20, i + 1)
            k = next(x for x in range(j + 1, len(lines)) if lines[x].startswith("@@@ REPLACE"))
            gold[(path, "\n".join(lines[i + 1 : j]), "\n".join(lines[j + 1 : k]))] += 1
            i = k
        i += 1
    mine = Counter(
        search_replace_blocks(
            parse_reply((AIDER / "chat-history.md").read_text(), "search-replace").edits
        )
    )
    assert sum(gold.values()) == 577
    # Text of every block: what a parser must get right.
    gold_text = Counter((s, r) for (_, s, r), n in gold.items() for _ in range(n))
    mine_text = Counter((s, r) for (_, s, r), n in mine.items() for _ in range(n))
    same_text = sum((gold_text & mine_text).values())
    assert same_text >= 565, f"only {same_text} of 577 gold blocks parsed with the same text"
    # Paths: aider infers some from its chat state; we take the name written before the block.
    same_path = sum((gold & mine).values())
    assert same_path >= 510, f"only {same_path} of 577 gold blocks have the same path"


def test_auto_reads_every_format_in_reply_order() -> None:
    reply = (
        "a.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n"
        "```diff\n--- b.py\n+++ b.py\n@@ -1 +1 @@\n-y\n+z\n```\n"
        "c.md\n```markdown\n# new\n```\n"
        "d.py\n```diff\n@@ -1 +1 @@\n-a\n+b\n```\n"
    )
    parsed = parse_reply(reply)
    assert [(e.path, e.fmt) for e in parsed.edits] == [
        ("a.py", "search-replace"),
        ("b.py", "diff"),
        ("c.md", "files"),
    ]
    assert parsed.format == "search-replace+diff+files"
    assert any("d.py is a diff without" in p for p in parsed.problems)
    # One format named explicitly reads only that format.
    assert [e.path for e in parse_reply(reply, "diff").edits] == ["b.py"]


def test_git_c_quoted_header_paths() -> None:
    reply = '--- "a/caf\\303\\251 \\"q\\" \\\\ \\t.py"\t2024-01-01\n+++ "b/caf\\303\\251 \\"q\\" \\\\ \\t.py"\n@@ -1 +1 @@\n-a\n+b\n'
    (edit,) = parse_reply(reply).edits
    assert edit.path == 'café "q" \\ \t.py' and edit.old_path == edit.path
    (edit,) = parse_reply('--- /dev/null\n+++ "b/evil\\nname.py"\n@@ -0,0 +1 @@\n+x\n').edits
    assert edit.path == "evil\nname.py"


@pytest.mark.parametrize(
    ("line", "path"),
    [
        ("tool", "tool"),
        ("### setup", "setup"),
        ("File: run", "run"),
        ("`tool`", "tool"),
        ("`tool`:", "tool"),
        ("File: code", "code"),
        ("`code`", None),  # a word in backticks that labels a block (Markdown inside a file)
        ("pages/[id].jsx", "pages/[id].jsx"),
        ("app/(auth)/page.tsx", "app/(auth)/page.tsx"),
        ("routes/$slug.tsx", "routes/$slug.tsx"),
        ("file[1].py", "file[1].py"),
        ("Output", None),
        ("output", None),
        ("Example:", None),
        ("tool:", None),
        ("bash", None),
        ("Done.", None),
        ("Here is the fix:", None),
        ("[link](http://x.y)", None),
        ("(optional)", None),
        ("Here is the new version of `a.txt`:", "a.txt"),
        ("Replace the contents of `cfg/app.toml` with:", "cfg/app.toml"),
        ("**Here is the complete `setup`:**", "setup"),
        ("Add this to `main.py`:", None),
        ("Here is the updated function in `a.py`:", None),
        ("The new `a.py` and `b.py`:", None),
        # the paragraph's last sentence names the file (the 1.5B model, inventory/store-logging)
        (
            "Replace `print()` in `a.b.py` with logging. Here's the corrected version of `a/b.py`:",
            "a/b.py",
        ),
        ("Here it is. Add this to `main.py`:", None),
    ],
)
def test_path_lines_before_a_whole_file_block(line: str, path: str | None) -> None:
    parsed = parse_reply(f"{line}\n```\ncontent\n```\n", "files")
    assert [e.path for e in parsed.edits] == ([path] if path else [])


def test_every_edit_format_row_has_its_reader_and_its_preprompt() -> None:
    from git_gpte.edit.formats import EDIT_FORMATS, reply_formats
    from git_gpte.edit.parse import READERS
    from git_gpte.prompts.preprompts import find

    assert set(reply_formats()) == {"auto", *READERS}
    for fmt in EDIT_FORMATS.values():
        assert fmt.reader in READERS
        assert find(fmt.preprompt).text.strip()


def test_a_new_reply_format_is_a_row_and_a_reader(monkeypatch: pytest.MonkeyPatch) -> None:
    """A format added as its row (formats.py) and its reader (parse.py): parse_reply reads it
    alone and beside the others (``auto``), nothing else to touch."""
    from git_gpte.edit import parse
    from git_gpte.edit.formats import EDIT_FORMATS, EditFormat, reply_formats
    from git_gpte.edit.model import FileEdit

    def read_replace_lines(lines: list[str]) -> parse._Found:
        found = parse._Found()
        for i, line in enumerate(lines):
            if line.startswith("REWRITE "):
                path, _, text = line.removeprefix("REWRITE ").partition(" := ")
                found.edits.append(
                    (i, i + 1, FileEdit(path, "whole-file", content=text + "\n", fmt="rewrite"))
                )
                found.spans.append((i, i + 1))
        return found

    row = EditFormat(
        "rewrite", "file_format_whole", True, "one line per file", "rewrite", "lines", "again"
    )
    monkeypatch.setitem(EDIT_FORMATS, "rewrite", row)
    monkeypatch.setitem(parse.READERS, "rewrite", read_replace_lines)
    assert "rewrite" in reply_formats()
    alone = parse_reply("Here:\nREWRITE a.py := x = 2\n", "rewrite")
    assert [(e.path, e.content) for e in alone.edits] == [("a.py", "x = 2\n")]
    mixed = parse_reply("REWRITE a.py := x = 2\n--- b.py\n+++ b.py\n@@ -1 +1 @@\n-a\n+b\n")
    assert sorted(e.path for e in mixed.edits) == ["a.py", "b.py"]


def test_numbers_copied_from_the_prompt_come_off_a_stretch_numbered_one_by_one() -> None:
    from git_gpte.edit.parse import unnumbered

    # Seen: a class begun from memory, its rest copied from the numbered excerpt.
    begun = ["class Block:", '    """One block.', " ", "    More.", '104     """', "105 "]
    copied = [*begun, "106     kind: str", '107     text: str = ""']
    assert unnumbered(copied) == [*begun[:4], '    """', "", "    kind: str", '    text: str = ""']
    # A list in the file's own text, or numbers that do not rise one by one, stay.
    listed = ["notes = '''", "1. first", "2. second", "3. third", "'''"]
    assert unnumbered(listed) == listed
    skipping = ["x = [", "1 ,", "3 ,", "5 ,", "]"]
    assert unnumbered(skipping) == skipping
