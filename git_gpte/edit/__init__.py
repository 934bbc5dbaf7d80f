"""The edit engine: LLM replies in, validated file texts and a report per hunk out.

Pure functions on text: no I/O, no git. Parse leniently, place strictly.

Interface used by the pipelines and by ``git gpte apply``::

    from git_gpte.edit import parse_reply, apply_reply, check_path

    parsed = parse_reply(text, fmt="auto")      # "auto" | "diff" | "files" | "search-replace"
    parsed.edits      # list[FileEdit]: path, kind ("new" | "modify" | "delete" | "whole-file"),
                      #   hunks (list[Hunk]) or content (whole-file / new), in reply order
    parsed.problems   # list[str]: parse-level warnings (unclosed fence, hunk without header...)
    parsed.format     # the formats found, in reply order: "diff", "search-replace+diff", ...
                      #   ("auto" reads every format; a named one reads only that one)

    result = apply_reply(files, parsed, known_paths=tracked_paths)
    #   files: Mapping path -> current text of existing files; looked up only for paths the
    #     reply names (a lazy Mapping is fine; raise UnreadableFile for binary / non-UTF-8).
    #   known_paths: every tracked path, to resolve a bare "events.py" to "asyncio/events.py".
    #   Raises git_gpte.errors.UnsafePathError (nothing applied) if any path is unsafe.
    result.files          # dict[str, str | None]: changed files only, final text; None = delete
    result.reports        # list[HunkReport]: path, hunk, status ("applied" | "corrected" |
                          #   "refused"), detail (how / why), line, candidate (closest place)
    result.applied_count  # hunks applied or corrected
    result.refused        # list[HunkReport]
    result.retry_prompt() # text for the LLM describing every refused hunk ("" if none)
    result.corrected_diff()  # what was applied, as a clean unified diff with true numbers
    result.to_json()      # dict for --json and run logs

    check_path(path) -> str  # normalised; UnsafePathError for absolute, "..", ".git/",
                             #   control characters, non-UTF-8 (stable: checking again agrees)
"""

from .apply import ApplyResult, UnreadableFile, apply_reply, normalise, unsafe_paths
from .formats import EDIT_FORMATS, EditFormat
from .model import Candidate, FileEdit, Hunk, HunkReport, ParsedReply
from .parse import FORMATS, parse_reply, search_replace_blocks
from .paths import check_path, resolve_path
from .place import TextLines, locate

__all__ = [
    "EDIT_FORMATS",
    "FORMATS",
    "ApplyResult",
    "Candidate",
    "EditFormat",
    "FileEdit",
    "Hunk",
    "HunkReport",
    "ParsedReply",
    "TextLines",
    "UnreadableFile",
    "apply_reply",
    "check_path",
    "locate",
    "normalise",
    "parse_reply",
    "resolve_path",
    "search_replace_blocks",
    "unsafe_paths",
]
