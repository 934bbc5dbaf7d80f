"""A request that reverts a commit: what that commit wrote is what changes.

``git revert`` writes ``Revert "SUBJECT"`` and ``This reverts commit SHA.``; GitHub's revert
button writes the first line and ``Reverts owner/repo#N``, no commit id. The reverted commit's
diff says which files the revert changes and, where its lines are still in place, which lines:
those it wrote (taken out again) and the places it took lines from (put back), each found by
its text with a line of context around it (the lines may have moved since). No word of such a
request needs to match the code ("Revert "Prefer `.flake8` if present for options."" changed
``options/config.py``, ranked past the budget at 4k-16k). Pure functions; the engine runs git.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

# "This reverts commit 3f9f65997fb25aff99d39fd4c27d5f14e6427af3." (git revert's own line)
_REVERTS_COMMIT = re.compile(r"\breverts\s+commit\s+([0-9a-f]{7,40})\b", re.IGNORECASE)
# 'Revert "Made required_draft4 more robust"' (its first line; the subject of the reverted),
# a squashed pull request's number after it
_REVERT_TITLE = re.compile(r'^\s*Revert\s+"(.+)"(?:\s*\(#\d+\))?\s*$')
_HUNK = re.compile(r"^@@ -\d+(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
MAX_COMMITS = 3  # commits named by one request that are looked at
MAX_PATHS = 30  # a reverted commit changing more files is too broad to point anywhere


@dataclass(frozen=True)
class Hunk:
    """A hunk's new side: its first line's number and its lines (context included)."""

    start: int
    lines: tuple[str, ...]


def reverted_ids(request: str) -> tuple[str, ...]:
    """The commit ids the request says it reverts, in order, at most MAX_COMMITS."""
    found = dict.fromkeys(m.group(1).lower() for m in _REVERTS_COMMIT.finditer(request))
    return tuple(found)[:MAX_COMMITS]


def reverted_subject(request: str) -> str | None:
    """The subject of the commit a ``Revert "..."`` request reverts (its first line's quote)."""
    lines = request.strip().splitlines()
    match = _REVERT_TITLE.match(lines[0]) if lines else None
    return match.group(1) if match else None


def parse_hunks(diff: str) -> dict[str, tuple[Hunk, ...]]:
    """Per path, the new sides of a ``git diff -U1`` (``b/`` prefixes) hunks. A deleted
    file (no new side) and a quoted path are left out. A hunk's lines are counted by its
    header, so a line it removes or adds that looks like a header (``--- x``) is its own."""
    out: dict[str, list[Hunk]] = {}
    current: str | None = None
    hunk: list[str] = []
    old_left = new_left = start = 0
    for line in diff.split("\n"):
        if old_left > 0 or new_left > 0:
            sign, text = line[:1], line[1:]
            old_left -= sign in (" ", "-")
            new_left -= sign in (" ", "+")
            if sign in (" ", "+"):
                hunk.append(text)
            if old_left <= 0 and new_left <= 0 and current is not None and hunk:
                out.setdefault(current, []).append(Hunk(start, tuple(hunk)))
            continue
        if line.startswith("diff --git "):
            current = None
        elif line.startswith("+++ "):
            current = line[6:] if line.startswith("+++ b/") else None
        elif (match := _HUNK.match(line)) is not None:
            old_left = 1 if match.group(1) is None else int(match.group(1))
            start = int(match.group(2))
            new_left = 1 if match.group(3) is None else int(match.group(3))
            hunk = []
    return {path: tuple(hunks) for path, hunks in out.items()}


def locate(hunks: Sequence[Hunk], text: str) -> tuple[tuple[int, int], ...]:
    """Where each hunk's lines stand in ``text`` now (1-based, inclusive), the nearest to
    where the commit put them when they occur more than once; a hunk found nowhere (edited
    since) is left out."""
    lines = text.split("\n")
    where: dict[str, list[int]] = {}
    for number, line in enumerate(lines):
        where.setdefault(line, []).append(number)
    spans = []
    for hunk in hunks:
        size = len(hunk.lines)
        starts = [
            at for at in where.get(hunk.lines[0], ()) if tuple(lines[at : at + size]) == hunk.lines
        ]
        if starts:
            at = min(starts, key=lambda s: (abs(s + 1 - hunk.start), s))
            spans.append((at + 1, at + size))
    return tuple(sorted(spans))


def reverted_spans(
    hunks: Mapping[str, Sequence[Hunk]], texts: Mapping[str, str]
) -> dict[str, tuple[tuple[int, int], ...]]:
    """Per path of the reverted commit that is still there (in ``texts``), the lines of it
    the revert changes (possibly none found: the file still changes)."""
    return {path: locate(found, texts[path]) for path, found in hunks.items() if path in texts}
