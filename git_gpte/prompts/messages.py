"""The text the model sees: files with line numbers, the instruction, and retry requests.

Pure functions. Line numbers give the model (and the edit engine, through the ``@@`` headers it
writes back) a way to say *where*; they are the placement hint, never the whole key.
"""

from __future__ import annotations

from collections.abc import Mapping

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
    """``text`` with each line prefixed by its 1-based number and a space."""
    lines = text.splitlines()
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


def render_files(files: Mapping[str, str]) -> str:
    return "\n\n".join(render_file(path, text) for path, text in files.items())


def improve_user_message(files: Mapping[str, str], instruction: str) -> str:
    """Files first, then the request, so the instruction is the last thing the model reads."""
    return (
        "Here are the files of the repository (each line is prefixed with its line number, "
        "which is not part of the file):\n\n"
        f"{render_files(files)}\n\n"
        f"Request:\n{instruction.strip()}\n"
    )


def retry_user_message(
    files: Mapping[str, str], instruction: str, problems: str, attempt: int
) -> str:
    """A follow-up carrying only what failed: the problem report and those files as they are now.

    Edits that applied are already in the files shown, so the model is asked only for the
    changes that are still missing or broken.
    """
    return (
        f"Some of your edits could not be used (attempt {attempt}). The files below are shown as "
        "they are now, with every edit that did apply already in them (line numbers are not part "
        "of the files):\n\n"
        f"{render_files(files)}\n\n"
        f"What went wrong:\n{problems.strip()}\n\n"
        f"Original request:\n{instruction.strip()}\n\n"
        "Reply with diffs for the missing or broken changes only, against the files exactly as "
        "shown above. Do not repeat edits that are already present.\n"
    )
