"""Applying a parsed reply to file texts in memory: every hunk applied, corrected or refused.

Edits are taken in reply order. The hunks of one diff are placed against the same text and
applied together by their original line numbers, so they never shift each other; a second diff
for the same file (or a diff for a file created earlier in the reply) works on the result of
the first. Untouched lines keep their bytes; the file keeps its newline style and final-newline
state.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import UnsafePathError
from .model import Candidate, FileEdit, Hunk, HunkReport, Op, ParsedReply, Status
from .paths import check_path, resolve_path
from .place import (
    NOTHING_TO_PLACE_BY,
    Placement,
    Refusal,
    TextLines,
    choose_by_hint,
    is_blank,
    locate,
    norm,
)
from .render import render_hunks, retry_prompt

# FileEdit.fmt of a path-and-block answer in the definitions format (and the report's kind of
# a block placed by its definitions).
DEFINITIONS = "definitions"


class UnreadableFile(Exception):
    """Raised by a ``files`` mapping for a path whose text cannot be edited; the message says
    why (binary or not UTF-8, a symlink, a file under a file) and becomes the hunk's refusal."""


@dataclass
class ApplyResult:
    """The outcome: final texts of changed files (None = deleted) and one report per hunk."""

    files: dict[str, str | None] = field(default_factory=dict)
    reports: list[HunkReport] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    # Per path, the placements of each diff applied to it (in line order), for corrected_diff.
    placed: dict[str, list[list[Placement]]] = field(default_factory=dict)

    @property
    def applied_count(self) -> int:
        return sum(1 for r in self.reports if r.status != "refused")

    @property
    def corrected(self) -> list[HunkReport]:
        return [r for r in self.reports if r.status == "corrected"]

    @property
    def refused(self) -> list[HunkReport]:
        return [r for r in self.reports if r.status == "refused"]

    def retry_prompt(self) -> str:
        """Text for the LLM describing each refused hunk; "" when nothing was refused."""
        return retry_prompt(self.refused)

    def corrected_diff(self, path: str | None = None) -> str:
        """The placed hunks as a clean unified diff with true line numbers (what was applied)."""
        parts = []
        for name, blocks in self.placed.items():
            if path is not None and name != path:
                continue
            for placements in blocks:
                parts.append(render_hunks(name, placements))
        return "".join(parts)

    def to_json(self) -> dict[str, Any]:
        return {
            "applied": sum(1 for r in self.reports if r.status == "applied"),
            "corrected": len(self.corrected),
            "refused": len(self.refused),
            "files": {
                path: ("deleted" if text is None else "written")
                for path, text in self.files.items()
            },
            "problems": self.problems,
            "hunks": [r.to_json() for r in self.reports],
        }


def unsafe_paths(parsed: ParsedReply) -> list[str]:
    """Messages for every path in the reply that :func:`check_path` refuses."""
    bad = []
    for edit in parsed.edits:
        for path in {edit.path, edit.old_path or edit.path}:
            try:
                check_path(path)
            except UnsafePathError as err:
                bad.append(err.message)
    return sorted(set(bad))


def apply_reply(
    files: Mapping[str, str],
    parsed: ParsedReply,
    *,
    known_paths: Iterable[str] = (),
    seen_in_part: Mapping[str, str] | None = None,
    request: str = "",
) -> ApplyResult:
    """Apply ``parsed`` to ``files`` (path -> current text) in memory.

    Raises :class:`UnsafePathError` naming every unsafe path before anything is applied.
    ``known_paths`` (all tracked paths) lets a bare ``events.py`` resolve to ``asyncio/events.py``.
    ``seen_in_part`` maps the files the model was shown only in part to what it saw ("lines
    10-40"): a whole-file block for one of them is refused (it would delete the rest).
    ``request`` helps place a Python block by its definitions (see
    :func:`~git_gpte.edit.definitions.place_definitions`).
    """
    bad = unsafe_paths(parsed)
    if bad:
        raise UnsafePathError("unsafe path(s) in the reply, nothing applied: " + "; ".join(bad))
    working = _WorkingFiles(files, list(known_paths), seen_in_part or {}, request)
    reports = [report for edit in parsed.edits for report in working.apply(edit)]
    return ApplyResult(
        files=working.changed(),
        reports=reports,
        problems=list(parsed.problems),
        placed=working.placed,
    )


@dataclass
class _Target:
    """One edit aimed at one path: what every report of its hunks shares.

    The hunks of a path are numbered across the whole reply, so the edit's first hunk is
    ``first``. ``notes`` say how the path was read (a resolved name, a rename): an edit that
    needed them is reported as corrected, never as applied as written.
    """

    edit: FileEdit
    path: str
    first: int
    notes: list[str] = field(default_factory=list)

    def outcome(self, corrections: Iterable[str]) -> tuple[Status, str]:
        """The status and detail of an accepted hunk: "applied" only when neither the path nor
        the hunk needed a correction, else "corrected" with every correction named."""
        prefix = "; ".join(self.notes)
        detail = "; ".join(note for note in [prefix, *corrections] if note)
        return ("corrected" if detail else "applied"), detail

    def report(
        self,
        offset: int,
        status: Status,
        detail: str,
        hunk: Hunk | None = None,
        *,
        line: int | None = None,
        candidate: Candidate | None = None,
    ) -> HunkReport:
        """The report for the edit's hunk ``offset`` (or for the whole edit, without a hunk)."""
        return HunkReport(
            path=self.path,
            hunk=self.first + offset,
            status=status,
            detail=detail,
            header=hunk.header if hunk is not None else self.edit.kind,
            kind=self.edit.kind,
            expected=hunk.old_lines if hunk is not None else [],
            line=line,
            candidate=candidate,
        )

    def accept(
        self,
        corrections: Iterable[str],
        hunk: Hunk | None = None,
        offset: int = 0,
        *,
        line: int | None = None,
    ) -> HunkReport:
        """A hunk (or the whole edit) applied, with the ``corrections`` it needed."""
        return self.report(offset, *self.outcome(corrections), hunk, line=line)

    def refuse(
        self,
        why: str,
        hunk: Hunk | None = None,
        offset: int = 0,
        *,
        candidate: Candidate | None = None,
    ) -> HunkReport:
        """A hunk (or the whole edit) refused: ``why`` alone is the detail the model reads."""
        return self.report(offset, "refused", why, hunk, candidate=candidate)

    def refuse_each(self, why: str, hunks: Sequence[Hunk | None]) -> list[HunkReport]:
        """Every hunk refused for the same reason (one that concerns the file, not a hunk)."""
        return [self.refuse(why, hunk, offset) for offset, hunk in enumerate(hunks)]


class _WorkingFiles:
    """The files' texts as the reply's edits change them, in reply order, with one method per
    edit kind.

    Later edits see earlier ones: a second diff for a file works on the result of the first,
    a diff may follow the block that created its file. So the texts are kept together with what
    the earlier edits did to them: which files this reply created (a second "new" block for one
    of them replaces it instead of being refused), which could not be read, how many hunk
    reports each path has had (the numbers go on across edits), and where each diff's hunks
    were placed (for :meth:`ApplyResult.corrected_diff`).
    """

    def __init__(
        self,
        files: Mapping[str, str],
        known_paths: list[str],
        seen_in_part: Mapping[str, str],
        request: str = "",
    ) -> None:
        self.files = files
        self.request = request
        self.known_paths = known_paths
        self.seen_in_part = seen_in_part
        self.texts: dict[str, str | None] = {}
        self.original: dict[str, str | None] = {}
        self.created: set[str] = set()
        self.unreadable: dict[str, str] = {}
        self.report_counts: dict[str, int] = {}
        self.placed: dict[str, list[list[Placement]]] = {}

    def __contains__(self, path: object) -> bool:
        """Whether ``path`` exists, for resolving the reply's paths: a file created earlier in
        the reply counts, so a later diff for it finds it instead of a tracked namesake; so
        does every file given in ``files``, even one the reply deleted."""
        return isinstance(path, str) and (
            (path in self.texts and self.texts[path] is not None) or path in self.files
        )

    def load(self, path: str) -> None:
        """Read ``path`` once, the first time the reply names it; a file that cannot be edited
        is remembered with the reason, which becomes the refusal of every hunk for it."""
        if path in self.texts:
            return
        try:
            text = self.files.get(path, None)
        except (UnreadableFile, UnicodeDecodeError) as err:
            text = None
            self.unreadable[path] = str(err) or f"{path} is binary or not UTF-8 text"
        self.texts[path] = self.original[path] = text

    def changed(self) -> dict[str, str | None]:
        """The final text of every file the reply changed (None: deleted)."""
        return {path: text for path, text in self.texts.items() if text != self.original[path]}

    def apply(self, edit: FileEdit) -> list[HunkReport]:
        """Apply one edit of the reply to the path it resolves to; one report per hunk."""
        path, how = resolve_path(check_path(edit.path), self, self.known_paths)
        self.load(path)
        source = path
        if edit.kind == "modify" and edit.old_path:
            source, _ = resolve_path(check_path(edit.old_path), self, self.known_paths)
            self.load(source)
        first = self.report_counts.get(path, 0) + 1
        if source != path:  # --- a/x +++ b/y: a rename, as git reads it
            reports = self.rename(edit, source, path, first)
        elif (
            edit.kind == "whole-file"
            and edit.fmt != DEFINITIONS
            and path in self.seen_in_part
            and self.texts[path]
        ):
            why = _partial_view(path, self.seen_in_part)
            reports = [self.by_definitions(_Target(edit, path, first), why)]
        else:
            reports = self.apply_to_path(_Target(edit, path, first, [how] if how else []))
        self.report_counts[path] = first - 1 + max(1, len(reports))
        return reports

    def rename(self, edit: FileEdit, source: str, path: str, first: int) -> list[HunkReport]:
        """Hunks against ``source`` whose result is written as ``path``, ``source`` removed."""
        why = ""
        if self.texts[source] is None:
            why = f"the diff renames {source} to {path}, but {source} does not exist"
        elif self.texts[path] is not None:
            why = (
                f"the diff renames {source} to {path}, but {path} exists; "
                "cannot tell which is meant"
            )
        if why:
            return _Target(edit, path, first).refuse_each(why, edit.hunks)
        note = f"renamed {source} to {path}"
        reports = self.apply_to_path(_Target(edit, source, first, [note]))
        if any(report.status != "refused" for report in reports):
            self.texts[path], self.texts[source] = self.texts[source], None
            if source in self.placed:
                self.placed[path] = self.placed.pop(source)
        for report in reports:
            report.path = path
        return reports

    def apply_to_path(self, target: _Target) -> list[HunkReport]:
        """The edit applied to the (resolved) path it aims at, by its kind."""
        if target.path in self.unreadable:
            return target.refuse_each(self.unreadable[target.path], target.edit.hunks or [None])
        if target.edit.kind == "delete":
            return self.delete(target)
        if target.edit.kind in ("new", "whole-file"):
            return self.write_whole(target)
        return self.modify(target)

    def delete(self, target: _Target) -> list[HunkReport]:
        """Delete the file, unless the lines the diff shows as removed are not the file's: then
        the model deletes a file it does not know, and the deletion is refused."""
        path, edit = target.path, target.edit
        current = self.texts[path]
        if current is None:
            return [target.refuse(f"cannot delete {path}: no such file")]
        missing = _lines_not_in(edit.hunks, current)
        if missing:
            why = (
                f"the reply deletes {path}, but the lines it shows as removed are not in it: "
                + "; ".join(repr(line.strip()) for line in missing[:3])
            )
            return [target.refuse(why, edit.hunks[0])]
        self.texts[path] = None
        return [target.accept(["deleted"])]

    def write_whole(self, target: _Target) -> list[HunkReport]:
        """Write a new file, or a whole file's new text, in the existing file's newline style.

        Refused when it would lose lines: text for a file with text from an empty SEARCH, an
        excerpt passed off as the whole file, a "new" file over an existing one.
        """
        path, edit = target.path, target.edit
        current = self.texts[path]
        content = edit.content or ""
        corrections: list[str] = []
        if edit.fmt == "search-replace-empty" and current is not None:
            if not is_blank(current.split("\n")):
                return [target.refuse(NOTHING_TO_PLACE_BY)]
            corrections.append("empty SEARCH: filled the empty file")
        if edit.kind == "whole-file" and edit.fmt == DEFINITIONS and current:
            return [self.by_definitions(target, "")]
        if edit.kind == "whole-file" and edit.fmt == "files" and current:
            other = self.copied_file(content, current, path)
            if other:
                return [target.refuse(_copy_of_other(path, other))]
            why = _not_whole(content, current)
            if why:
                return [self.by_definitions(target, why)]
        if current is not None:
            content = _match_style(content, current)
        if edit.kind == "new" and current:
            if current == content:
                note = "the file already has exactly this content; not created twice"
                return [target.accept([note])]
            if path not in self.created:
                return [target.refuse(_exists_already(path))]
            corrections.append("replaces the version created earlier in this reply")
        if current is None or path in self.created:
            self.created.add(path)
        self.texts[path] = content
        return [target.accept(corrections)]

    def copied_file(self, content: str, current: str, path: str) -> str:
        """The other file of the same folder that a whole-file block for ``path`` copies, or "".

        A small model sometimes writes the text of another file it was shown under the path
        it means to change (the real one wrote a package's ``__init__.py`` under
        ``report.py``): written, that block would replace the module with a copy of its
        neighbour. It is a copy when few of its lines are the target's own and most are the
        other file's."""
        keys = _line_keys(content)
        own = keys & _line_keys(current)
        if len(keys) < COPY_MIN_LINES or len(own) * 10 > len(keys) * 3:
            return ""
        folder, _, name = path.rpartition("/")
        suffix = name.rpartition(".")[2]
        for other in self.known_paths:
            head, _, other_name = other.rpartition("/")
            if other == path or head != folder or other_name.rpartition(".")[2] != suffix:
                continue
            try:
                text = self.files.get(other, None)
            except (UnreadableFile, UnicodeDecodeError):
                continue
            if not text or len(text) > COPY_MAX_CHARS:
                continue
            theirs = keys & _line_keys(text)
            if len(theirs) * 10 >= len(keys) * 6 and len(theirs) > 2 * len(own):
                return other
        return ""

    def by_definitions(self, target: _Target, why: str) -> HunkReport:
        """A Python block for an existing file placed by its definitions (see
        :mod:`.definitions`): the format asked for (``why`` empty), or a block that cannot be
        the whole file (``why``, the reason, is then refused with it when it cannot be placed
        either)."""
        from .definitions import NotPlaceable, place_definitions

        path, current = target.path, self.texts[target.path] or ""
        if not path.endswith(".py"):
            return target.refuse(why or "only Python files can be changed by their definitions")
        content = _match_style(target.edit.content or "", current)
        try:
            placed = place_definitions(current, content, self.request)
        except NotPlaceable as err:
            return target.refuse(f"{why} ({err})" if why else str(err))
        self.texts[path] = placed.text
        report = target.accept([] if not why else [placed.note()])
        report.kind = DEFINITIONS
        if not why:
            report.detail = "; ".join(x for x in (report.detail, placed.note()) if x)
        return report

    def modify(self, target: _Target) -> list[HunkReport]:
        """Place the diff's hunks against the same text and apply the accepted ones together,
        by their original line numbers, so that they never shift each other."""
        path, hunks = target.path, target.edit.hunks
        current = self.texts[path]
        if current is None:
            return self.modify_missing(target)
        text = TextLines(current)
        accepted: list[tuple[int, Placement]] = []
        reports: list[HunkReport] = []
        for offset, placed in enumerate(_locate_hunks(hunks, text)):
            report, placement = _judge_placement(target, offset, placed, accepted)
            reports.append(report)
            if placement is not None:
                accepted.append((offset, placement))
        if accepted:
            accepted.sort(key=lambda offset_and_placement: offset_and_placement[1].start)
            self.texts[path] = _splice(text, accepted, hunks)
            self.placed.setdefault(path, []).append([placed for _, placed in accepted])
        return reports

    def modify_missing(self, target: _Target) -> list[HunkReport]:
        """A diff for a file that does not exist: a new file when it only adds lines (the same
        as a new file's diff and as an empty SEARCH, whatever its header says it comes from);
        otherwise every hunk is refused."""
        path, hunks = target.path, target.edit.hunks
        if hunks and not any(hunk.old_lines for hunk in hunks):
            added = [line for hunk in hunks for line in hunk.new_lines]
            no_newline = hunks[-1].no_newline_new
            self.texts[path] = "\n".join(added) + ("" if no_newline or not added else "\n")
            self.created.add(path)
            note = f"{path} did not exist: created it (a new file's diff comes from /dev/null)"
            return [target.accept([note], hunks[0])]
        # Every path is loaded before it is edited, so one the reply created is gone only if
        # the reply deleted it.
        deleted = " (deleted earlier in this reply)" if path in self.created else ""
        why = f"{path} does not exist{deleted}; create it with a diff from /dev/null"
        return target.refuse_each(why, hunks)


def _lines_not_in(hunks: list[Hunk], current: str) -> list[str]:
    """The lines the hunks remove that ``current`` does not have (compared as placing does)."""
    present = set(TextLines(current).norms)
    return [
        line for hunk in hunks for op, line in hunk.lines if op == "-" and norm(line) not in present
    ]


def _exists_already(path: str) -> str:
    return (
        f"the reply creates {path} from /dev/null, but it exists with other content; "
        "send a diff against the existing file instead"
    )


def _locate_hunks(hunks: list[Hunk], text: TextLines) -> list[Placement | Refusal]:
    """Where each hunk of one diff goes in ``text``, all placed against the same text.

    A header's line number is only a hint (0 for ``@@ -0,0``: the top); numbers that choose
    among copies of the lines are refused when the diff's other numbers show they are off.
    """
    hints = [
        hunk.old_start - 1 if hunk.old_start else (0 if hunk.old_start == 0 else None)
        for hunk in hunks
    ]
    located = [
        locate(normalise(hunk.lines), text, hint, intends_change=hunk.changes)
        for hunk, hint in zip(hunks, hints, strict=True)
    ]
    _distrust_hints(located, hints)
    return located


def _judge_placement(
    target: _Target,
    offset: int,
    placed: Placement | Refusal,
    accepted: list[tuple[int, Placement]],
) -> tuple[HunkReport, Placement | None]:
    """The report for one located hunk, and its placement when it is to be applied.

    A hunk is applied unless placing it was refused, its change is in the file already, or it
    overlaps a hunk of the same diff accepted before it (then it is refused, or, when it is
    the same change, reported as applied once).
    """
    hunk = target.edit.hunks[offset]
    if isinstance(placed, Refusal):
        return target.refuse(placed.reason, hunk, offset, candidate=placed.candidate), None
    line = placed.start + 1
    if placed.duplicate:
        return target.accept(placed.notes, hunk, offset, line=line), None
    clash = _overlap(placed, accepted)
    if clash is not None:
        return _overlap_report(target, offset, placed, clash), None
    status, detail = target.outcome(_placement_notes(hunk, placed))
    if not placed.changes:
        detail = "; ".join(note for note in [detail, "no change"] if note)
    return target.report(offset, status, detail, hunk, line=line), placed


def _overlap_report(
    target: _Target, offset: int, placed: Placement, clash: tuple[int, Placement]
) -> HunkReport:
    """A hunk overlapping an accepted one: the same change said twice is applied once; two
    different changes to the same lines cannot both be right, so the later one is refused."""
    hunk = target.edit.hunks[offset]
    other_offset, other = clash
    other_number = target.first + other_offset
    if [(op, line) for op, line, _ in other.ops] == [(op, line) for op, line, _ in placed.ops]:
        note = f"same as hunk {other_number}; applied once"
        return target.accept([note], hunk, offset, line=placed.start + 1)
    why = (
        f"overlaps hunk {other_number} (lines {other.start + 1}-{max(other.end, other.start + 1)})"
    )
    return target.refuse(why, hunk, offset)


def _placement_notes(hunk: Hunk, placed: Placement) -> list[str]:
    """How placing corrected the hunk, and the line it went to when its number was wrong
    (unless a note already says where it went: "... precede ...")."""
    notes = list(placed.notes)
    if (
        hunk.old_start
        and placed.method != "insert"
        and placed.start != hunk.old_start - 1
        and not any("precede" in note for note in notes)
    ):
        notes.append(f"placed at line {placed.start + 1}, not {hunk.old_start}")
    return notes


def _distrust_hints(located: list[Placement | Refusal], hints: list[int | None]) -> None:
    """Refuse hunks whose line number chose among copies when the diff's numbers are off.

    A line number may pick one of several identical places only if it can be trusted. The
    hunks the content placed on its own show how far off the diff's numbers are near each
    hunk (its neighbours by line number, above and below); if shifting a hunk's number by one
    of those offsets would pick another copy, the number decides nothing and the hunk is refused.
    """
    anchors = sorted(
        (hint, p.start - hint)
        for p, hint in zip(located, hints, strict=True)
        if isinstance(p, Placement)
        and hint is not None
        and not p.choices
        and not p.duplicate
        and p.method != "insert"
    )
    if all(off == 0 for _, off in anchors):
        return
    for k, (p, hint) in enumerate(zip(located, hints, strict=True)):
        if not isinstance(p, Placement) or not p.choices or hint is None:
            continue
        below = [off for h, off in anchors if h <= hint][-1:]
        above = [off for h, off in anchors if h > hint][:1]
        for off in below + above:
            if off and choose_by_hint(p.choices, hint + off)[0] != p.start:
                where = ", ".join(str(s + 1) for s in sorted(p.choices)[:6])
                located[k] = Refusal(
                    f"the lines occur {len(p.choices)} times (at lines {where}); the hunk's line "
                    f"number {hint + 1} points at line {p.start + 1}, but this diff's numbers are "
                    f"off by {off:+d} lines next to it, so the number cannot decide",
                    Candidate(p.start + 1, max(p.end, p.start + 1), 1.0, []),
                )
                break


def normalise(lines: list[tuple[Op, str]]) -> list[tuple[Op, str]]:
    """Hunk lines with ``\\r`` dropped and removed/added pairs that cancel turned into context."""
    out: list[tuple[Op, str]] = []
    cleaned = [(op, t[:-1] if t.endswith("\r") else t) for op, t in lines]
    i = 0
    while i < len(cleaned):
        if cleaned[i][0] == " ":
            out.append(cleaned[i])
            i += 1
            continue
        j = i
        while j < len(cleaned) and cleaned[j][0] != " ":
            j += 1
        removed = [t for op, t in cleaned[i:j] if op == "-"]
        added = [t for op, t in cleaned[i:j] if op == "+"]
        head = 0
        while head < min(len(removed), len(added)) and removed[head] == added[head]:
            head += 1
        tail = 0
        while (
            tail < min(len(removed), len(added)) - head and removed[-1 - tail] == added[-1 - tail]
        ):
            tail += 1
        if not head and not tail:
            out.extend(cleaned[i:j])  # keep the reply's order: it decides where kept lines go
            i = j
            continue
        out.extend((" ", t) for t in removed[:head])
        out.extend(("-", t) for t in removed[head : len(removed) - tail])
        out.extend(("+", t) for t in added[head : len(added) - tail])
        out.extend((" ", t) for t in removed[len(removed) - tail :])
        i = j
    return out


def _overlap(
    placed: Placement, others: list[tuple[int, Placement]]
) -> tuple[int, Placement] | None:
    for k, other in others:
        if placed.start < other.end and other.start < placed.end:
            return k, other
        if placed.start == other.start and (placed.start == placed.end or other.start == other.end):
            return k, other
    return None


def _splice(text: TextLines, placements: list[tuple[int, Placement]], hunks: list[Hunk]) -> str:
    """The file with ``placements`` (hunk index, placement; in line order) applied."""
    raw = text.raw
    out: list[str] = []
    pos = 0
    final_newline = text.final_newline or len(text) == 0
    last_at: int | None = None  # where the file's last line is in ``out``, if kept
    for k, placed in placements:
        out.extend(raw[pos : placed.start])
        for op, t, j in placed.ops:
            if op == " ":
                if j == len(raw) - 1:
                    last_at = len(out)
                out.append(raw[j] if j is not None else text.new_line(t))
            elif op == "+":
                out.append(text.new_line(t))
        pos = placed.end
        if placed.end >= len(raw):
            hunk = hunks[k]
            if hunk.no_newline_new:
                final_newline = False
            elif hunk.no_newline_old:
                final_newline = True
    out.extend(raw[pos:])
    if text.crlf and not text.final_newline and raw:
        # The file's last line had no ending; if lines now follow it, it needs the file's one.
        at = last_at if last_at is not None else (len(out) - 1 if pos < len(raw) else None)
        ended = at is not None and (at < len(out) - 1 or final_newline)
        if at is not None and ended and not out[at].endswith("\r"):
            out[at] += "\r"
    if text.crlf and not final_newline and out and out[-1].endswith("\r"):
        out[-1] = out[-1][:-1]  # the new last line ends without a newline: no lone CR either
    return text.render(out, final_newline)


_COMMENT_START = ("#", "//", "/*", "<!--", "--", ";", "*", "{/*")
_ELISION = re.compile(
    r"\.\.\.|…|\b(?:rest of (?:the )?(?:file|code|class|function|module|methods)|existing code|"
    r"remains? (?:the same|unchanged)|unchanged (?:code|lines?)|other (?:methods|functions))\b",
    re.IGNORECASE,
)


def _partial_view(path: str, seen_in_part: Mapping[str, str] | None) -> str:
    seen = (seen_in_part or {}).get(path, "a part")
    return (
        f"you were shown only {seen} of {path}: written out whole, it would lose the lines you "
        "were not shown; change it with a diff or a SEARCH/REPLACE block instead"
    )


# A whole-file block is judged a copy of a neighbour (see _WorkingFiles.copied_file) only
# with at least this many distinct lines, and neighbours larger than this are not read.
COPY_MIN_LINES = 4
COPY_MAX_CHARS = 200_000


def _line_keys(text: str) -> set[str]:
    """The distinct non-blank lines of ``text``, normalised as hunks are matched."""
    return {norm(line) for line in text.split("\n") if line.strip()}


def _copy_of_other(path: str, other: str) -> str:
    """The refusal of a whole-file block for ``path`` that copies ``other``."""
    return (
        f"the block under {path} is a copy of {other}, not {path}'s text: nothing written; "
        f"write {path}'s own text with the change"
    )


def _not_whole(content: str, current: str) -> str:
    """Why a whole-file block for an existing file is not the whole file, or "".

    LLMs often show only the changed part under a file name, with a ``# ... rest unchanged``
    line or none: writing that block would delete the rest of the file.
    """
    new_lines = content.split("\n")
    own = {line.strip() for line in current.split("\n")}
    for line in new_lines:
        text = line.strip()
        if text.startswith(_COMMENT_START) and _ELISION.search(text) and text not in own:
            return (
                f"the block for the existing file has an elision line {text!r}: it is an excerpt, "
                "not the whole file; send a diff, or the complete file"
            )
    old_keys = [norm(x) for x in current.split("\n") if x.strip()]
    new_keys = [norm(x) for x in new_lines if x.strip()]
    if old_keys and len(new_keys) * 2 < len(old_keys):
        old_set = set(old_keys)
        kept = sum(1 for k in new_keys if k in old_set)
        if kept * 2 >= len(new_keys):
            return (
                f"the block has {len(new_keys)} of the file's {len(old_keys)} lines and most of "
                "them are the file's own: it looks like an excerpt, not the whole file; send a "
                "diff instead"
            )
    return ""


def _match_style(content: str, current: str) -> str:
    """Whole-file content in the existing file's newline style."""
    if "\r\n" in current and current.count("\r\n") * 2 >= current.count("\n"):
        return content.replace("\r\n", "\n").replace("\n", "\r\n")
    return content
