"""What the latest commits changed: a hint of where work is going on.

A change request often continues the work of the last few commits (a review fix-up, the
follow-on edit, "move the comment to the right place"), so context selection gives the files
and lines those commits wrote a small lift. Pure parsing here; :meth:`Repository.recent_changes`
runs git.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


@dataclass(frozen=True)
class RecentChanges:
    """The paths each of the latest commits changed (newest first; root commits, which add
    everything at once, are left out), and the lines those commits wrote, numbered as in the
    newest one (1-based, inclusive; a deletion marks the two lines around the gap)."""

    commits: tuple[tuple[str, ...], ...] = ()
    lines: dict[str, tuple[tuple[int, int], ...]] = field(default_factory=dict)


# Commits a bot made to bump a dependency: no hint of where the work goes on.
_BOT_AUTHOR = re.compile(r"\[bot\]$|^(?:dependabot|renovate|pre-commit-ci|snyk-bot)\b", re.I)
_BUMP_SUBJECT = re.compile(
    r"^(?:bump\b|(?:chore|build|fix|ci)\((?:deps|deps-dev|dependencies)\)|update dependency\b)",
    re.I,
)


def is_bump(author: str, subject: str) -> bool:
    """A dependency bump (dependabot, renovate, "Bump x from 1 to 2", "chore(deps): ...")."""
    return bool(_BOT_AUTHOR.search(author.strip()) or _BUMP_SUBJECT.match(subject.strip()))


@dataclass(frozen=True)
class PastCommit:
    """A commit's subject line and the paths it changed."""

    subject: str
    paths: tuple[str, ...]


def parse_subjects(output: str) -> tuple[PastCommit, ...]:
    """``git log -z --name-only --format=%x01%P%x02%an%x02%s`` output -> each commit's subject
    and paths, newest first, leaving out root commits (they add everything) and dependency
    bumps (a bot's, not the work going on)."""
    commits = []
    for record in output.split("\x01")[1:]:
        header, _, names = record.partition("\0")
        parents, _, rest = header.partition("\x02")
        author, _, subject = rest.partition("\x02")
        if not parents.strip() or is_bump(author, subject):
            continue
        paths = tuple(n.strip("\n") for n in names.split("\0") if n.strip("\n"))
        commits.append(PastCommit(subject.strip(), paths))
    return tuple(commits)


def parse_log(output: str) -> tuple[tuple[str, ...], ...]:
    """The paths of each commit of :func:`parse_subjects`."""
    return tuple(commit.paths for commit in parse_subjects(output))


def parse_new_lines(diff: str) -> dict[str, tuple[tuple[int, int], ...]]:
    """Per path, the new side's line ranges of a ``git diff -U0`` (``b/`` prefixes).

    A quoted path (git quotes names with quotes, backslashes or control characters) is left
    out: this is a hint, and such names are rare.
    """
    out: dict[str, list[tuple[int, int]]] = {}
    current: str | None = None
    for line in diff.splitlines():
        if line.startswith("+++ "):
            name = line[4:]
            current = name[2:] if name.startswith("b/") else None
            continue
        if current is None or not line.startswith("@@"):
            continue
        match = _HUNK.match(line)
        if match is None:
            continue
        start = int(match.group(1))
        count = 1 if match.group(2) is None else int(match.group(2))
        span = (start, start + count - 1) if count else (max(start, 1), start + 1)
        out.setdefault(current, []).append(span)
    return {path: tuple(spans) for path, spans in out.items()}
