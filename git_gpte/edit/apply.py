"""Applying a parsed reply to file texts in memory: every hunk applied, corrected or refused.

Edits are taken in reply order. The hunks of one diff are placed against the same text and
applied together by their original line numbers, so they never shift each other; a second diff
for the same file (or a diff for a file created earlier in the reply) works on the result of
the first. Untouched lines keep their bytes; the file keeps its newline style and final-newline
state.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import UnsafePathError
from .model import Candidate, FileEdit, Hunk, HunkReport, Op, ParsedReply
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
) -> ApplyResult:
    """Apply ``parsed`` to ``files`` (path -> current text) in memory.

    Raises :class:`UnsafePathError` naming every unsafe path before anything is applied.
    ``known_paths`` (all tracked paths) lets a bare ``events.py`` resolve to ``asyncio/events.py``.
    ``seen_in_part`` maps the files the model was shown only in part to what it saw ("lines
    10-40"): a whole-file block for one of them is refused (it would delete the rest).
    """
    bad = unsafe_paths(parsed)
    if bad:
        raise UnsafePathError("unsafe path(s) in the reply, nothing applied: " + "; ".join(bad))
    known = list(known_paths)
    state: dict[str, str | None] = {}
    original: dict[str, str | None] = {}
    created: set[str] = set()
    unreadable: dict[str, str] = {}
    counters: dict[str, int] = {}
    result = ApplyResult(problems=list(parsed.problems))

    class _Exists:
        def __contains__(self, item: object) -> bool:
            return isinstance(item, str) and (
                (item in state and state[item] is not None) or item in files
            )

    exists = _Exists()

    def load(path: str) -> None:
        if path not in state:
            try:
                text = files.get(path, None)
            except (UnreadableFile, UnicodeDecodeError) as err:
                text = None
                unreadable[path] = str(err) or f"{path} is binary or not UTF-8 text"
            state[path] = original[path] = text

    for edit in parsed.edits:
        path, how = resolve_path(check_path(edit.path), exists, known)
        load(path)
        notes = [how] if how else []
        source = path
        if edit.kind == "modify" and edit.old_path:
            source, _ = resolve_path(check_path(edit.old_path), exists, known)
            load(source)
        first = counters.get(path, 0) + 1
        if source != path:  # --- a/x +++ b/y: a rename, as git reads it
            reports = _rename(edit, source, path, state, created, unreadable, first, result)
        elif edit.kind == "whole-file" and path in (seen_in_part or {}) and state[path]:
            reports = [_report(edit, path, first, "refused", _partial_view(path, seen_in_part))]
        else:
            reports = _apply_edit(edit, path, state, created, unreadable, first, notes, result)
        counters[path] = first - 1 + max(1, len(reports))
        result.reports.extend(reports)
    for path, text in state.items():
        if text != original[path]:
            result.files[path] = text
    return result


def _rename(
    edit: FileEdit,
    source: str,
    path: str,
    state: dict[str, str | None],
    created: set[str],
    unreadable: dict[str, str],
    first: int,
    result: ApplyResult,
) -> list[HunkReport]:
    """Hunks against ``source`` whose result is written as ``path``, ``source`` removed."""
    why = ""
    if state[source] is None:
        why = f"the diff renames {source} to {path}, but {source} does not exist"
    elif state[path] is not None:
        why = f"the diff renames {source} to {path}, but {path} exists; cannot tell which is meant"
    if why:
        return [_report(edit, path, first + k, "refused", why, h) for k, h in enumerate(edit.hunks)]
    note = f"renamed {source} to {path}"
    reports = _apply_edit(edit, source, state, created, unreadable, first, [note], result)
    if any(r.status != "refused" for r in reports):
        state[path], state[source] = state[source], None
        if source in result.placed:
            result.placed[path] = result.placed.pop(source)
    for r in reports:
        r.path = path
    return reports


def _report(
    edit: FileEdit,
    path: str,
    number: int,
    status: str,
    detail: str,
    hunk: Hunk | None = None,
    **kw: Any,
) -> HunkReport:
    return HunkReport(
        path=path,
        hunk=number,
        status=status,  # type: ignore[arg-type]
        detail=detail,
        header=hunk.header if hunk else edit.kind,
        kind=edit.kind,
        expected=hunk.old_lines if hunk else [],
        **kw,
    )


def _apply_edit(
    edit: FileEdit,
    path: str,
    state: dict[str, str | None],
    created: set[str],
    unreadable: dict[str, str],
    first: int,
    notes: list[str],
    result: ApplyResult,
) -> list[HunkReport]:
    current = state[path]
    prefix = "; ".join(notes)

    def status(extra: list[str]) -> tuple[str, str]:
        detail = "; ".join(x for x in [prefix, *extra] if x)
        return ("corrected" if detail else "applied"), detail

    if path in unreadable:
        why = unreadable[path]
        return [
            _report(edit, path, first + k, "refused", why, h)
            for k, h in enumerate(edit.hunks or [None])
        ]
    if edit.kind == "delete":
        if current is None:
            return [_report(edit, path, first, "refused", f"cannot delete {path}: no such file")]
        present = set(TextLines(current).norms)
        missing = [
            t for h in edit.hunks for op, t in h.lines if op == "-" and norm(t) not in present
        ]
        if missing:
            why = (
                f"the reply deletes {path}, but the lines it shows as removed are not in it: "
                + "; ".join(repr(x.strip()) for x in missing[:3])
            )
            return [_report(edit, path, first, "refused", why, edit.hunks[0])]
        state[path] = None
        return [_report(edit, path, first, *status(["deleted"]))]
    if edit.kind in ("new", "whole-file"):
        content = edit.content or ""
        extra: list[str] = []
        if edit.fmt == "search-replace-empty" and current is not None:
            if not is_blank(current.split("\n")):
                return [_report(edit, path, first, "refused", NOTHING_TO_PLACE_BY)]
            extra.append("empty SEARCH: filled the empty file")
        if edit.kind == "whole-file" and edit.fmt == "files" and current:
            why = _not_whole(content, current)
            if why:
                return [_report(edit, path, first, "refused", why)]
        if current is not None:
            content = _match_style(content, current)
        if edit.kind == "new" and current:
            if current == content:
                st = status(["the file already has exactly this content; not created twice"])
                return [_report(edit, path, first, *st)]
            if path not in created:
                why = (
                    f"the reply creates {path} from /dev/null, but it exists with other content; "
                    "send a diff against the existing file instead"
                )
                return [_report(edit, path, first, "refused", why)]
            extra.append("replaces the version created earlier in this reply")
        if current is None or path in created:
            created.add(path)
        state[path] = content
        return [_report(edit, path, first, *status(extra))]
    # modify
    if current is None and edit.hunks and not any(h.old_lines for h in edit.hunks):
        # Only added lines, for a file that does not exist: the same as a new file (and as an
        # empty SEARCH), whatever the header says it comes from.
        added = [t for h in edit.hunks for t in h.new_lines]
        no_newline = edit.hunks[-1].no_newline_new
        state[path] = "\n".join(added) + ("" if no_newline or not added else "\n")
        created.add(path)
        note = f"{path} did not exist: created it (a new file's diff comes from /dev/null)"
        return [_report(edit, path, first, *status([note]), edit.hunks[0])]
    if current is None:
        why = f"{path} does not exist" + (
            " (deleted earlier in this reply)" if path in state and path in created else ""
        )
        return [
            _report(
                edit, path, first + k, "refused", why + "; create it with a diff from /dev/null", h
            )
            for k, h in enumerate(edit.hunks)
        ]
    text = TextLines(current)
    placements: list[tuple[int, Placement]] = []
    reports: list[HunkReport] = []
    hints = [
        h.old_start - 1 if h.old_start else (0 if h.old_start == 0 else None) for h in edit.hunks
    ]
    located = [
        locate(normalise(h.lines), text, hint, intends_change=h.changes)
        for h, hint in zip(edit.hunks, hints, strict=True)
    ]
    _distrust_hints(located, hints)
    for k, hunk in enumerate(edit.hunks):
        number = first + k
        placed = located[k]
        if isinstance(placed, Refusal):
            reports.append(
                _report(
                    edit, path, number, "refused", placed.reason, hunk, candidate=placed.candidate
                )
            )
            continue
        if placed.duplicate:
            reports.append(
                _report(edit, path, number, *status(placed.notes), hunk, line=placed.start + 1)
            )
            continue
        clash = _overlap(placed, placements)
        if clash is not None:
            other_k, other = clash
            if [(o, t) for o, t, _ in other.ops] == [(o, t) for o, t, _ in placed.ops]:
                st = status([f"same as hunk {first + other_k}; applied once"])
                reports.append(_report(edit, path, number, *st, hunk, line=placed.start + 1))
            else:
                reports.append(
                    _report(
                        edit,
                        path,
                        number,
                        "refused",
                        f"overlaps hunk {first + other_k} "
                        f"(lines {other.start + 1}-{max(other.end, other.start + 1)})",
                        hunk,
                    )
                )
            continue
        placements.append((k, placed))
        extra = list(placed.notes)
        if (
            hunk.old_start
            and placed.method != "insert"
            and placed.start != hunk.old_start - 1
            and not any("precede" in n for n in extra)
        ):
            extra.append(f"placed at line {placed.start + 1}, not {hunk.old_start}")
        st = status(extra)
        if not placed.changes:
            st = (st[0], "; ".join(x for x in [st[1], "no change"] if x))
        reports.append(_report(edit, path, number, *st, hunk, line=placed.start + 1))
    if placements:
        placements.sort(key=lambda kp: kp[1].start)
        state[path] = _splice(text, placements, edit.hunks)
        result.placed.setdefault(path, []).append([p for _, p in placements])
    return reports


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


def _not_whole(content: str, current: str) -> str:
    """Why a whole-file block for an existing file is not the whole file, or "".

    LLMs often show only the changed part under a file name, with a ``# ... rest unchanged``
    line or none: writing that block would delete the rest of the file.
    """
    new_lines = content.split("\n")
    for line in new_lines:
        text = line.strip()
        if text.startswith(_COMMENT_START) and _ELISION.search(text):
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
