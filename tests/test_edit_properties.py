"""Properties of the edit engine, checked on generated files, edits and paths (hypothesis).

- An exact unified diff (difflib's) always applies, byte for byte.
- The same diff with every line number shifted applies the same way or is refused: never
  somewhere else.
- No path, however it is built, comes out of ``check_path`` pointing outside the repository or
  into a git directory.
"""

from __future__ import annotations

import difflib
import os
import posixpath
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from git_gpte.edit import apply_reply, check_path, parse_reply
from git_gpte.edit.paths import header_path
from git_gpte.errors import UnsafePathError

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
INDENTS = ["", "    ", "\t"]
WORDS = ["x", "y = 1", "return x", "}", "", "    pass", "if a:", "# note", "\tz()", "end"]


@st.composite
def files(draw: st.DrawFn, unique: bool) -> list[str]:
    """File lines: unique numbered lines mixed with common short ones (blank, ``}``...)."""
    n = draw(st.integers(0, 60))
    lines = []
    for i in range(n):
        if draw(st.integers(0, 3)) == 0 or not unique:
            lines.append(draw(st.sampled_from(WORDS)))
        else:
            indent = draw(st.sampled_from(INDENTS))
            lines.append(f"{indent}line {i} {draw(st.text('abc xyz(){}', max_size=8))}")
    return lines


@st.composite
def edited(draw: st.DrawFn, lines: list[str]) -> list[str]:
    """``lines`` after a few random deletions, insertions and replacements."""
    out = list(lines)
    for _ in range(draw(st.integers(1, 5))):
        at = draw(st.integers(0, len(out)))
        kind = draw(st.sampled_from(["insert", "delete", "replace"]))
        new = [f"new {draw(st.integers(0, 999))}{draw(st.sampled_from(['', ' ', '  # c']))}"]
        if kind == "insert" or at == len(out):
            out[at:at] = new * draw(st.integers(1, 3))
        elif kind == "delete":
            del out[at : at + draw(st.integers(1, 3))]
        else:
            out[at : at + 1] = new
    return out


def text_of(lines: list[str], final_newline: bool) -> str:
    if not lines:
        return ""
    return "\n".join(lines) + ("\n" if final_newline else "")


def unified(a: str, b: str, shift: int = 0) -> tuple[str, list[tuple[int, int, int, int]]]:
    """A unified diff from ``a`` to ``b`` (GNU style, with no-newline markers), its @@ numbers
    moved by ``shift``, and each hunk's true ranges (old start, old end, new start, new end)."""
    al, bl = a.splitlines(keepends=True), b.splitlines(keepends=True)
    groups = list(difflib.SequenceMatcher(None, al, bl).get_grouped_opcodes(3))
    out = ["--- f.txt\n", "+++ f.txt\n"]
    for group in groups:
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        old_start = (i1 + 1 if i2 > i1 else i1) + shift
        new_start = (j1 + 1 if j2 > j1 else j1) + shift
        out.append(f"@@ -{max(old_start, 0)},{i2 - i1} +{max(new_start, 0)},{j2 - j1} @@\n")
        for tag, x1, x2, y1, y2 in group:
            if tag == "equal":
                rows = [" " + line for line in al[x1:x2]]
            else:
                rows = ["-" + line for line in al[x1:x2]] + ["+" + line for line in bl[y1:y2]]
            for row in rows:
                out.append(row if row.endswith("\n") else row + "\n\\ No newline at end of file\n")
    return "".join(out), [(g[0][1], g[-1][2], g[0][3], g[-1][4]) for g in groups]


def copies(a: str, i1: int, i2: int) -> int:
    """How often the lines ``i1:i2`` of ``a`` occur in ``a``."""
    al = a.splitlines()
    block = al[i1:i2]
    return sum(1 for s in range(len(al) - len(block) + 1) if al[s : s + len(block)] == block)


def applied_subset(
    a: str, b: str, ranges: list[tuple[int, int, int, int]], keep: list[bool]
) -> str:
    """``a`` with only the hunks marked in ``keep`` applied, each at its true place."""
    al, bl = a.splitlines(keepends=True), b.splitlines(keepends=True)
    out = list(al)
    for (i1, i2, j1, j2), take in sorted(zip(ranges, keep, strict=True), reverse=True):
        if take:
            out[i1:i2] = bl[j1:j2]
    text = "".join(out)
    return text


@SETTINGS
@given(data=st.data(), final_a=st.booleans(), final_b=st.booleans(), fenced=st.booleans())
def test_an_exact_diff_always_applies_byte_for_byte(
    data: st.DataObject, final_a: bool, final_b: bool, fenced: bool
) -> None:
    lines = data.draw(files(unique=True))
    a = text_of(lines, final_a)
    b = text_of(data.draw(edited(lines)), final_b)
    assume(a != b and a)
    diff, ranges = unified(a, b)
    # Context that occurs more than once a few lines apart is refused by design (the line
    # number alone does not decide there): the property is about diffs whose context places them.
    assume(max(copies(a, i1, i2) for i1, i2, _, _ in ranges) == 1)
    reply = f"```diff\n{diff}```\n" if fenced else diff
    result = apply_reply({"f.txt": a}, parse_reply(reply), known_paths=["f.txt"])
    assert not result.refused, [r.detail for r in result.refused]
    assert result.files.get("f.txt", a) == b


@SETTINGS
@given(data=st.data(), shift=st.integers(-40, 40), unique=st.booleans())
def test_shifted_line_numbers_apply_the_same_or_are_refused(
    data: st.DataObject, shift: int, unique: bool
) -> None:
    lines = data.draw(files(unique=unique))
    a = text_of(lines, True)
    b = text_of(data.draw(edited(lines)), True)
    assume(a != b and a)
    diff, ranges = unified(a, b, shift)
    # Where a hunk's old lines occur more than once, a shifted number may point at another
    # copy, and then the diff is a correct diff for that copy: nothing can tell the two apart.
    assume(shift == 0 or max(copies(a, i1, i2) for i1, i2, _, _ in ranges) == 1)
    result = apply_reply({"f.txt": a}, parse_reply(diff), known_paths=["f.txt"])
    assert len(result.reports) == len(ranges)
    keep = [r.status != "refused" for r in result.reports]
    assert result.files.get("f.txt", a) == applied_subset(a, b, ranges, keep)
    if shift == 0 and max(copies(a, i1, i2) for i1, i2, _, _ in ranges) == 1:
        assert all(keep), [r.detail for r in result.refused]


SEGMENTS = st.sampled_from(
    [
        "..",
        ".",
        "",
        ".git",
        ".GIT",
        ".Git ",
        ".git.",
        "git~1",
        "a",
        "b.py",
        "~",
        "C:",
        "c:",
        "\\",
        "/",
        "//",
        " ",
        "\t",
        "\n",
        "\x00",
        "\x7f",
        "é",
        "\udcff",
        '"',
        "`",
        "*",
        "'",
        "a/..",
        "../",
        "./",
        ".gitignore",
        "x.git",
        "..a",
        "...",
    ]
)


@st.composite
def paths(draw: st.DrawFn) -> str:
    parts = draw(st.lists(st.one_of(SEGMENTS, st.text(max_size=4)), min_size=1, max_size=8))
    seps = draw(
        st.lists(st.sampled_from(["/", "\\", "", "//"]), min_size=len(parts), max_size=len(parts))
    )
    raw = "".join(p + s for p, s in zip(parts, seps, strict=True))
    if draw(st.booleans()):  # as git would quote it in a header
        raw = (
            '"'
            + "".join(
                f"\\{ord(c):03o}" if ord(c) > 0x7E or ord(c) < 0x20 else c
                for c in raw.encode("utf-8", "surrogateescape").decode("latin-1")
            )
            + '"'
        )
        raw = header_path(raw)
    return raw


def inside_git_dir(path: str) -> bool:
    return any(part.rstrip(". ").lower() in (".git", "git~1") for part in path.split("/"))


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("repo").resolve()


@SETTINGS
@given(raw=paths())
def test_no_path_leaves_the_repository_or_enters_git(raw: str, root: Path) -> None:
    try:
        safe = check_path(raw)
    except UnsafePathError:
        return
    assert safe and safe == posixpath.normpath(safe) and not safe.startswith(("/", "../"))
    assert ".." not in safe.split("/") and not inside_git_dir(safe)
    assert not any(ord(c) < 0x20 or ord(c) == 0x7F or 0xD800 <= ord(c) <= 0xDFFF for c in safe)
    target = Path(os.path.realpath(root / safe))
    assert target != root and root in target.parents
    assert check_path(safe) == safe  # normalising twice changes nothing


@SETTINGS
@given(raw=paths())
def test_no_path_in_a_reply_gets_through_apply(raw: str) -> None:
    name = raw.replace("\n", "\\n")
    reply = f"--- /dev/null\n+++ {name}\n@@ -0,0 +1 @@\n+x\n"
    try:
        result = apply_reply({}, parse_reply(reply), known_paths=[])
    except UnsafePathError:
        return
    for path in result.files:
        assert path == check_path(path) and not inside_git_dir(path)
