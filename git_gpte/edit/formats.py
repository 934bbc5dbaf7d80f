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


def reply_formats() -> tuple[str, ...]:
    """What ``parse_reply`` reads: every format's blocks, or ``auto`` (all of them)."""
    return ("auto", *(f.reader for f in EDIT_FORMATS.values()))


EDIT_FORMATS: dict[str, EditFormat] = {
    f.name: f
    for f in (
        EditFormat(
            "diff", "file_format_diff", False, "unified diffs against the numbered files", "diff"
        ),
        EditFormat(
            "search-replace",
            "file_format_search_replace",
            False,
            "SEARCH/REPLACE blocks of lines copied from the files",
            "search-replace",
        ),
        EditFormat(
            "whole",
            "file_format_whole",
            True,
            "every changed file written out whole (best for small local models and small files)",
            "files",
        ),
        EditFormat(
            "definitions",
            "file_format_definitions",
            False,
            "each changed Python function or class written out whole (long files, small models)",
            "files",
        ),
    )
}
