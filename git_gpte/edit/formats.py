"""The edit formats a model can be asked for: one table every consumer reads.

The CLI's ``--edit-format`` choices, the preprompt that explains a format to the model, and
whether the model rewrites files whole (then it must be shown them whole) all come from here,
so adding a format is one row, one preprompt file and its reader in ``parse.py``. Which format
a model gets by default is a property of the model (see ``git_gpte.llm.models.Defaults``),
decided by measurement.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class EditFormat:
    name: str  # as the user names it: --edit-format, GPTE_EDIT_FORMAT, gpte.editFormat
    preprompt: str  # the preprompt file that tells the model how to write it
    whole_files: bool  # the model writes each changed file out whole
    summary: str
    reader: str  # what ``parse_reply`` and ``git gpte apply --format`` call its blocks
    write_as: str  # "Write them as ...": a reply held no edit in this format
    ask_again: str  # how a retry asks for what is still missing or broken


def reply_formats() -> tuple[str, ...]:
    """What ``parse_reply`` reads: every format's blocks, or ``auto`` (all of them)."""
    return ("auto", *(f.reader for f in EDIT_FORMATS.values()))


_AGAIN = (
    "Reply with {what} for the missing or broken changes only, against the files exactly as "
    "shown here. Do not repeat edits that are already present."
)

EDIT_FORMATS: dict[str, EditFormat] = {
    f.name: f
    for f in (
        EditFormat(
            "diff",
            "file_format_diff",
            False,
            "unified diffs against the numbered files",
            "diff",
            "unified diffs against the numbered files, as the system prompt shows",
            _AGAIN.format(what="diffs"),
        ),
        EditFormat(
            "search-replace",
            "file_format_search_replace",
            False,
            "SEARCH/REPLACE blocks of lines copied from the files",
            "search-replace",
            "SEARCH/REPLACE blocks of lines copied from the files, as the system prompt shows",
            _AGAIN.format(what="SEARCH/REPLACE blocks"),
        ),
        EditFormat(
            "whole",
            "file_format_whole",
            True,
            "every changed file written out whole (best for small local models and small files)",
            "files",
            "each changed file's path on a line of its own, then the whole new file in a fenced "
            "code block",
            "Write each file that still needs a change out whole again, corrected, in the same "
            "format as before: its path on a line of its own, then every line of the file in a "
            "fenced code block.",
        ),
        EditFormat(
            "definitions",
            "file_format_definitions",
            False,
            "each changed Python function or class written out whole (long files, small models)",
            "files",
            "each changed file's path on a line of its own, then the complete functions you "
            "change in a fenced code block",
            "Write each function or class that still needs a change out whole again, corrected, "
            "in the same format as before: the file's path on a line of its own, then the "
            "complete functions (a method under its class line) in a fenced code block.",
        ),
    )
}
