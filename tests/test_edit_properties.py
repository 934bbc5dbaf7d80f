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
@given(data=st.data())
def test_an_exact_diff_whose_context_lost_its_leading_space_still_applies(
    data: st.DataObject,
) -> None:
    lines = data.draw(files(unique=True))
    # Lines that would read as diff syntax once the space in front is gone are out of scope.
    assume(not any(line.lstrip(" ").startswith(("+", "-", "\\", "@")) for line in lines))
    a = text_of(lines, True)
    b = text_of(data.draw(edited(lines)), True)
    assume(a != b and a)
    diff, ranges = unified(a, b)
    assume(max(copies(a, i1, i2) for i1, i2, _, _ in ranges) == 1)
    body = "\n".join(
        row[1:] if row.startswith(" ") and row[1:].strip() else row for row in diff.split("\n")
    )
    result = apply_reply({"f.txt": a}, parse_reply(f"```diff\n{body}```\n"), known_paths=["f.txt"])
    assert result.files.get("f.txt", a) == b or (result.refused and "f.txt" not in result.files)


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


# ------------------------------------------------------------------ near-identical blocks
@SETTINGS
@given(
    name=st.sampled_from(["data", "value", "config"]),
    exc=st.sampled_from(["ValueError", "OSError"]),
    args=st.lists(
        st.sampled_from(["url", "mirror", "urls", "host"]), min_size=2, max_size=2, unique=True
    ),
    gap=st.integers(0, 4),
    target=st.integers(0, 1),
    changed=st.integers(1, 4),
    invented_at=st.integers(0, 6),
    misindented=st.integers(0, 5),
    hint=st.sampled_from(["none", "target", "neighbour", "between"]),
)
def test_twin_blocks_placed_on_the_right_one_or_refused(
    name: str,
    exc: str,
    args: list[str],
    gap: int,
    target: int,
    changed: int,
    invented_at: int,
    misindented: int,
    hint: str,
) -> None:
    def block(arg: str) -> list[str]:
        return [
            "    try:",
            f"        {name} = fetch({arg})",
            f"    except {exc}:",
            f'        log.warning("failed %s", {arg})',
            f"        {name} = None",
        ]

    blocks = [block(args[0]), block(args[1])]
    head = ["import log", "", f"def f({', '.join(args)}):"]
    lines = (
        head
        + blocks[0]
        + [f"    x{i} = {i}" for i in range(gap)]
        + blocks[1]
        + [f"    return {name}"]
    )
    starts = [len(head), len(head) + 5 + gap]
    mine = blocks[target]
    body = []
    for k, line in enumerate(mine):
        if k == changed:
            body += ["-" + line, "+" + line + "  # changed"]
        else:
            body.append(" " + line)
    invented = "         # retry once"  # a line the file does not have
    body.insert(min(invented_at, len(body)), invented)
    context = [k for k, row in enumerate(body) if row.startswith(" ") and "retry" not in row]
    k = context[misindented % len(context)]
    body[k] = " " + body[k][3:]  # two spaces short
    at = {
        "none": None,
        "target": starts[target],
        "neighbour": starts[1 - target],
        "between": (starts[0] + starts[1]) // 2,
    }[hint]
    header = "@@ ... @@" if at is None else f"@@ -{at + 1},5 +{at + 1},5 @@"
    text = "\n".join(lines) + "\n"
    reply = "```diff\n--- m.py\n+++ m.py\n" + header + "\n" + "\n".join(body) + "\n```\n"
    result = apply_reply({"m.py": text}, parse_reply(reply), known_paths=["m.py"])
    if result.refused:
        assert result.files == {}
        return
    out = result.files["m.py"] or ""
    changed_at = [i for i, (x, y) in enumerate(zip(lines, out.split("\n"), strict=False)) if x != y]
    assert changed_at and starts[target] <= changed_at[0] < starts[target] + 5, reply


# ------------------------------------------------------------------ SEARCH that lost indentation
@st.composite
def nested_file(draw: st.DrawFn) -> list[tuple[int, str]]:
    """(depth, text) lines of block-structured code: a line ending in ':' opens a level."""
    out: list[tuple[int, str]] = []
    depth = 0
    for i in range(draw(st.integers(4, 30))):
        last = next((t for _, t in reversed(out) if t), "")
        if last.endswith(":"):
            depth += 1  # a block's first line is one level deeper, and not blank
        elif depth and draw(st.integers(0, 3)) == 0:
            depth = draw(st.integers(0, depth))
        if draw(st.integers(0, 9)) == 0 and not last.endswith(":"):
            out.append((depth, ""))
            continue
        opens = draw(st.integers(0, 3)) == 0
        out.append((depth, f"if cond_{i}:" if opens else f"step_{i}()"))
    if out and out[-1][1].endswith(":"):
        out.append((out[-1][0] + 1, "pass"))
    return out


def indented(lines: list[tuple[int, str]], drop: int | None, extra: str = "") -> list[str]:
    """Lines at 4 spaces a level, less ``drop`` levels (None: no indentation at all)."""
    if drop is None:
        return [text for _, text in lines]
    return [extra + "    " * (d - drop) + t if t else "" for d, t in lines]


@SETTINGS
@given(data=st.data(), mode=st.sampled_from(["dedent", "flatten", "deeper"]))
def test_a_search_without_its_indentation_lands_at_the_files_depth_or_is_refused(
    data: st.DataObject, mode: str
) -> None:
    lines = data.draw(nested_file())
    start = data.draw(st.integers(0, len(lines) - 2))
    end = data.draw(st.integers(start + 2, min(len(lines), start + 6)))
    chunk = lines[start:end]
    assume(sum(1 for _, t in chunk if t) >= 2)
    # The edit: one line changed, and maybe a line inserted after another, at the depth the
    # code there calls for.
    new = list(chunk)
    at = data.draw(st.sampled_from([k for k, (_, t) in enumerate(chunk) if t]))
    new[at] = (chunk[at][0], chunk[at][1] + "  # edited")
    if data.draw(st.booleans()):
        k = data.draw(st.sampled_from([j for j, (_, t) in enumerate(new) if t]))
        depth = new[k][0] + (1 if new[k][1].rstrip().endswith(":") else 0)
        new.insert(k + 1, (depth, "inserted()"))
    base = min(d for d, t in chunk if t)
    # dedent: the SEARCH lost the chunk's common indentation; deeper: it has 4 spaces too many.
    drop = None if mode == "flatten" else base
    extra = "    " * base + "    " if mode == "deeper" else ""
    search = indented(chunk, drop, extra)
    replace = indented(new, drop, extra)
    # A flattened SEARCH that reads the same as the file's lines is not missing anything: the
    # REPLACE then says what it says (no engine can see the depth it lost).
    assume(mode != "flatten" or search != indented(chunk, 0))
    text = "\n".join(indented(lines, 0)) + "\n"
    want = "\n".join(indented(lines[:start] + new + lines[end:], 0)) + "\n"
    reply = (
        "m.py\n```python\n<<<<<<< SEARCH\n"
        + "\n".join(search)
        + "\n=======\n"
        + "\n".join(replace)
        + "\n>>>>>>> REPLACE\n```\n"
    )
    result = apply_reply({"m.py": text}, parse_reply(reply), known_paths=["m.py"])
    if result.refused:
        # Only a SEARCH that lost its nesting may leave the depth unknowable.
        assert mode == "flatten", result.refused[0].detail
        assert result.files == {}
        return
    assert result.files.get("m.py", text) == want, reply
