"""Answering the model's request for more context, and choosing what a retry shows.

When a reply is a need block instead of edits, :class:`MoreContext` finds what it names (files,
line ranges, definitions by symbol name) under the same rules as the selection (pathspecs,
secrets, ``.gpteignore``, binary and size limits) and within the hard cap (the model's window
minus the reply reserve), adds it to what the model has been shown, and writes the answer.

:func:`retry_parts` picks what a retry shows of a file that still needs work: the file as it is
now when the model saw it whole, else the regions around its refused hunks and broken lines,
numbered as the file is now.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..context.rules import secret_content_reason
from ..edit import UnreadableFile
from ..edit.formats import EDIT_FORMATS
from ..prompts.context import MAX_NEED_ITEMS, NeedItem, more_user_message
from ..prompts.messages import Part, file_lines
from .files import CommitFiles
from .shown import Shown, merge_ranges

if TYPE_CHECKING:
    from ..edit import HunkReport
    from .plan import Plan

# Definitions given for one symbol name (the best matches first).
MAX_SYMBOL_HITS = 3
# Lines shown on each side of a refused hunk or a broken line in a retry.
RETRY_MARGIN = 20
# A file not seen whole whose refusal has no position: shown whole up to this many lines.
RETRY_WHOLE_LINES = 200

_HEADER = re.compile(r"^@@\s*-(\d+)")
_PROBLEM_LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+): ")


@dataclass
class Round:
    """One request for more, as the run log keeps it."""

    number: int
    asked: list[str]
    given: list[str] = field(default_factory=list)
    not_given: list[tuple[str, str]] = field(default_factory=list)
    tokens: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "round": self.number,
            "asked": self.asked,
            "given": self.given,
            "not_given": [list(n) for n in self.not_given],
            "tokens": self.tokens,
        }


class MoreContext:
    """Finds what a need block names and adds it to ``shown``."""

    def __init__(self, plan: Plan, shown: Shown, files: CommitFiles) -> None:
        self.plan = plan
        self.shown = shown
        self.files = files
        self._allowed: frozenset[str] | None = None
        self._skipped: dict[str, str] = {}

    def allowed(self) -> frozenset[str]:
        from ..context import candidates

        if self._allowed is None:
            self._allowed, self._skipped = candidates(
                self.files.repo,
                self.plan.base,
                self.plan.pathspecs,
                max_file_bytes=self.plan.max_file_bytes,
            )
        return self._allowed

    def answer(
        self, items: Sequence[NeedItem], used_tokens: int, number: int, rounds_left: int
    ) -> tuple[str, Round]:
        """The user message answering ``items``, given ``used_tokens`` already in the request."""
        from ..llm import estimate_tokens

        record = Round(number, [str(i) for i in items[:MAX_NEED_ITEMS]])
        for item in items[MAX_NEED_ITEMS:]:
            record.not_given.append(
                (str(item), f"only {MAX_NEED_ITEMS} items are answered per request; ask again")
            )
        items = items[:MAX_NEED_ITEMS]
        if not items and not record.not_given:
            record.not_given.append(
                ("your need block", "no path, line range or symbol could be read from it")
            )
        wanted: dict[str, Part] = {}
        for item in items:
            for part in self._parts(item, record):
                old = wanted.get(part.path)
                if old is None or part.whole:
                    wanted[part.path] = part
                elif not old.whole:
                    ranges = merge_ranges(old.ranges + part.ranges)
                    wanted[part.path] = Part(part.path, part.text, ranges)
        whole = EDIT_FORMATS[self.plan.edit_format].whole_files
        if whole:
            # A model writing whole files is given whole files (see shown.whole_only).
            wanted = {path: Part(path, part.text) for path, part in wanted.items()}
        else:
            wanted = self._unseen(wanted, record)
        # What the answer says besides the parts (what was not found, what to do now) takes
        # room too: counted before any part is, with a line for each part that may not fit.
        frame = more_user_message(
            [], [*record.not_given, *((p.path, "x" * 120) for p in wanted.values())], rounds_left
        )
        frame_cost, _ = estimate_tokens([{"role": "user", "content": frame}], self.plan.model.name)
        room = self._room(used_tokens) - frame_cost
        given: list[Part] = []
        for part in wanted.values():
            cost, _ = estimate_tokens(
                [{"role": "user", "content": more_user_message([part], [], 0, numbers=not whole)}],
                self.plan.model.name,
            )
            if cost > room:
                what = "the file" if part.whole else "these lines"
                record.not_given.append(
                    (
                        _label(part),
                        f"{what} would take ~{cost:,} tokens, more than the ~{max(room, 0):,} "
                        "left; ask for a line range or a symbol",
                    )
                )
                continue
            room -= cost
            record.tokens += cost
            self.shown.add(part)
            given.append(part)
            record.given.append(_label(part))
        text = more_user_message(given, record.not_given, rounds_left, numbers=not whole)
        return text, record

    def _room(self, used: int) -> int:
        cap = self.plan.token_cap
        if cap is None:  # the window is unknown: one more budget's worth per round
            return self.plan.context_budget or 0
        return cap - used

    def _unseen(self, wanted: dict[str, Part], record: Round) -> dict[str, Part]:
        """``wanted`` without the lines already shown as excerpts: a later round sends only
        what the model has not seen (the rest of a file asked for whole, say)."""
        out: dict[str, Part] = {}
        for path, part in wanted.items():
            old = self.shown.parts.get(path)
            if old is None or old.whole:
                out[path] = part
                continue
            count = len(file_lines(part.text))
            asked = part.ranges or ((1, count),)
            left = _minus(asked, old.ranges)
            if not left:
                record.not_given.append((_label(part), "those lines were shown above already"))
                continue
            out[path] = Part(path, part.text, left)
        return out

    def _parts(self, item: NeedItem, record: Round) -> list[Part]:
        if item.kind == "symbol":
            return self._symbol(item, record)
        path, why = self._resolve(item.path)
        if path is None:
            record.not_given.append((str(item), why))
            return []
        text = self._text(path, record, str(item))
        if text is None:
            return []
        if self.shown.seen_whole(path):
            record.not_given.append((str(item), "already shown whole above"))
            return []
        if item.kind == "file":
            return [Part(path, text)]
        count = len(file_lines(text))
        start, end = max(1, item.start), min(count, item.end)
        if start > end:
            record.not_given.append((str(item), f"the file has {count} lines"))
            return []
        return [Part(path, text, ((start, end),))]

    def _symbol(self, item: NeedItem, record: Round) -> list[Part]:
        from ..context import locate

        hits = locate(
            self.files.repo,
            self.plan.base,
            [item.name],
            self.plan.pathspecs,
            max_file_bytes=self.plan.max_file_bytes,
        ).get(item.name, [])
        parts = []
        for hit in hits[:MAX_SYMBOL_HITS]:
            if self.shown.seen_whole(hit.path):
                continue
            text = self._text(hit.path, record, str(item))
            if text is not None:
                parts.append(Part(hit.path, text, ((hit.start, hit.end),)))
        if not hits:
            record.not_given.append((str(item), "no definition of that name was found"))
        elif not parts and not record.not_given[-1:]:
            record.not_given.append((str(item), "already shown whole above"))
        return parts

    def _resolve(self, asked: str) -> tuple[str | None, str]:
        """The tracked path meant by ``asked`` (exact, or the one path ending with it)."""
        path = asked.strip().removeprefix("./").removeprefix("a/").removeprefix("b/")
        allowed = self.allowed()
        if path in allowed:
            return path, ""
        if path in self._skipped:
            return None, f"not sent: {self._skipped[path]}"
        matches = [p for p in allowed if p.endswith("/" + path)]
        if len(matches) == 1:
            return matches[0], ""
        if matches:
            return None, f"several files end with that name ({', '.join(sorted(matches)[:4])})"
        if path in self.files.entries:
            return None, "outside the files this request may send"
        return None, "no such file in the repository"

    def _text(self, path: str, record: Round, label: str) -> str | None:
        try:
            text = self.files.original(path)
        except (KeyError, UnreadableFile) as exc:
            record.not_given.append((label, str(exc).strip("'") or "cannot be read"))
            return None
        held = secret_content_reason(text)
        if held is not None:
            record.not_given.append((label, held))
            return None
        return text


def _minus(
    ranges: Sequence[tuple[int, int]], shown: Sequence[tuple[int, int]]
) -> tuple[tuple[int, int], ...]:
    """The lines of ``ranges`` not in ``shown`` (inclusive line ranges)."""
    left: list[tuple[int, int]] = []
    for start, end in ranges:
        pieces = [(start, end)]
        for a, b in shown:
            pieces = [
                piece
                for s, e in pieces
                for piece in ((s, min(e, a - 1)), (max(s, b + 1), e))
                if piece[0] <= piece[1]
            ]
        left.extend(pieces)
    return merge_ranges(left)


def _label(part: Part) -> str:
    if part.whole:
        return part.path
    return f"{part.path}:" + ",".join(f"{s}-{e}" for s, e in part.ranges)


# ---------------------------------------------------------------------------- retries
def map_line(old: Sequence[str], new: Sequence[str], line: int) -> int:
    """Where line ``line`` (1-based) of ``old`` is in ``new`` (its nearest unchanged neighbour
    when the line itself changed)."""
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, _j2 in matcher.get_opcodes():
        if i1 <= line - 1 < i2:
            if tag == "equal":
                return j1 + (line - 1 - i1) + 1
            return min(j1 + 1, max(len(new), 1))
    return min(line, max(len(new), 1))


def refusal_anchor(report: HunkReport) -> tuple[int, int] | None:
    """Lines (in the text the hunk was applied to) a refused hunk is about, if known."""
    if report.candidate is not None:
        return report.candidate.start, max(report.candidate.start, report.candidate.end)
    match = _HEADER.match(report.header or "")
    if match:
        start = int(match.group(1))
        return start, start + max(len(report.expected), 1) - 1
    return None


def retry_parts(
    paths: Iterable[str],
    files: Mapping[str, str],
    shown: Shown,
    refused: Mapping[str, Sequence[tuple[HunkReport, str]]],
    problems: Sequence[str],
) -> list[Part]:
    """What a retry shows of each path: whole when the model saw it whole (or everything was
    sent), else the regions around its refused hunks and the lines its problems name.

    ``refused`` maps a path to (report, text the hunk was applied to) pairs, so the hunk's
    position is carried over into the file as it is now.
    """
    parts = []
    for path in paths:
        text = files[path]
        if shown.everything or shown.seen_whole(path):
            parts.append(Part(path, text))
            continue
        now = file_lines(text)
        spans: list[tuple[int, int]] = []
        for report, before in refused.get(path, ()):
            anchor = refusal_anchor(report)
            if anchor is None:
                continue
            old = file_lines(before)
            start = map_line(old, now, anchor[0]) if before != text else anchor[0]
            end = map_line(old, now, anchor[1]) if before != text else anchor[1]
            spans.append((start, max(start, end)))
        for problem in problems:
            match = _PROBLEM_LINE.match(problem)
            if match and match.group("path") == path:
                line = int(match.group("line"))
                spans.append((line, line))
        if not spans:
            if len(now) <= RETRY_WHOLE_LINES:
                parts.append(Part(path, text))
                continue
            seen = shown.parts.get(path)
            if seen is not None and seen.ranges:
                # Nothing locates what failed (a block that does not parse names no line):
                # what the model was shown before, not the module's first lines.
                kept = tuple((s, min(e, len(now))) for s, e in seen.ranges if s <= len(now))
                parts.append(Part(path, text, kept or ((1, 1),)))
                continue
            spans.append((1, 1))
        ranges = merge_ranges(
            (max(1, s - RETRY_MARGIN), min(len(now), e + RETRY_MARGIN)) for s, e in spans
        )
        parts.append(Part(path, text, ranges))
    return parts
