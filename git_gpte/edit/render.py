"""Text made from placements and reports: corrected diffs and the retry prompt for the LLM."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .model import HunkReport

if TYPE_CHECKING:
    from .place import Placement


def _range(start: int, count: int) -> str:
    if count == 1:
        return str(start)
    return f"{start if count else max(0, start - 1)},{count}"


def render_hunks(path: str, placements: Sequence[Placement]) -> str:
    """``placements`` (of one diff, on one file text) as a unified diff with true numbers."""
    out = [f"--- {path}\n", f"+++ {path}\n"]
    offset = 0
    for placed in sorted(placements, key=lambda p: p.start):
        if placed.duplicate:
            continue
        old_count = sum(1 for op, _, _ in placed.ops if op != "+")
        new_count = sum(1 for op, _, _ in placed.ops if op != "-")
        old_start = placed.start + 1
        new_start = old_start + offset
        out.append(f"@@ -{_range(old_start, old_count)} +{_range(new_start, new_count)} @@\n")
        out.extend(f"{op}{text}\n" for op, text, _ in placed.ops)
        offset += new_count - old_count
    return "".join(out)


def retry_prompt(refused: Sequence[HunkReport]) -> str:
    """What to tell the LLM about refused hunks: what did not match and the closest lines."""
    if not refused:
        return ""
    parts = [
        "Some of your edits could not be applied; the others were. Redo these only, against "
        "the file as it is now, with the lines you copy copied exactly from the file:\n"
    ]
    for report in refused:
        parts.append(f"\n## {report.path}, hunk {report.hunk} ({report.header})\n")
        parts.append(f"Problem: {report.detail}\n")
        if report.expected:
            parts.append("Your hunk expected these lines (context and removed):\n```\n")
            parts.extend(f"{line}\n" for line in report.expected[:40])
            parts.append("```\n")
        cand = report.candidate
        if cand is not None and cand.lines:
            parts.append(f"Closest lines in {report.path} (lines {cand.start}-{cand.end}):\n```\n")
            width = len(str(cand.end))
            parts.extend(
                f"{cand.start + i:>{width}} {line}\n" for i, line in enumerate(cand.lines[:40])
            )
            parts.append("```\n")
    return "".join(parts)
