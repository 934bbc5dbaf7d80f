"""Reading edits out of an LLM reply: lenient about form, never inventing content.

Three formats: gpt-engineer's fenced unified diffs, whole-file blocks (a path line followed by
a fenced block), and SEARCH/REPLACE blocks. The diff reader tolerates what real replies do:
prose and empty fences around diffs, a missing closing fence, ``a/``/``b/`` prefixes, ``@@ ... @@``
without numbers, wrong counts, context lines that lost their leading space, several diffs for
one file. What it cannot read becomes a line in ``problems``, never an exception.
"""

from __future__ import annotations

import ast
import difflib
import io
import itertools
import re
import tokenize
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .formats import reply_formats
from .model import FileEdit, Hunk, Op, ParsedReply
from .paths import header_path

FORMATS = reply_formats()

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)\s*(\S*)\s*$")
_HUNK = re.compile(r"^@@+\s*-?(\d+)?(?:,(\d+))?\s*\+?(\d+)?(?:,(\d+))?\s*@@+")
_HUNK_LOOSE = re.compile(r"^@@")
_SEARCH = re.compile(r"^\s*<{5,9} ?SEARCH\s*>?\s*$")
_DIVIDER = re.compile(r"^\s*={5,9}\s*$")
_REPLACE = re.compile(r"^\s*>{5,9} ?REPLACE\s*<?\s*$")
_DEV_NULL = "/dev/null"
# Path characters, with the brackets, parentheses and $ of web framework routes
# (``pages/[id].jsx``, ``app/(auth)/page.tsx``, ``routes/$slug.tsx``), and backticks inside a
# name (``file`2`.py`` is a file name git takes).
# Fence languages of a Python block.
_PYTHON = frozenset({"python", "py", "python3"})
_PATHLIKE = re.compile(r"^[\w.@+$\[(-]?[\w./@+ $\[\]()`-]*[\w@+\])-]$")


def parse_reply(
    text: str, fmt: str = "auto", *, sole: tuple[str, str] | None = None
) -> ParsedReply:
    """Every edit in ``text``, in reply order, plus parse-level problems.

    ``fmt``: ``diff``, ``files`` or ``search-replace`` read only that format; ``auto`` reads
    all three, so a reply that mixes them loses none of its edits. A block belongs to the
    format that starts it: a diff's hunk lines are never re-read as SEARCH/REPLACE, and a fence
    holding a diff or a SEARCH/REPLACE block is never a whole file.

    ``sole``: (path, text) of the one file the model was shown, when it was shown exactly one.
    A reply with no edit whose code block shares lines with that file is read as that file
    written out whole (small models answer "the file, changed" without its path line). The
    applier still refuses it if it is only a part of the file.
    """
    if fmt != "auto" and fmt not in READERS:
        known = ", ".join(["auto", *READERS])
        raise ValueError(f"unknown edit format {fmt!r}; expected one of {known}")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    found = _parse_all(lines) if fmt == "auto" else READERS[fmt](lines)
    if not found.edits and sole is not None and fmt in ("auto", "files"):
        edit = _sole_file(lines, *sole)
        if edit is not None:
            found.edits.append((0, len(lines), edit))
    kinds = list(dict.fromkeys(_FORMAT_OF.get(e.fmt, e.fmt) for _, _, e in found.edits))
    return ParsedReply(
        edits=[e for _, _, e in found.edits],
        problems=list(dict.fromkeys(found.problems)),
        format="+".join(kinds) if kinds else (fmt if fmt != "auto" else "diff"),
    )


# FileEdit.fmt -> the format name reported for the reply.
_FORMAT_OF = {"search-replace-empty": "search-replace"}


@dataclass
class _Found:
    """What one reader found: edits with the reply lines they span, and problems.

    ``spans`` also holds blocks that were read but yielded no edit (a diff without hunks), so
    that no other reader takes their lines for something else.
    """

    edits: list[tuple[int, int, FileEdit]] = field(default_factory=list)
    spans: list[tuple[int, int]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def _overlaps(start: int, end: int, spans: Sequence[tuple[int, int]]) -> bool:
    return any(start < b and a < end for a, b in spans)


def _parse_all(lines: list[str]) -> _Found:
    """Diffs, SEARCH/REPLACE blocks and whole files together, in reply order.

    Where blocks of different formats claim the same lines, the one that starts first owns
    them (the other's lines are its content): a diff quoted inside a whole Markdown file is
    part of that file, and a whole file never starts inside a diff.
    """
    readers = [read(lines) for read in READERS.values()]
    claims = sorted(
        (
            (start, end, k, edit)
            for k, found in enumerate(readers)
            for start, end, edit in [*found.edits, *((a, b, None) for a, b in found.spans)]
        ),
        key=lambda claim: claim[:3],
    )
    out = _Found(problems=[p for found in readers for p in found.problems])
    # Claims come in order of their start, so one owned earlier overlaps this one exactly when
    # it ends after this one starts: the furthest end per format is all there is to keep
    # (linear in the number of blocks; a reply creating 20,000 files is 20,000 of them).
    reach = [-1] * len(readers)
    for start, end, k, edit in claims:
        if any(reach[who] > start for who in range(len(readers)) if who != k):
            continue  # inside a block of another format that starts earlier
        reach[k] = max(reach[k], end)
        if edit is not None:
            out.edits.append((start, end, edit))
    out.edits.sort(key=lambda x: x[0])
    return out


# ---------------------------------------------------------------------------- fences
def prose(text: str, limit: int = 1500) -> str:
    """What a reply says around its edits: the lines outside fenced blocks, without the path
    line before each block (the model's own explanation of the change), cut at ``limit``."""
    lines = text.replace("\r\n", "\n").split("\n")
    region, _ = _fence_regions(lines)
    kept = []
    for i, line in enumerate(lines):
        if region[i] != 0:
            continue
        if i + 1 < len(lines) and region[i + 1] < 0 and _path_from_line(line):
            continue  # the path line of the block below
        kept.append(line)
    out = re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip()
    return out if len(out) <= limit else out[: limit - 1].rstrip() + "…"


def drop_unclosed(text: str) -> str:
    """``text`` without a last fenced block that was never closed (a reply cut off in the
    middle of a block: its content is incomplete and must not be used as if it were whole)."""
    lines = text.replace("\r\n", "\n").split("\n")
    region, problems = _fence_regions(lines)
    if not problems:
        return text
    start = len(lines)
    while start > 0 and region[start - 1] != 0:
        start -= 1
        if region[start] < 0:
            break
    return "\n".join(lines[:start])


def _fence_regions(lines: list[str]) -> tuple[list[int], list[str]]:
    """Per line: the fence block it is in (0 = outside), and problems (an unclosed fence)."""
    region = [0] * len(lines)
    problems: list[str] = []
    current = 0
    marker = ""
    count = 0
    diff: bool | None = None  # the open block holds a diff (None: not known yet)
    python = False  # the open block holds Python
    opened = 0
    for i, line in enumerate(lines):
        match = _FENCE.match(line)
        if current == 0:
            if match and match.group(1):
                count += 1
                current = count
                marker = match.group(1)
                region[i] = -current  # the opening fence line itself
                language = match.group(2).lower()
                diff = True if language in ("diff", "patch", "udiff") else None
                opened = i
                python = language in _PYTHON or _names_python_file(lines[:i])
            continue
        stripped = line.strip()
        if diff is None and stripped:
            diff = line.startswith(("--- ", "@@"))
        if _closes(line, marker, diff) and not (
            python and _closes_inside_string(lines, opened, i, marker)
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


def _closes(line: str, marker: str, diff: bool | None) -> bool:
    """``line`` is a fence that may close a block opened with ``marker``."""
    stripped = line.strip()
    return (
        stripped.startswith(marker[0] * 3)
        and set(stripped) <= {marker[0]}
        and len(stripped) >= len(marker)
        # In a diff, a line starting with a space, + or - is hunk text: " ```" is a context
        # line of a Markdown file, not the end of the block.
        and not (diff and line.startswith((" ", "+", "-")))
    )


def _names_python_file(before: list[str]) -> bool:
    """The last non-blank line before a fence names a Python file (a whole-file block's path)."""
    for line in reversed(before):
        if line.strip():
            return line.strip().strip("`*:").endswith(".py")
    return False


def _closes_inside_string(lines: list[str], opened: int, at: int, marker: str) -> bool:
    """A fence inside a Python block is part of a triple-quoted string, not the block's end.

    A Python file that holds Markdown (a test of a Markdown renderer, a docstring with an
    example) has bare fences of its own; written out whole in a block fenced the same way, its
    first inner fence would end the block, and what follows would be read as prose and as
    blocks of files named ``code``. The fence at ``at`` is taken for content only when the
    block up to it leaves a string open and a later fence ends it where the whole block parses:
    a broken block, or one that never parses, closes where it always did.
    """
    if not _open_string("\n".join(lines[opened + 1 : at])):
        return False
    for later in range(at + 1, len(lines)):
        if _closes(lines[later], marker, None) and _parses("\n".join(lines[opened + 1 : later])):
            return True
    return False


def _open_string(source: str) -> bool:
    try:
        for _ in tokenize.generate_tokens(io.StringIO(source).readline):
            pass
    except tokenize.TokenError as error:
        return "string" in str(error)
    except SyntaxError as error:  # Python 3.12+: the tokenizer reports the string itself
        return "string" in str(error)
    return False


def _parses(source: str) -> bool:
    try:
        ast.parse(source)
    except (SyntaxError, ValueError):
        return False
    return True


# ---------------------------------------------------------------------------- diffs
def _parse_diffs(lines: list[str]) -> _Found:
    region, problems = _fence_regions(lines)
    fenced = any(r != 0 for r in region)
    found = _Found(problems=problems)
    i = 0
    n = len(lines)
    while i < n:
        line = lines[i]
        if not (line.startswith("--- ") and i + 1 < n and lines[i + 1].startswith("+++ ")):
            i += 1
            continue
        in_fence = region[i] > 0
        old_raw = header_path(line[4:])
        new_raw = header_path(lines[i + 1][4:])
        start = i
        edit, i = _read_file_diff(
            lines, i + 2, region if fenced else None, old_raw, new_raw, in_fence
        )
        if edit.kind == "modify" and not edit.hunks:
            problems.append(f"diff for {edit.path} has no @@ hunks; ignored")
            found.spans.append((start, i))
            continue
        found.edits.append((start, i, edit))
    if not found.edits:
        loose = sum(1 for line in lines if _HUNK_LOOSE.match(line))
        if loose:
            problems.append(f"{loose} @@ hunk(s) without a '--- path' / '+++ path' header; ignored")
    return found


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
    """The diff of one file whose ---/+++ headers end just before line ``i``, and the line
    after it.

    The diff ends where its fence closes, where the next file's headers start, or at a line
    that cannot be part of it. Inside a fence, or while a hunk's header counts still expect
    lines, a line without a leading space is read as context that lost its space.
    """
    edit = _edit_from_headers(old_raw, new_raw)
    fence_id = region[i - 2] if region is not None else 0
    hunk: Hunk | None = None
    old_left = new_left = -1  # lines the hunk's header counts still expect (-1: no counts)
    while i < len(lines):
        line = lines[i]
        if region is not None and fence_id > 0 and region[i] != fence_id:
            break  # the fence closed
        counted = hunk is not None and (old_left > 0 or new_left > 0)
        if _next_file_starts(lines, i, counted):
            break
        match = _HUNK.match(line) if line.startswith("@@") else None
        if match or (line.startswith("@@") and not counted):
            hunk = _new_hunk(line, match)
            edit.hunks.append(hunk)
            old_left = hunk.old_count if hunk.old_count is not None else -1
            new_left = hunk.new_count if hunk.new_count is not None else -1
        elif hunk is None:
            if not _may_precede_hunks(line, in_fence):
                break
        elif line.startswith("\\"):
            _mark_no_newline(hunk)
        else:
            op_and_text = _hunk_line(line, in_fence or counted)
            if op_and_text is None:
                break
            hunk.lines.append(op_and_text)
            if op_and_text[0] != "+":
                old_left -= 1
            if op_and_text[0] != "-":
                new_left -= 1
        i += 1
    _finish_file_diff(edit)
    return edit, i


def _edit_from_headers(old_raw: str, new_raw: str) -> FileEdit:
    """The edit a ---/+++ pair announces: a deletion (to /dev/null), a new file (from
    /dev/null) or a change, which is a rename when the two paths differ."""
    old, new = _strip_prefixes(old_raw, new_raw)
    if new == _DEV_NULL:
        return FileEdit(path=old, kind="delete", old_path=old)
    if old == _DEV_NULL:
        return FileEdit(path=new, kind="new")
    return FileEdit(path=new, kind="modify", old_path=old)


def _next_file_starts(lines: list[str], i: int, counted: bool) -> bool:
    """Whether line ``i`` starts the next file's ---/+++ headers.

    While a hunk's counts still expect lines, ``--- x`` may be a removed line ``-- x``: only
    headers followed by an ``@@`` line end the hunk then.
    """
    n = len(lines)
    return (
        lines[i].startswith("--- ")
        and i + 1 < n
        and lines[i + 1].startswith("+++ ")
        and (not counted or (i + 2 < n and lines[i + 2].startswith("@@")))
    )


# What git writes between a diff's headers and its first hunk.
_GIT_EXTENDED_HEADERS = (
    "index ",
    "new file",
    "deleted file",
    "similarity",
    "rename ",
    "old mode",
    "new mode",
)


def _may_precede_hunks(line: str, in_fence: bool) -> bool:
    """Whether a line between the headers and the first ``@@`` belongs to the diff: a blank
    line, git's extended headers, anything inside the diff's fence. Prose outside a fence
    there means the headers were not a diff's (no hunk follows)."""
    return not line.strip() or in_fence or line.startswith(_GIT_EXTENDED_HEADERS)


def _mark_no_newline(hunk: Hunk) -> None:
    """``\\ No newline at end of file`` applies to the side(s) of the line before it."""
    if not hunk.lines:
        return
    last_op = hunk.lines[-1][0]
    if last_op == "+":
        hunk.no_newline_new = True
    elif last_op == "-":
        hunk.no_newline_old = True
    else:
        hunk.no_newline_old = hunk.no_newline_new = True


def _hunk_line(line: str, lost_space_is_context: bool) -> tuple[Op, str] | None:
    """(op, text) of a line inside a hunk, or None when the line ends the hunk.

    An empty line is an empty context line (editors strip the lone space). A line with no op
    is context that lost its leading space only where that is certain to be hunk text
    (``lost_space_is_context``: inside the diff's fence, or within the header's counts).
    """
    if line.startswith(("+", "-", " ")):
        op: Op = "+" if line[0] == "+" else "-" if line[0] == "-" else " "
        return op, line[1:]
    if line == "":
        return " ", ""
    if lost_space_is_context:
        return " ", line
    return None


def _finish_file_diff(edit: FileEdit) -> None:
    """Trim each hunk's trailing separator lines; a new file's content is its added text."""
    for hunk in edit.hunks:
        _trim_trailing_blanks(hunk)
    if edit.kind != "new":
        return
    edit.content = "\n".join(t for h in edit.hunks for op, t in h.lines if op != "-")
    if edit.content or edit.hunks:
        no_newline = bool(edit.hunks) and edit.hunks[-1].no_newline_new
        edit.content += "" if no_newline or not edit.content else "\n"


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
def _path_from_line(line: str, *, explicit: bool = False) -> str | None:
    """The path a line before a fence (or a SEARCH) names, or None when it is prose.

    A path has a dot or a slash (``src/app.py``, ``pages/[id].jsx``), or is a well-known bare
    name (``Makefile``). A lower-case word without either (``tool``, ``setup``) is a path only
    when nothing says it is prose: not a word that labels a block (``output``, ``example``,
    ``bash``, ``code``), alone on its line with no colon or in backticks (`` `tool` ``); or
    labelled as a name (``File: tool``, a fence's info string: ``explicit``). A quoted label
    (`` `code` `` above a fence, a line of Markdown inside a file being written) is not a file.
    """
    text = line.strip()
    if not text:
        return None
    text = re.sub(r"^(?:#+|[-*+]|\d+[.)])\s+", "", text)  # a heading or list item
    labelled = re.sub(r"^(?:\*\*)?(?:file(?:name)?|path)\s*:\s*", "", text, flags=re.I)
    explicit = explicit or labelled != text
    quoted = text.strip("*").startswith("`")
    text = labelled.strip("*`'\" ")
    colon = text.endswith(":")
    text = text.rstrip(":").strip("*`'\" ")
    if not text or " " in text or len(text) > 200:
        return None
    if not _PATHLIKE.match(text):
        return None
    if "." in text or "/" in text or text in _BARE_NAMES:
        return text
    if _BARE_WORD.match(text) and (
        explicit or ((quoted or not colon) and text not in _PROSE_WORDS)
    ):
        return text
    return None


_BARE_WORD = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
# Single lower-case words that label a block rather than name a file.
# fmt: off
_PROSE_WORDS = frozenset((
    "output", "outputs", "example", "examples", "usage", "result", "results", "note", "notes",
    "explanation", "code", "snippet", "before", "after", "solution", "answer", "step",
    "steps", "summary", "changes", "change", "update", "updated", "fix", "fixed", "done",
    "here", "now", "then", "next", "first", "finally", "also", "and", "or", "sure", "okay",
    "ok", "yes", "no", "error", "errors", "warning", "warnings", "input", "response", "reply",
    "request", "test", "tests", "run", "command", "commands", "terminal", "console", "shell",
    "text", "plaintext", "python", "py", "javascript", "js", "typescript", "ts", "jsx", "tsx",
    "bash", "sh", "zsh", "sql", "html", "css", "json", "yaml", "yml", "toml", "ini", "xml",
    "markdown", "md", "diff", "patch", "go", "rust", "c", "cpp", "java", "ruby", "php",
    "kotlin", "swift",
))
# fmt: on


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


def _path_from_prose(line: str) -> str | None:
    """The file a sentence introducing a whole file names: "Here is the new version of `a.txt`:".

    Only a sentence that ends with a colon, names exactly one path in backticks and says the
    block is a whole file (new, updated, full, the contents of...), never one that announces a
    part of a file (a function, a snippet, lines to add): writing a part as the whole file would
    delete the rest.
    """
    # The paragraph's last sentence: "... in `a.store.py` with logging. Here's the corrected
    # version of `a/store.py`:" (the 1.5B model) names its file there.
    text = re.split(r"(?<=[.!?])\s+(?=[A-Z])", line.strip().rstrip("*").strip())[-1]
    if not text.endswith(":") or len(text) > 300:
        return None
    names = [_path_from_line(span, explicit=True) for span in re.findall(r"`([^`]+)`", text)]
    if len(names) != 1 or names[0] is None:
        return None
    prose = re.sub(r"`[^`]*`", " ", text)
    if not _WHOLE_FILE_PROSE.search(prose) or _PART_PROSE.search(prose):
        return None
    return names[0]


_WHOLE_FILE_PROSE = re.compile(
    r"\b(?:new|updated|full|complete|whole|entire|final|revised|rewritten|corrected|modified)\b"
    r"|\b(?:contents?|version) of\b|\bcreat(?:e|ed|ing)\b",
    re.IGNORECASE,
)
_PART_PROSE = re.compile(
    r"\b(?:functions?|methods?|class(?:es)?|sections?|parts?|snippets?|excerpts?|lines?|blocks?"
    r"|hunks?|diffs?|patch(?:es)?|changes?|imports?|tests?|add|append|insert|prepend)\b",
    re.IGNORECASE,
)


def _parse_files(lines: list[str], claimed: Sequence[tuple[int, int]] = ()) -> _Found:
    """Whole-file blocks: fences named by a path line (or their info string).

    Fences overlapping ``claimed`` lines (a diff, a SEARCH/REPLACE block) are not whole files,
    nor are fences that hold a diff (``diff`` language, or a body starting with ``@@``/``---``).
    """
    region, problems = _fence_regions(lines)
    found = _Found(problems=problems)
    i = 0
    n = len(lines)
    while i < n:
        if region[i] >= 0:
            i += 1
            continue
        block = -region[i]
        match = _FENCE.match(lines[i])
        info = match.group(3) if match else ""
        path = _path_from_line(info, explicit=True) if info else None
        language = match.group(2) if match else ""
        if path is None and not info and ("." in language or "/" in language):
            path = _path_from_line(language, explicit=True)  # ```b.txt: a path, not a language
        if path is None:
            j = i - 1
            while j >= 0 and not lines[j].strip() and i - j <= 2:
                j -= 1
            if j >= 0 and region[j] == 0:
                path = _path_from_line(lines[j]) or _path_from_prose(lines[j])
        body: list[str] = []
        k = i + 1
        while k < n and region[k] == block:
            body.append(lines[k])
            k += 1
        start, i = i, k + 1
        if path is None or _overlaps(start, k + 1, claimed):
            continue
        if _holds_diff(info or (match.group(2) if match else ""), path, body):
            problems.append(f"the block under {path} is a diff without ---/+++ headers; ignored")
            continue
        if _holds_search_replace(body):
            continue  # a SEARCH/REPLACE block under its path line, not the file's text
        content = "\n".join(unnumbered(body))
        if content and not content.endswith("\n"):
            content += "\n"
        edit = FileEdit(path=path, kind="whole-file", content=content, fmt="files")
        found.edits.append((start, k + 1, edit))
    return found


_NUMBERED = re.compile(r"^ *(\d{1,6}) ?(.*)$")


def unnumbered(body: list[str]) -> list[str]:
    """A whole file's lines without the line numbers a model copied from how it was shown
    (``" 7     return x"``): only when every non-blank line carries one and they rise, mostly by
    one; a file whose lines merely start with numbers keeps them."""
    numbered = [_NUMBERED.match(line) for line in body]
    filled = [(m, line) for m, line in zip(numbered, body, strict=True) if line.strip()]
    if len(filled) < 3:
        return body
    if any(m is None for m, _ in filled):
        return _unnumbered_runs(body)
    values = [int(m.group(1)) for m, _ in filled if m is not None]
    steps = [b - a for a, b in itertools.pairwise(values)]
    if any(step <= 0 for step in steps) or sum(1 for step in steps if step == 1) * 2 < len(steps):
        return body
    return [
        line if m is None else _cut_number(line, m) for m, line in zip(numbered, body, strict=True)
    ]


# A line as the prompt numbers it: the number, one space, the line (or nothing: a blank line).
_NUMBERED_LINE = re.compile(r"^ *(\d{1,6})(?: (.*))?$")
# How many numbered lines in a row, each one more than the last, make a copied stretch.
_RUN = 3


def _unnumbered_runs(body: list[str]) -> list[str]:
    """``body`` with the numbers taken off stretches of lines numbered one by one (each the
    last plus one, blank lines numbered too): a model that began a definition from memory and
    went on copying the prompt's numbered excerpt (``104     \"\"\"``)."""
    out = list(body)
    matches = [_NUMBERED_LINE.match(line) for line in body]
    i = 0
    while i < len(body):
        j = i
        while (
            j + 1 < len(body)
            and (first := matches[j]) is not None
            and (then := matches[j + 1]) is not None
            and int(then.group(1)) == int(first.group(1)) + 1
        ):
            j += 1
        if j - i + 1 >= _RUN:
            for k in range(i, j + 1):
                match = matches[k]
                assert match is not None
                out[k] = _cut_number(body[k], match)
        i = j + 1
    return out


def _cut_number(line: str, match: re.Match[str]) -> str:
    """ " 12 code" -> "code": the number (right-aligned), then one space."""
    cut = len(line) - len(line.lstrip(" ")) + len(match.group(1))
    return line[cut + 1 :] if line[cut : cut + 1] == " " else line[cut:]


# Fence languages that label output or commands, not a file's text.
_NOT_CODE = frozenset(
    (
        "bash",
        "sh",
        "shell",
        "console",
        "terminal",
        "text",
        "plaintext",
        "output",
        "need",
        "diff",
        "patch",
        "udiff",
    )
)


def _sole_file(lines: list[str], path: str, current: str) -> FileEdit | None:
    """The block of a reply without path lines that is ``path`` written out whole: among its
    fenced code blocks, the one sharing the most lines with the file (at least a quarter of the
    block's lines must be the file's own)."""
    region, _ = _fence_regions(lines)
    known = {line.strip() for line in current.split("\n") if line.strip()}
    best: tuple[int, list[str]] | None = None
    i = 0
    while i < len(lines):
        if region[i] >= 0:
            i += 1
            continue
        block = -region[i]
        match = _FENCE.match(lines[i])
        language = (match.group(2) if match else "").lower()
        body = []
        k = i + 1
        while k < len(lines) and region[k] == block:
            body.append(lines[k])
            k += 1
        i = k + 1
        if language in _NOT_CODE or _holds_diff(language, path, body):
            continue
        body = unnumbered(body)
        filled = [line.strip() for line in body if line.strip()]
        shared = sum(1 for line in filled if line in known)
        if filled and shared * 4 >= len(filled) and (best is None or shared > best[0]):
            best = (shared, body)
    if best is None:
        return None
    content = "\n".join(best[1])
    if content and not content.endswith("\n"):
        content += "\n"
    return FileEdit(path=path, kind="whole-file", content=content, fmt="files")


def _holds_search_replace(body: list[str]) -> bool:
    """A fenced block holding a SEARCH/REPLACE edit (markers in order), not a whole file."""
    stage = 0
    for line in body:
        if stage == 0 and _SEARCH.match(line):
            stage = 1
        elif stage == 1 and _DIVIDER.match(line):
            stage = 2
        elif stage == 2 and _REPLACE.match(line):
            return True
    return False


def _holds_diff(language: str, path: str, body: list[str]) -> bool:
    """A fenced block that is a diff, not the text of ``path`` (unless path is a patch file)."""
    if path.endswith((".diff", ".patch")):
        return False
    if language.lower() in ("diff", "patch", "udiff"):
        return True
    first = next((line for line in body if line.strip()), "")
    return first.startswith("@@") or first.startswith("--- ")


# ---------------------------------------------------------------------------- SEARCH/REPLACE
def _parse_search_replace(lines: list[str]) -> _Found:
    """SEARCH/REPLACE blocks, each for the path named above it or, failing that, for the path
    of the block before it (models name the file once for several blocks)."""
    found = _Found()
    last_path: str | None = None
    i = 0
    while i < len(lines):
        if not _SEARCH.match(lines[i]):
            i += 1
            continue
        path = _path_above_search(lines, i) or last_path
        start = i
        search, replace, problem, i = _read_search_block(lines, start)
        if problem:
            found.problems.append(problem)
            continue
        if path is None:
            found.problems.append(f"SEARCH block at reply line {start + 1} names no file; ignored")
            found.spans.append((start, i))
            continue
        last_path = path
        found.edits.append((start, i, search_replace_edit(path, search, replace)))
    return found


def _path_above_search(lines: list[str], i: int) -> str | None:
    """The path named in the three lines above the SEARCH marker at line ``i``: a path line,
    or a fence's info string (a fence without one is looked past). Prose stops the search."""
    for back in range(1, 4):
        if i - back < 0:
            break
        previous = lines[i - back]
        fence = _FENCE.match(previous)
        if fence:
            info = fence.group(3)
            candidate = _path_from_line(info, explicit=True) if info else None
            if candidate:
                return candidate
            continue
        candidate = _path_from_line(previous)
        if candidate:
            return candidate
        if previous.strip():
            break
    return None


def _read_search_block(lines: list[str], start: int) -> tuple[list[str], list[str], str, int]:
    """(search lines, replace lines, problem, next line) of the block whose SEARCH marker is at
    line ``start``. A block missing its divider or end is a problem ("" when none); the next
    line is then where reading stopped, so a SEARCH marker there starts the next block."""
    n = len(lines)
    search: list[str] = []
    replace: list[str] = []
    i = start + 1
    while i < n and not _DIVIDER.match(lines[i]) and not _SEARCH.match(lines[i]):
        search.append(lines[i])
        i += 1
    if i >= n or not _DIVIDER.match(lines[i]):
        problem = f"SEARCH block at reply line {start + 1} has no ======= divider; ignored"
        return search, replace, problem, i
    i += 1
    while i < n and not _REPLACE.match(lines[i]) and not _SEARCH.match(lines[i]):
        if _DIVIDER.match(lines[i]):  # a second divider: aider's "merge conflict" style
            replace = []
        else:
            replace.append(lines[i])
        i += 1
    if i >= n or not _REPLACE.match(lines[i]):
        problem = f"SEARCH block at reply line {start + 1} has no >>>>>>> REPLACE end; ignored"
        return search, replace, problem, i
    return search, replace, "", i + 1


def search_replace_edit(path: str, search: list[str], replace: list[str]) -> FileEdit:
    """A SEARCH/REPLACE block as a hunk: lines common to both sides become context.

    An empty SEARCH gives the whole text of a new (or empty) file; on a file with text it is
    refused by the applier, like a diff hunk of only added lines.
    """
    if not any(s.strip() for s in search):
        content = "\n".join(replace) + ("\n" if replace else "")
        return FileEdit(path=path, kind="whole-file", content=content, fmt="search-replace-empty")
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


# Each edit format's reader (``EditFormat.reader`` names it), in the order ``auto`` lets them
# claim a reply's lines: a new format adds its row in formats.py and its reader here.
READERS: dict[str, Callable[[list[str]], _Found]] = {
    "diff": _parse_diffs,
    "search-replace": _parse_search_replace,
    "files": _parse_files,
}
