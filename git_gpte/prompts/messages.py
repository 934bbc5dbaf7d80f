"""The text the model sees: files with line numbers, the instruction, and retry requests.

Pure functions. Line numbers give the model (and the edit engine, through the ``@@`` headers it
writes back) a way to say *where*; they are the placement hint, never the whole key.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..edit.pycheck import Crash
from ..errors import UsageError

_FENCE = "```"


def check_prompt(text: str, what: str = "the prompt") -> str:
    """The instruction, if a model can be sent it and a commit message can carry it: not empty,
    no NUL byte (git cannot store one in a commit message). Checked before any model call."""
    if not text.strip():
        raise UsageError(f"{what} is empty")
    if "\0" in text:
        line = text.count("\n", 0, text.index("\0")) + 1
        raise UsageError(
            f"{what} contains a NUL byte (line {line}); is it a binary file?",
            hint="give the instruction as text",
        )
    return text


def numbered(text: str) -> str:
    """``text`` with each line prefixed by its 1-based number (as git counts) and a space."""
    lines = file_lines(text)
    width = len(str(len(lines))) if lines else 1
    return "\n".join(f"{i:>{width}} {line}" for i, line in enumerate(lines, 1))


def fence_for(text: str) -> str:
    """A backtick fence longer than any run of backticks in ``text``, so it cannot close early."""
    fence = _FENCE
    while fence in text:
        fence += "`"
    return fence


def render_file(path: str, text: str) -> str:
    body = numbered(text)
    fence = fence_for(body)
    note = "" if text else " (empty file)"
    return f"File: {path}{note}\n{fence}\n{body}\n{fence}"


def file_lines(text: str) -> list[str]:
    """Lines as git numbers them (``\\n`` ends a line; a final newline makes no extra line)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


@dataclass(frozen=True)
class Part:
    """A file, or some line ranges of it, to show. ``ranges`` empty: the whole file."""

    path: str
    text: str
    ranges: tuple[tuple[int, int], ...] = ()

    @property
    def whole(self) -> bool:
        return not self.ranges


def render_part(part: Part, *, numbers: bool = True) -> str:
    """The file (or its ranges) with the file's own line numbers, in a fence nothing closes.

    ``numbers=False`` shows a whole file as it is, for a model that writes files out whole:
    numbers it does not need are numbers a small model copies into the file. Excerpts always
    carry them (they say which lines are shown)."""
    lines = file_lines(part.text)
    width = len(str(len(lines))) if lines else 1
    if part.whole:
        if numbers:
            body_lines = [f"{i:>{width}} {line}" for i, line in enumerate(lines, 1)]
        else:
            body_lines = list(lines)
        heading = f"File: {part.path}" + ("" if lines else " (empty file)")
    else:
        body_lines = []
        shown = []
        last = 0
        for start, end in part.ranges:
            start, end = max(1, start), min(end, len(lines))
            if start > end:
                continue
            if start > last + 1:
                body_lines.append(f"⋮ (lines {last + 1}-{start - 1} not shown)")
            body_lines += [f"{i:>{width}} {lines[i - 1]}" for i in range(start, end + 1)]
            shown.append(f"{start}-{end}")
            last = end
        if last < len(lines):
            body_lines.append(f"⋮ (lines {last + 1}-{len(lines)} not shown)")
        heading = (
            f"File: {part.path} (excerpt: lines {', '.join(shown)} of {len(lines)}; "
            "the numbers are the file's own)"
        )
    body = "\n".join(body_lines)
    fence = fence_for(body)
    return f"{heading}\n{fence}\n{body}\n{fence}"


def render_files(files: Mapping[str, str], *, numbers: bool = True) -> str:
    return "\n\n".join(render_part(Part(p, t), numbers=numbers) for p, t in files.items())


def kept_note(paths: Iterable[str], *, checked: bool = True) -> str:
    """What the request adds about files that stay as they are (the tests the result is checked
    with, or tests the request does not ask to change), or "" when there are none among those
    shown."""
    names = sorted(paths)
    if not names:
        return ""
    one = len(names) == 1
    leave = (
        f"Leave {'that file' if one else 'those files'} as {'it is' if one else 'they are'} "
        f"and do not write {'it' if one else 'them'} out"
    )
    if not checked:
        return (
            f"\n\nThe request does not ask to change tests: {leave} "
            f"({', '.join(names)}); write out only the files the request changes."
        )
    return (
        f"\n\nThe result will be checked with the tests in {', '.join(names)}. {leave}: "
        "change the other files so that the tests pass."
    )


def improve_user_message(
    files: Mapping[str, str], instruction: str, *, numbers: bool = True
) -> str:
    """Files first, then the request, so the instruction is the last thing the model reads."""
    how = (
        " (each line is prefixed with its line number, which is not part of the file)"
        if numbers
        else ""
    )
    return (
        f"Here are the files of the repository{how}:\n\n"
        f"{render_files(files, numbers=numbers)}\n\n"
        f"Request:\n{instruction.strip()}\n"
    )


def focused_retry_message(
    blocks: Sequence[tuple[str, str]],
    instruction: str,
    called: Sequence[str] = (),
) -> str:
    """A retry that shows only the definitions the model wrote back unchanged, and the request.

    Asked for the definitions it changes in a 3,000-token module, the 1.5B model picked the
    right function and copied it as it was, twice in the same conversation; shown only the
    functions it had picked and the request, it made the change at once (settings/bool-case).
    So the retry is a new, short conversation rather than a longer one. ``called``: what
    they call in other files, one line each (see :mod:`git_gpte.edit.callees`)."""
    return (
        f"{_only_definitions(blocks)}\n\n{_called(called)}"
        f"Request:\n{instruction.strip()}\n\n"
        "Write the definitions that must change again, complete, with the change made: the "
        "file's path on a line of its own, then a fenced code block. Leave out the ones that "
        "stay as they are.\n"
    )


def problems_retry_message(
    blocks: Sequence[tuple[str, str]],
    problems: Sequence[str],
    instruction: str,
    called: Sequence[str] = (),
    diff: str = "",
) -> str:
    """A retry that shows only the definitions holding what is left to fix (each problem said
    with the definition and the line it is in, since the lines shown are not numbered), and
    the request: a new, short conversation, as for definitions copied unchanged. ``diff``: the
    edits so far (see edits_diff), for a check that failed on them.

    Without the diff, shown only ``parse_rate`` as the edit left it and the tests it now
    fails ('5/hours', '2/ Day'), the 1.5B model wrote it back unchanged twice: nothing shown
    said what the edit had dropped (ratelimit/parse-rate-errors)."""
    said = "\n".join(f"- {problem}" for problem in problems)
    return (
        f"{_only_definitions(blocks)}\n\n{_called(called)}"
        f"What is still wrong with them:\n{said}\n\n"
        f"{_changed_so_far(diff)}"
        f"Request:\n{instruction.strip()}\n\n"
        "Write the definitions above again, complete, with what is wrong fixed and the request "
        "done: the file's path on a line of its own, then a fenced code block.\n"
    )


def crash_retry_message(
    blocks: Sequence[tuple[str, str]], crash: Crash, instruction: str, called: Sequence[str] = ()
) -> str:
    """The retry for a demo that ran before the edits and crashes in a definition they changed:
    that definition and the others they changed, the request, then the call that now fails,
    and an ask for that definition alone (see _Loop._on_crash).

    The order and the ask are measured (invoice/value-error, the 1.5B model at 0.6, six or
    eight answers each): as problems_retry_message says it (the traceback, the diff, then the
    request), 0 of 6 answers kept the demo's `" 1 "` working; with the failing call said
    after the request and its ask ("the file's path on a line of its own"), 0 of 8 with the
    traceback and the diff, 1 of 8 without either; asked "Answer with the function only"
    instead, 3 of 8."""
    kind = "method only, under its class line" if "." in crash.function else "function only"
    return (
        f"{_only_definitions(blocks)}\n\n{_called(called)}"
        f"Request:\n{instruction.strip()}\n\n"
        f"Your version is wrong: the module's demo calls {crash.function}({crash.arguments}), "
        f"which ran before your edits and now raises {crash.raised[:CRASH_CHARS]}.\n\n"
        f"Write {crash.function} again so that the request is met and that call works as "
        f"before. Answer with the {kind}, in a ```python block.\n"
    )


# The most of an exception's line a crash retry quotes.
CRASH_CHARS = 200


def _changed_so_far(diff: str) -> str:
    """The edits so far as a retry shows them (see edits_diff), or "" without any."""
    if not diff:
        return ""
    return (
        "What your edits changed so far (lines starting with - were removed, + added); a test "
        f"that passed before may need a removed line back:\n```diff\n{diff}\n```\n\n"
    )


def _called(called: Sequence[str]) -> str:
    """What the definitions shown call in other files, one line each, said to be there to use
    (see :class:`git_gpte.edit.callees.Signature`)."""
    if not called:
        return ""
    listed = "\n".join(called)
    return f"They may call these, defined in other files (use them as they are):\n{listed}\n\n"


def _only_definitions(blocks: Sequence[tuple[str, str]]) -> str:
    return "\n\n".join(
        f"File: {path} (only these definitions of it; the rest of the file stays as it is)\n"
        f"{fence_for(text)}\n{text.rstrip()}\n{fence_for(text)}"
        for path, text in blocks
    )


# The most lines of the edits' diff a retry shows (see edits_diff).
DIFF_LINES = 80


def edits_diff(before: Mapping[str, str], after: Mapping[str, str]) -> str:
    """The edits so far as a unified diff of each file in ``after`` against ``before`` (two
    lines of context), at most DIFF_LINES lines; "" when nothing differs.

    A test that passed before and fails after an edit most often lost a line the edit removed:
    the 1.5B model, asked to raise ValueError in ``parse_number``, rewrote it without the lines
    that read ``(40)`` as -40, and given the failing test alone, wrote the same function back
    (bench/solve.py, csvreport/number-value-error). Its own ``-`` lines say what it dropped."""
    import difflib

    out: list[str] = []
    for path in sorted(after):
        old, new = before.get(path, ""), after[path]
        if old == new:
            continue
        out += difflib.unified_diff(
            old.splitlines(), new.splitlines(), f"a/{path}", f"b/{path}", n=2, lineterm=""
        )
    if len(out) > DIFF_LINES:
        cut = len(out) - DIFF_LINES
        out = [*out[:DIFF_LINES], f"... ({cut} more line(s) of the diff not shown)"]
    return "\n".join(out)


# A retry in the definitions format after whole files: the system prompt stays the one that
# asked for whole files (the server then reuses what it read of the conversation: ~60 s of
# reading on 2 cores for a 5k-token prompt), so the switch is said here.
NARROWED_ASK = (
    "This time do not write whole files. Write only each function or class that still needs a "
    "change, complete from its `def` or `class` line to its last line (a method under its "
    "class line, as in the file), with any import you add: the file's path on a line of its "
    "own, then those definitions in a fenced code block. What you leave out stays as it is."
)


START_OVER = (
    "An earlier answer to this request was tried, and this is what was wrong with its "
    "result:\n\n{failures}\n\n"
    "That answer is gone: the files are as shown above. Write the change again, thinking "
    "afresh about what the request needs and what went wrong."
)


def start_over_message(first: str, failures: list[str]) -> str:
    """The first request again, with what the given-up answer failed (see
    ``_Loop.starts_over`` in pipeline/edit_loop.py): the same beginning, so a server that
    keeps what it read reads only the note."""
    return first.rstrip("\n") + "\n\n" + START_OVER.format(failures="\n\n".join(failures))


def retry_user_message(
    files: Mapping[str, str] | Sequence[Part],
    instruction: str,
    problems: str,
    attempt: int,
    edit_format: str = "diff",
    diff: str = "",
    ask: str = "",
) -> str:
    """A follow-up in the same conversation: what went wrong, and the files that still need
    work as they are now (whole, or the regions around what failed when the model saw the file
    only in part), with every edit that applied already in them.

    The model is asked only for the changes still missing or broken, in ``edit_format``: a
    whole-file format writes those files out whole again. ``diff``: the edits so far (see
    edits_diff); ``ask``: how to answer, when not as ``edit_format`` asks again.
    """
    from ..edit.formats import EDIT_FORMATS

    whole = EDIT_FORMATS[edit_format].whole_files
    if isinstance(files, Mapping):
        files = [Part(path, text) for path, text in files.items()]
    rendered = "\n\n".join(render_part(part, numbers=not whole) for part in files)
    numbered = "" if whole else " (line numbers are not part of the files)"
    shown = (
        "The files concerned, as they are now, with every edit that did apply already in "
        f"them{numbered}:\n\n{rendered}\n\n"
        if rendered
        else ""
    )
    ask = ask or EDIT_FORMATS[edit_format].ask_again
    return (
        f"Your answer could not be used as it is (attempt {attempt}).\n\n"
        f"What went wrong:\n{problems.strip()}\n\n"
        f"{_changed_so_far(diff)}"
        f"{shown}"
        f"The request was:\n{instruction.strip()}\n\n"
        f"{ask}\n"
    )
