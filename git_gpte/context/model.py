"""The public result types of context selection (plain, frozen, JSON-ready)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypedDict


@dataclass(frozen=True)
class LineRange:
    """Lines ``start`` to ``end`` of a file, 1-based and inclusive (git's numbering)."""

    start: int
    end: int

    def __str__(self) -> str:
        return f"{self.start}-{self.end}"


class PickJson(TypedDict):
    """A Pick in ``git gpte context --json`` and the dry run's report."""

    path: str
    blob: str
    whole: bool
    ranges: list[list[int]]
    tokens: int
    score: float
    reasons: list[str]
    lines: int
    file_tokens: int
    pointed: bool


class MapEntryJson(TypedDict):
    """A MapEntry as JSON: signatures are ``[line, text]`` pairs."""

    path: str
    score: float
    signatures: list[tuple[int, str]]
    tokens: int


class ContextSelectionJson(TypedDict):
    """A ContextSelection as JSON (without the request, which the caller already has)."""

    commit: str
    budget: int
    tokens: int
    tokens_exact: bool
    candidates: int
    picks: list[PickJson]
    map: list[MapEntryJson]
    skipped: dict[str, str]


@dataclass(frozen=True)
class Pick:
    """One file chosen to send: whole, or as line ranges (excerpts).

    ``ranges`` is empty for a whole file. Excerpt ranges are made of whole chunks (function,
    class member, module header) and the enclosing class/impl declaration line, and may reach
    a few lines past them into a budget left over (exact.GROW_LINES); they use the file's own
    line numbers, so an edit written against an excerpt places in the whole file.
    """

    path: str
    blob: str
    whole: bool
    ranges: tuple[LineRange, ...]
    tokens: int  # estimated tokens of what is sent (excerpts: their lines only)
    score: float
    reasons: tuple[str, ...]
    lines: int  # lines in the whole file
    file_tokens: int  # estimated tokens of the whole file
    # The request points at the file (names it, its module, or a name it defines), as opposed
    # to a file ranked only by its words or its links.
    pointed: bool = False

    def to_json(self) -> PickJson:
        return {
            "path": self.path,
            "blob": self.blob,
            "whole": self.whole,
            "ranges": [[r.start, r.end] for r in self.ranges],
            "tokens": self.tokens,
            "score": round(self.score, 4),
            "reasons": list(self.reasons),
            "lines": self.lines,
            "file_tokens": self.file_tokens,
            "pointed": self.pointed,
        }


@dataclass(frozen=True)
class Signature:
    """A definition shown in the map: its line and first line of code."""

    line: int
    text: str


@dataclass(frozen=True)
class SymbolLocation:
    """Where a definition is: its file and the lines of its chunk (the whole function/class)."""

    name: str  # qualified as the index knows it: "Session.send"
    path: str
    start: int
    end: int
    kind: str


@dataclass(frozen=True)
class MapEntry:
    """A next-ranked file not sent, named with its definitions so the model knows it exists."""

    path: str
    score: float
    signatures: tuple[Signature, ...]
    tokens: int

    def to_json(self) -> MapEntryJson:
        return {
            "path": self.path,
            "score": round(self.score, 4),
            "signatures": [(s.line, s.text) for s in self.signatures],
            "tokens": self.tokens,
        }


@dataclass(frozen=True)
class ContextSelection:
    """What to send for one request at one commit, within ``budget`` tokens.

    ``picks`` are best first; ``map`` lists further files; ``skipped`` names the files left out
    before ranking (secrets, binaries, too big, .gpteignore) with the reason.
    """

    commit: str
    request: str
    budget: int
    picks: tuple[Pick, ...]
    map: tuple[MapEntry, ...]
    skipped: dict[str, str] = field(default_factory=dict)
    candidates: int = 0  # files ranked
    tokens_exact: bool = False  # token counts are estimates unless this is true

    @property
    def pick_tokens(self) -> int:
        return sum(p.tokens for p in self.picks)

    @property
    def map_tokens(self) -> int:
        return sum(m.tokens for m in self.map)

    @property
    def tokens(self) -> int:
        return self.pick_tokens + self.map_tokens

    def to_json(self) -> ContextSelectionJson:
        return {
            "commit": self.commit,
            "budget": self.budget,
            "tokens": self.tokens,
            "tokens_exact": self.tokens_exact,
            "candidates": self.candidates,
            "picks": [p.to_json() for p in self.picks],
            "map": [m.to_json() for m in self.map],
            "skipped": self.skipped,
        }
