"""The data the edit engine passes around: parsed edits in, per-hunk reports out.

Everything here is plain data so the pipeline can log it, the CLI can print it and the retry
prompt can be built from it without the engine's internals.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

EditKind = Literal["new", "modify", "delete", "whole-file"]
Status = Literal["applied", "corrected", "refused"]
Op = Literal[" ", "-", "+"]


@dataclass
class Hunk:
    """One ``@@`` hunk (or one SEARCH/REPLACE block) as the reply wrote it.

    ``lines`` are ``(op, text)`` pairs, op one of ``" "`` (context), ``"-"`` (removed) and ``"+"``
    (added); text has no line ending. ``old_start`` is the header's line number, used only as a
    hint for placement (None when the header had no numbers).
    """

    lines: list[tuple[Op, str]]
    old_start: int | None = None
    old_count: int | None = None
    new_start: int | None = None
    new_count: int | None = None
    header: str = "@@ ... @@"
    no_newline_old: bool = False
    no_newline_new: bool = False

    @property
    def old_lines(self) -> list[str]:
        return [text for op, text in self.lines if op != "+"]

    @property
    def new_lines(self) -> list[str]:
        return [text for op, text in self.lines if op != "-"]

    @property
    def changes(self) -> bool:
        return any(op != " " for op, _ in self.lines)


@dataclass
class FileEdit:
    """Everything one block of the reply does to one path.

    ``kind``: ``new`` (diff from /dev/null), ``modify`` (hunks on an existing file), ``delete``
    (diff to /dev/null), ``whole-file`` (a path line and a fenced block holding the full text).
    """

    path: str
    kind: EditKind
    hunks: list[Hunk] = field(default_factory=list)
    content: str | None = None
    fmt: str = "diff"
    old_path: str | None = None


@dataclass
class ParsedReply:
    edits: list[FileEdit] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    format: str = "diff"

    @property
    def paths(self) -> list[str]:
        seen: dict[str, None] = {}
        for edit in self.edits:
            seen.setdefault(edit.path, None)
        return list(seen)


@dataclass
class Candidate:
    """The closest place found for a hunk (1-based line numbers), shown in refusals."""

    start: int
    end: int
    score: float
    lines: list[str]

    def to_json(self) -> dict[str, Any]:
        return {
            "start": self.start,
            "end": self.end,
            "score": round(self.score, 3),
            "lines": self.lines,
        }


@dataclass
class HunkReport:
    """What became of one hunk: applied, corrected (``detail`` says how) or refused (why)."""

    path: str
    hunk: int
    status: Status
    detail: str = ""
    header: str = ""
    line: int | None = None
    candidate: Candidate | None = None
    expected: list[str] = field(default_factory=list)
    kind: str = "modify"

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "path": self.path,
            "hunk": self.hunk,
            "status": self.status,
            "detail": self.detail,
            "header": self.header,
            "line": self.line,
            "kind": self.kind,
        }
        if self.status == "refused":
            data["expected"] = self.expected
            data["closest"] = self.candidate.to_json() if self.candidate else None
        return data

    def one_line(self) -> str:
        where = f"{self.path}" + (f" hunk {self.hunk}" if self.hunk else "")
        at = f" at line {self.line}" if self.line and self.status != "refused" else ""
        tail = f": {self.detail}" if self.detail else ""
        return f"{self.status:9} {where}{at}{tail}"
