"""Reading edits out of an LLM reply: lenient about form, never inventing content.

Three formats: gpt-engineer's fenced unified diffs, whole-file blocks (a path line followed by
a fenced block), and SEARCH/REPLACE blocks. The diff reader tolerates what real replies do:
prose and empty fences around diffs, a missing closing fence, ``a/``/``b/`` prefixes, ``@@ ... @@``
without numbers, wrong counts, context lines that lost their leading space, several diffs for
one file. What it cannot read becomes a line in ``problems``, never an exception.
"""

from __future__ import annotations

import difflib
import itertools
import re

from .model import FileEdit, Hunk, Op, ParsedReply
from .paths import clean_path

FORMATS = ("auto", "diff", "files", "search-replace")

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)\s*(\S*)\s*$")
_HUNK = re.compile(r"^@@+\s*-?(\d+)?(?:,(\d+))?\s*\+?(\d+)?(?:,(\d+))?\s*@@+")
_HUNK_LOOSE = re.compile(r"^@@")
_SEARCH = re.compile(r"^\s*<{5,9} ?SEARCH\s*>?\s*$")
_DIVIDER = re.compile(r"^\s*={5,9}\s*$")
_REPLACE = re.compile(r"^\s*>{5,9} ?REPLACE\s*<?\s*$")
_DEV_NULL = "/dev/null"
_PATHLIKE = re.compile(r"^[\w.@+-]?[\w./@+ -]*[\w@+-]$")


def parse_reply(text: str, fmt: str = "auto") -> ParsedReply:
    """Every edit in ``text``, in reply order, plus parse-level problems.

    ``fmt``: ``diff``, ``files``, ``search-replace`` or ``auto`` (diffs if the reply has any
    ``---``/``+++`` headers, else SEARCH/REPLACE blocks if it has any, else whole-file blocks).
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown edit format {fmt!r}; expected one of {', '.join(FORMATS)}")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if fmt == "auto":
        if _has_diff(lines):
            fmt = "diff"
        elif any(_SEARCH.match(line) for line in lines):
            fmt = "search-replace"
        else:
            fmt = "files"
    if fmt == "diff":
        parsed = _parse_diffs(lines)
    elif fmt == "search-replace":
        parsed = _parse_search_replace(lines)
    else:
        parsed = _parse_files(lines)
    parsed.format = fmt
    return parsed


def _has_diff(lines: list[str]) -> bool:
    return any(a.startswith("--- ") and b.startswith("+++ ") for a, b in itertools.pairwise(lines))


# ---------------------------------------------------------------------------- fences
def _fence_regions(lines: list[str]) -> tuple[list[int], list[str]]:
    """Per line: the fence block it is in (0 = outside), and problems (an unclosed fence)."""
    region = [0] * len(lines)
    problems: list[str] = []
    current = 0
    marker = ""
    count = 0
    for i, line in enumerate(lines):
        match = _FENCE.match(line)
        if current == 0:
            if match and match.group(1):
                count += 1
                current = count
                marker = match.group(1)
                region[i] = -current  # the opening fence line itself
            continue
        stripped = line.strip()
        if (
            stripped.startswith(marker[0] * 3)
            and set(stripped) <= {marker[0]}
            and len(stripped) >= len(marker)
        ):
            region[i] = -current
            current = 0
            continue
        region[i] = current
    if current:
        problems.append(
            "the reply ends inside an unclosed ``` block (truncated output?); read to the end"
        )
    return region, problems


# ---------------------------------------------------------------------------- diffs
def _parse_diffs(lines: list[str]) -> ParsedReply:
    region, problems = _fence_regions(lines)
    fenced = any(r != 0 for r in region)
    edits: list[FileEdit] = []
    i = 0
    n = len(lines)
    while i < n:
        line = lines[i]
        if not (line.startswith("--- ") and i + 1 < n and lines[i + 1].startswith("+++ ")):
            i += 1
            continue
        in_fence = region[i] > 0
        old_raw = clean_path(line[4:])
        new_raw = clean_path(lines[i + 1][4:])
        edit, i = _read_file_diff(
            lines, i + 2, region if fenced else None, old_raw, new_raw, in_fence
        )
        if edit.kind == "modify" and not edit.hunks:
            problems.append(f"diff for {edit.path} has no @@ hunks; ignored")
            continue
        edits.append(edit)
    if not edits:
        loose = sum(1 for line in lines if _HUNK_LOOSE.match(line))
        if loose:
            problems.append(f"{loose} @@ hunk(s) without a '--- path' / '+++ path' header; ignored")
    return ParsedReply(edits=edits, problems=problems)


def _strip_prefixes(old: str, new: str) -> tuple[str, str]:
    """git's ``a/``/``b/`` prefixes, when the pair shows they are prefixes."""
    if old.startswith("a/") and (new.startswith("b/") or new == _DEV_NULL):
        old = old[2:]
    if new.startswith("b/") and (old == _DEV_NULL or not old.startswith("b/")):
        new = new[2:]
    return old, new


def _read_file_diff(
    lines: list[str],
    i: int,
    region: list[int] | None,
    old_raw: str,
    new_raw: str,
    in_fence: bool,
) -> tuple[FileEdit, int]:
    old, new = _strip_prefixes(old_raw, new_raw)
    if new == _DEV_NULL:
        edit = FileEdit(path=old, kind="delete", old_path=old)
    elif old == _DEV_NULL:
        edit = FileEdit(path=new, kind="new")
    else:
        edit = FileEdit(path=new, kind="modify", old_path=old)
    n = len(lines)
    fence_id = region[i - 2] if region is not None else 0
    hunk: Hunk | None = None
    old_left = new_left = -1
    while i < n:
        line = lines[i]
        if region is not None and fence_id > 0 and region[i] != fence_id:
            break  # the fence closed
        counted = hunk is not None and (old_left > 0 or new_left > 0)
        if (
            line.startswith("--- ")
            and i + 1 < n
            and lines[i + 1].startswith("+++ ")
            and (not counted or (i + 2 < n and lines[i + 2].startswith("@@")))
        ):
            break
        match = _HUNK.match(line) if line.startswith("@@") else None
        if match or (line.startswith("@@") and not counted):
            hunk = _new_hunk(line, match)
            edit.hunks.append(hunk)
            old_left = hunk.old_count if hunk.old_count is not None else -1
            new_left = hunk.new_count if hunk.new_count is not None else -1
            i += 1
            continue
        if hunk is None:
            if (
                line.strip()
                and not in_fence
                and not line.startswith(
                    (
                        "index ",
                        "new file",
                        "deleted file",
                        "similarity",
                        "rename ",
                        "old mode",
                        "new mode",
                    )
                )
            ):
                break
            i += 1
            continue
        op: Op
        if line.startswith("\\"):
            if hunk.lines:
                last_op = hunk.lines[-1][0]
                if last_op == "+":
                    hunk.no_newline_new = True
                elif last_op == "-":
                    hunk.no_newline_old = True
                else:
                    hunk.no_newline_old = hunk.no_newline_new = True
            i += 1
            continue
        if line.startswith(("+", "-", " ")):
            op, text = line[0], line[1:]  # type: ignore[assignment]
        elif line == "":
            op, text = " ", ""
        elif in_fence or counted:
            op, text = " ", line  # a context line that lost its leading space
        else:
            break
        hunk.lines.append((op, text))
        if op != "+":
            old_left -= 1
        if op != "-":
            new_left -= 1
        i += 1
    for h in edit.hunks:
        _trim_trailing_blanks(h)
    if edit.kind == "new":
        edit.content = "\n".join(t for h in edit.hunks for op, t in h.lines if op != "-")
        if edit.content or edit.hunks:
            no_nl = bool(edit.hunks) and edit.hunks[-1].no_newline_new
            edit.content += "" if no_nl or not edit.content else "\n"
    return edit, i


def _new_hunk(line: str, match: re.Match[str] | None) -> Hunk:
    def num(group: int) -> int | None:
        value = match.group(group) if match else None
        return int(value) if value is not None else None

    old_start, new_start = num(1), num(3)
    old_count = num(2) if num(2) is not None else (1 if old_start is not None else None)
    new_count = num(4) if num(4) is not None else (1 if new_start is not None else None)
    return Hunk(
        lines=[],
        old_start=old_start,
        old_count=old_count,
        new_start=new_start,
        new_count=new_count,
        header=line.strip(),
    )


def _trim_trailing_blanks(hunk: Hunk) -> None:
    """Blank lines after a hunk are a separator unless the header's counts need them."""
    while hunk.lines and hunk.lines[-1] == (" ", ""):
        old_len = sum(1 for op, _ in hunk.lines if op != "+")
        if hunk.old_count is not None and old_len <= hunk.old_count:
            break
        hunk.lines.pop()


# ---------------------------------------------------------------------------- whole files
def _path_from_line(line: str) -> str | None:
    """The path a line before a fence names, or None when it is prose."""
    text = line.strip()
    if not text:
        return None
    text = re.sub(r"^#+\s*", "", text)
    text = re.sub(r"^(?:\*\*)?(?:file(?:name)?|path)\s*:\s*", "", text, flags=re.I)
    text = text.strip("*`'\" ").rstrip(":").strip("*`'\" ")
    if not text or " " in text or len(text) > 200:
        return None
    if not _PATHLIKE.match(text):
        return None
    if "." not in text and "/" not in text and text not in _BARE_NAMES:
        return None
    return text


_BARE_NAMES = {
    "Dockerfile",
    "dockerfile",
    "Makefile",
    "makefile",
    "LICENSE",
    "Procfile",
    "Gemfile",
    "Rakefile",
}


def _parse_files(lines: list[str]) -> ParsedReply:
    region, problems = _fence_regions(lines)
    edits: list[FileEdit] = []
    i = 0
    n = len(lines)
    while i < n:
        if region[i] >= 0:
            i += 1
            continue
        block = -region[i]
        match = _FENCE.match(lines[i])
        info = match.group(3) if match else ""
        path = _path_from_line(info) if info else None
        if path is None:
            j = i - 1
            while j >= 0 and not lines[j].strip() and i - j <= 2:
                j -= 1
            path = _path_from_line(lines[j]) if j >= 0 and region[j] == 0 else None
        body: list[str] = []
        k = i + 1
        while k < n and region[k] == block:
            body.append(lines[k])
            k += 1
        i = k + 1
        if path is None:
            continue
        content = "\n".join(body)
        if content and not content.endswith("\n"):
            content += "\n"
        edits.append(FileEdit(path=path, kind="whole-file", content=content, fmt="files"))
    return ParsedReply(edits=edits, problems=problems)


# ---------------------------------------------------------------------------- SEARCH/REPLACE
def _parse_search_replace(lines: list[str]) -> ParsedReply:
    problems: list[str] = []
    edits: list[FileEdit] = []
    last_path: str | None = None
    i = 0
    n = len(lines)
    while i < n:
        if not _SEARCH.match(lines[i]):
            i += 1
            continue
        path = None
        for back in range(1, 4):
            if i - back < 0:
                break
            prev = lines[i - back]
            fence = _FENCE.match(prev)
            if fence:
                candidate = _path_from_line(fence.group(3)) if fence.group(3) else None
                if candidate:
                    path = candidate
                    break
                continue
            candidate = _path_from_line(prev)
            if candidate:
                path = candidate
                break
            if prev.strip():
                break
        path = path or last_path
        start = i
        search: list[str] = []
        replace: list[str] = []
        i += 1
        while i < n and not _DIVIDER.match(lines[i]) and not _SEARCH.match(lines[i]):
            search.append(lines[i])
            i += 1
        if i >= n or not _DIVIDER.match(lines[i]):
            problems.append(
                f"SEARCH block at reply line {start + 1} has no ======= divider; ignored"
            )
            continue
        i += 1
        while i < n and not _REPLACE.match(lines[i]) and not _SEARCH.match(lines[i]):
            if _DIVIDER.match(lines[i]):  # a second divider: aider's "merge conflict" style
                replace = []
            else:
                replace.append(lines[i])
            i += 1
        if i >= n or not _REPLACE.match(lines[i]):
            problems.append(
                f"SEARCH block at reply line {start + 1} has no >>>>>>> REPLACE end; ignored"
            )
            continue
        i += 1
        if path is None:
            problems.append(f"SEARCH block at reply line {start + 1} names no file; ignored")
            continue
        last_path = path
        edits.append(search_replace_edit(path, search, replace))
    return ParsedReply(edits=edits, problems=problems)


def search_replace_edit(path: str, search: list[str], replace: list[str]) -> FileEdit:
    """A SEARCH/REPLACE block as a hunk: lines common to both sides become context.

    An empty SEARCH creates the file (or appends, when the file exists: see the applier).
    """
    if not any(s.strip() for s in search):
        content = "\n".join(replace) + ("\n" if replace else "")
        return FileEdit(path=path, kind="whole-file", content=content, fmt="search-replace-append")
    ops: list[tuple[Op, str]] = []
    matcher = difflib.SequenceMatcher(a=search, b=replace, autojunk=False)
    for tag, a1, a2, b1, b2 in matcher.get_opcodes():
        if tag == "equal":
            ops.extend((" ", t) for t in search[a1:a2])
        else:
            ops.extend(("-", t) for t in search[a1:a2])
            ops.extend(("+", t) for t in replace[b1:b2])
    hunk = Hunk(lines=ops, header="SEARCH/REPLACE")
    return FileEdit(path=path, kind="modify", hunks=[hunk], fmt="search-replace")


def search_replace_blocks(edits: list[FileEdit]) -> list[tuple[str, str, str]]:
    """(path, search text, replace text) per SEARCH/REPLACE edit: for tests and tooling."""
    out: list[tuple[str, str, str]] = []
    for edit in edits:
        if edit.kind == "whole-file":
            out.append((edit.path, "", edit.content or ""))
            continue
        for hunk in edit.hunks:
            out.append((edit.path, "\n".join(hunk.old_lines), "\n".join(hunk.new_lines)))
    return out
