"""The texts the action writes: pull request body, status lines, job summary. Pure functions."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ..llm.usage import ZERO, Usage
from .markdown import cell, code, fence
from .sanitize import strip_invisible

if TYPE_CHECKING:
    from ..pipeline.heal import HealResult, HealRun
    from ..pipeline.improve import ImproveResult


@dataclass(frozen=True)
class Outcome:
    """What one action run produced, whatever the event: a value; each step of a flow gives a
    new one (``with_improve``, ``with_heal``, ``dataclasses.replace``)."""

    number: int
    branch: str = ""
    base_branch: str = ""
    commit: str = ""
    pr_url: str = ""
    pr_number: int | None = None
    pr_updated: bool = False
    files_changed: tuple[str, ...] = ()
    files_sent: tuple[str, ...] = ()
    applied: int = 0
    refused: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()
    heal_ran: bool = False
    heal_success: bool | None = None
    attempts: int = 0
    max_attempts: int = 0
    heal_tail: str = ""
    heal_stop: str = ""  # why healing stopped, in the heal pipeline's words
    heal_runs: tuple[HealRun, ...] = ()  # every run of the check
    check_command: str = ""
    usage: Usage = ZERO
    model: str = ""
    run_url: str | None = None
    truncated_prompt: bool = False
    context: Mapping[str, Any] = field(default_factory=dict)  # what the model was sent
    explanation: str = ""  # the model's words around its edits (capped)

    def with_improve(self, result: ImproveResult) -> Outcome:
        """This outcome with what an improve run did."""
        return replace(
            self,
            context=result.context,
            commit=result.commit,
            model=result.model,
            files_changed=tuple(result.files_changed),
            applied=result.applied,
            files_sent=tuple(result.files_sent),
            refused=tuple(result.refused),
            problems=tuple(result.problems),
            explanation=result.explanation,
        )

    def with_heal(self, healed: HealResult, command: str) -> Outcome:
        """This outcome with what a heal run did (``command``: the check it ran)."""
        return replace(
            self,
            heal_ran=True,
            heal_success=healed.success,
            attempts=healed.attempts,
            heal_runs=tuple(healed.runs),
            check_command=command,
            heal_tail=tail(healed.last_output_tail),
            heal_stop=healed.stop_reason,
        )

    @property
    def success(self) -> bool:
        return not self.refused and self.heal_success is not False

    def outputs(self) -> dict[str, str]:
        return {
            "pr-url": self.pr_url,
            "pr-number": str(self.pr_number or ""),
            "branch": self.branch,
            "attempts": str(self.attempts),
            "success": "true" if self.success else "false",
            **self.usage.outputs(),
        }


TAIL_CHARS = 3000


def tail(text: str, limit: int = TAIL_CHARS) -> str:
    """The end of a long output (what a status comment can hold)."""
    return text if len(text) <= limit else "…" + text[-limit:]


def usage_line(o: Outcome) -> str:
    return o.usage.describe()


def pr_title(issue_title: str, number: int) -> str:
    """The issue's title, without the invisible characters the prompt is also cleaned of."""
    title = " ".join(strip_invisible(issue_title).split()) or f"Changes for issue #{number}"
    if len(title) > 200:
        title = title[:199] + "…"
    return f"{title} (#{number})" if f"#{number}" not in title else title


def heal_section(o: Outcome, commit_url: str | None = None) -> list[str]:
    """What self-heal did: passed or not, and which fix commits changed which files
    (``commit_url``: this repository's commit page address, ending in ``/commit/``)."""
    if not o.heal_ran:
        return ["**Self-heal:** not run."]
    if o.heal_success:
        what = "passed" if o.attempts == 0 else f"passed after {o.attempts} heal attempt(s)"
        lines = [f"**Self-heal:** the check {what} (up to {o.max_attempts} attempts)."]
        for run in o.heal_runs:
            if run.attempt and run.commit:
                short = code(run.commit[:12])
                where = f"[{short}]({commit_url}{run.commit})" if commit_url else short
                files = ", ".join(code(f) for f in run.files_changed[:20]) or "no file"
                lines.append(f"- fix {run.attempt}: {where} changed {files}")
        return lines
    stop = f" ({code(o.heal_stop)})" if o.heal_stop else ""
    lines = [
        f"**Self-heal:** the check still fails after {o.attempts} attempt(s){stop}. Last output:",
        "",
    ]
    if o.heal_tail:
        lines += ["<details><summary>output</summary>", "", fence(o.heal_tail), "", "</details>"]
    return lines


# Lines of the "context sent" list shown at most (a map can name hundreds of files).
CONTEXT_LINES = 150


def context_section(o: Outcome) -> list[str]:
    """What the model was sent, collapsed: the summary line holds only counts, and every path
    (untrusted: a file name can hold markup) is inside a code fence nothing can close."""
    c = o.context
    if not c:
        return []
    rows: list[str] = []
    if c.get("mode") == "all":
        files = [str(f) for f in c.get("files", [])]
        summary = f"Context sent to the model: all {len(files)} file(s), whole"
        rows = files
    else:
        sent = list(c.get("sent", []))
        whole = sum(1 for s in sent if s.get("whole"))
        mapped = [str(m) for m in c.get("map", [])]
        rounds = list(c.get("rounds", []))
        summary = (
            f"Context sent to the model: {whole} whole file(s), {len(sent) - whole} excerpted, "
            f"a map of {len(mapped)} more"
        )
        if rounds:
            summary += f"; it asked for more {len(rounds)} time(s)"
        for s in sent:
            ranges = ", ".join(f"{a}-{b}" for a, b in s.get("ranges", []))
            rows.append(f"{s.get('path')}  {'whole' if s.get('whole') else 'lines ' + ranges}")
        rows += [f"{path}  (map)" for path in mapped]
        for r in rounds:
            rows.append(f"round {r.get('round')}: asked {', '.join(map(str, r.get('asked', [])))}")
            rows.append(f"  given {', '.join(map(str, r.get('given', []))) or 'nothing'}")
    if len(rows) > CONTEXT_LINES:
        rows = [*rows[:CONTEXT_LINES], f"... and {len(rows) - CONTEXT_LINES} more line(s)"]
    return [f"<details><summary>{summary}</summary>", "", fence("\n".join(rows)), "", "</details>"]


def pr_head(o: Outcome) -> str:
    """The top of an issue's pull request body: the issue it closes, what to keep in mind, and
    the last check's output while it still fails. What each run did is the story under it (see
    :mod:`git_gpte.action.story`), so none of that is repeated here."""
    made = "Changes written by git-gpte from the issue text"
    if o.model:
        made += f" with {code(o.model)}"
    lines = [f"Closes #{o.number}", "", made + "; what each run did is listed below."]
    if o.explanation.strip():
        # The model's own words about its change, as data: fenced, nothing in it renders.
        lines += ["", "**The model's explanation:**", "", fence(o.explanation)]
    if o.truncated_prompt:
        lines += ["", "_The issue text was longer than the limit and was cut._"]
    if o.heal_ran and not o.heal_success:
        lines += ["", *heal_section(o)]
    lines += ["", "Review the changes before merging: they were written by a language model."]
    return "\n".join(lines) + "\n"


_OUR_LINK = re.compile(r"https?://[^\s<>()\[\]|`]+/pull/\d+")


def summary_markdown(title: str, rows: list[tuple[str, str]], extra: str = "") -> str:
    """The job summary: ``title`` and the row values may hold untrusted text (a failure reason,
    a branch name) and are shown as code; the row names are ours. A pull request's address
    (made by GitHub's API for this run) is a link."""
    lines = [f"### git-gpte: {code(title)}", "", "| | |", "|---|---|"]
    lines += [f"| {k} | {f'[{v}]({v})' if _OUR_LINK.fullmatch(v) else cell(v)} |" for k, v in rows]
    if extra:
        lines += ["", extra]
    return "\n".join(lines) + "\n"
