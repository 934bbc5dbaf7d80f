"""Fences in replies: a block ends only where its own fence does (properties, with hypothesis).

A whole file fenced with more backticks than it holds (as git-gpte itself sends files that hold
```) keeps everything inside it, diffs quoted in it included; a diff's hunk lines that look like
fences (a Markdown file's context) are hunk text.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from git_gpte.edit import apply_reply, parse_reply
from tests.helpers.markdown_source import CODE_BLOCK_TEST

SETTINGS = settings(max_examples=150, deadline=None)

WORDS = st.sampled_from(["text", "x = 1", "# Title", "", "  indented", "- item", "code()"])
INNER_DIFF = "```diff\n--- src/app.py\n+++ src/app.py\n@@ -1 +1 @@\n-x\n+y\n```"


@st.composite
def markdown_lines(draw: st.DrawFn, longest: int) -> list[str]:
    """Lines of a Markdown file whose backtick runs are all shorter than ``longest``."""
    lines: list[str] = []
    for _ in range(draw(st.integers(1, 12))):
        kind = draw(st.sampled_from(["word", "fence", "diff"]))
        if kind == "word":
            lines.append(draw(WORDS))
        elif kind == "fence":
            lines.append(
                "`" * draw(st.integers(3, longest - 1)) + draw(st.sampled_from(["", "py"]))
            )
        else:
            lines += INNER_DIFF.split("\n")
    return lines


@SETTINGS
@given(data=st.data(), length=st.integers(4, 8))
def test_a_whole_file_keeps_every_line_inside_its_longer_fence(
    data: st.DataObject, length: int
) -> None:
    body = data.draw(markdown_lines(length))
    fence = "`" * length
    reply = "docs/guide.md\n" + fence + "markdown\n" + "\n".join(body) + "\n" + fence + "\n"
    parsed = parse_reply(reply)
    assert [(e.path, e.kind) for e in parsed.edits] == [("docs/guide.md", "whole-file")]
    expected = "\n".join(body)  # a block's text ends with a newline (none when it is empty)
    if expected and not expected.endswith("\n"):
        expected += "\n"
    assert parsed.edits[0].content == expected


@SETTINGS
@given(
    ops=st.lists(
        st.tuples(
            st.sampled_from([" ", "-", "+"]),
            st.sampled_from(["```", "````", "```python", "text", "", "~~~"]),
        ),
        min_size=1,
        max_size=10,
    ),
    fence=st.integers(3, 5),
)
def test_fence_lines_inside_a_diff_are_hunk_text(ops: list[tuple[str, str]], fence: int) -> None:
    if not any(op != " " for op, _ in ops):
        ops = [*ops, ("+", "added")]
    old = [text for op, text in ops if op != "+"]
    new = [text for op, text in ops if op != "-"]
    hunk = "\n".join(op + text for op, text in ops)
    marks = "`" * fence
    reply = (
        f"{marks}diff\n--- README.md\n+++ README.md\n@@ -1,{len(old)} +1,{len(new)} @@\n"
        f"{hunk}\n{marks}\n\nAnd the other file:\n\n"
        f"{marks}diff\n--- b.py\n+++ b.py\n@@ -1 +1 @@\n-a\n+b\n{marks}\n"
    )
    parsed = parse_reply(reply)
    assert [e.path for e in parsed.edits] == ["README.md", "b.py"]
    assert parsed.edits[0].hunks[0].lines == [(op, text) for op, text in ops]
    result = apply_reply({"README.md": "".join(t + "\n" for t in old), "b.py": "a\n"}, parsed)
    assert not result.refused
    assert result.files.get("README.md", "".join(t + "\n" for t in old)) == "".join(
        t + "\n" for t in new
    )


RENDERER_TEST = (
    "from render import convert\n\n\n"
    + CODE_BLOCK_TEST
    + '\n\ndef test_paragraph():\n    assert convert("a") == "<p>a</p>"\n'
)


def test_a_python_file_holding_markdown_fences_is_one_block() -> None:
    # A test of a Markdown renderer written out whole: its bare fences sit inside a string, so
    # they neither end the block nor start a file named `code` (seen with a 1.5B model).
    reply = "tests/test_render.py\n```python\n" + RENDERER_TEST + "```\n\nDone.\n"
    parsed = parse_reply(reply)
    assert [(e.path, e.content) for e in parsed.edits] == [("tests/test_render.py", RENDERER_TEST)]
    # A block that never parses closes at its first fence, as before.
    broken = RENDERER_TEST.replace("def test_paragraph():", "def test_paragraph(:")
    parsed = parse_reply("tests/test_render.py\n```python\n" + broken + "```\n")
    assert [e.path for e in parsed.edits] == ["tests/test_render.py"]
    assert parsed.edits[0].content.endswith("`code`\n")
