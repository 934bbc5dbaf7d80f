"""The second step: ask, parse, apply in memory, and ask again for what failed. No git writes.

Refused hunks and Python files that stopped compiling are sent back for a corrected answer, a
bounded number of times. A retry shows only the files that still need work, as they are now
(edits that applied are already in them). The result is the edited files and a report; what
becomes of them (a commit, a branch) is the caller's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..edit import UnreadableFile
from ..edit.render import retry_prompt
from ..errors import EditError
from ..git import FileChange
from ..prompts.context import parse_need
from ..prompts.messages import retry_user_message
from ..ui import Console
from .files import CommitFiles
from .more_context import MoreContext, retry_parts
from .plan import Plan

if TYPE_CHECKING:
    from ..edit import HunkReport
    from ..llm import LLM, Reply


@dataclass
class Edited:
    """What the loop produced: the files (edits laid over the base) and how it went."""

    files: CommitFiles
    changes: list[FileChange]
    reports: list[HunkReport] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)  # refusals still standing, one line each
    problems: list[str] = field(default_factory=list)  # what the last answer left unsolved
    attempts: int = 0
    # What the model was sent and asked for (see context_record), as the run log keeps it.
    context: dict[str, Any] = field(default_factory=dict)

    @property
    def applied(self) -> int:
        return sum(1 for r in self.reports if r.status != "refused")

    @property
    def partial(self) -> bool:
        return bool(self.refused or self.problems)

    @property
    def other_problems(self) -> list[str]:
        """The problems that are not the refusals themselves (e.g. a SyntaxError left)."""
        return [p for p in self.problems if not p.startswith(tuple(self.refused))]

    def nothing_committed(self) -> EditError:
        """The error for a loop that ended with no change to commit."""
        if self.refused:
            reason, detail = "every hunk was refused", "; ".join(self.refused[:3])
        elif self.reports:
            reason, detail = "the edits left every file as it was", ""
        else:
            reason = "the reply held no usable edit"
            detail = f"no diff or SEARCH/REPLACE block in {self.attempts} answer(s)"
        return EditError(f"nothing committed: {reason}" + (f" ({detail})" if detail else ""))


def _may_show(path: str, files: CommitFiles, sent: Mapping[str, str]) -> bool:
    """Whether a retry may show ``path``: a file the model edited without being sent it is not
    shown when the secret-file rules would have left it out (its text would leave the machine
    only because the model guessed its name)."""
    from ..context.rules import secret_content_reason, secret_reason

    if not files.readable(path):
        return False
    if path in sent:
        return True
    return secret_reason(path) is None and secret_content_reason(files[path]) is None


def _unseen(report: HunkReport, files: CommitFiles, sent: Mapping[str, str]) -> HunkReport:
    """``report`` without the closest lines of a file the retry may not show (see _may_show)."""
    from dataclasses import replace

    if report.candidate is None or _may_show(report.path, files, sent):
        return report
    return replace(report, candidate=None)


def python_problems(before: Mapping[str, str], changes: Mapping[str, str | None]) -> list[str]:
    """Python files that compiled before the edit and do not now (pre-existing breakage ignored)."""
    problems = []
    for path, text in changes.items():
        if text is None or not path.endswith(".py"):
            continue
        try:
            compile(text, path, "exec", dont_inherit=True)
        except SyntaxError as exc:
            old = before.get(path)
            if old is not None:
                try:
                    compile(old, path, "exec", dont_inherit=True)
                except SyntaxError:
                    continue
            problems.append(f"{path}:{exc.lineno}: SyntaxError after your edit: {exc.msg}")
        except ValueError as exc:  # e.g. NUL bytes
            problems.append(f"{path}: cannot be compiled after your edit: {exc}")
    return problems


def edit_loop(
    llm: LLM, plan: Plan, files: CommitFiles, console: Console, *, max_retries: int = 2
) -> Edited:
    """Ask with the plan's messages, apply each answer to ``files`` (in memory), retry up to
    ``max_retries`` times while hunks are refused or Python stops compiling.

    With a selected context, a reply that is a need block instead of edits is answered with
    what it asks for (at most ``plan.rounds`` times in all), and each round is noted in the
    run's log (``meta.context``)."""
    from ..edit import apply_reply, parse_reply

    sent = plan.selection.files
    known = list(files.entries)
    messages = plan.messages
    edited = Edited(files=files, changes=[])
    asking = _Asking(llm, plan, files, console)
    # Refusals not yet fixed, per file, with the text each hunk was applied to: a retry that
    # leaves a file's failed hunks out does not make them disappear; only a retry that edits
    # that file clears them.
    outstanding: dict[str, list[tuple[HunkReport, str]]] = {}
    for attempt in range(max_retries + 1):
        edited.attempts = attempt + 1
        if attempt:
            console.info(f"retry {attempt}/{max_retries}: asking for what failed")
        reply = llm.ask(messages, images=plan.images if attempt == 0 else ())
        messages, reply = asking.answer_needs(messages, reply)
        parsed = parse_reply(reply.text, "auto")
        problems = []
        if not parsed.edits:
            problems.append("Your reply contained no edits in the requested format.")
        else:
            earlier = dict(files.changes)
            result = apply_reply(files, parsed, known_paths=known)
            edited.reports.extend(result.reports)
            for report in result.reports:
                console.detail(report.one_line())
            files.changes.update(result.files)
            for path in {r.path for r in result.reports if r.status != "refused"}:
                outstanding.pop(path, None)
            for path in {r.path for r in result.refused}:
                prior = earlier.get(path) if path in earlier else _original(files, path)
                outstanding[path] = [(r, prior or "") for r in result.refused if r.path == path]
        still_refused = [r for mine in outstanding.values() for r, _ in mine]
        edited.refused = [_report_line(r) for r in still_refused]
        if still_refused:
            problems.append(retry_prompt([_unseen(r, files, sent) for r in still_refused]))
        syntax = python_problems(_originals(files), files.changes)
        problems += syntax
        edited.problems = problems
        if not problems or attempt == max_retries:
            break
        broken = {
            p
            for p, text in files.changes.items()
            if text is not None and any(line.startswith(f"{p}:") for line in syntax)
        }
        failed_paths = sorted(set(outstanding) | broken)
        parts = retry_parts(
            [p for p in failed_paths if _may_show(p, files, sent)],
            files,
            plan.shown,
            outstanding,
            syntax,
        )
        messages = [
            messages[0],
            {
                "role": "user",
                "content": retry_user_message(
                    parts, plan.instruction, "\n\n".join(problems), attempt + 1
                ),
            },
        ]
    edited.changes = files.file_changes()
    edited.context = asking.log
    return edited


def _original(files: CommitFiles, path: str) -> str | None:
    try:
        return files.original(path)
    except (KeyError, UnreadableFile):
        return None


def _originals(files: CommitFiles) -> dict[str, str]:
    """The base text of every edited file that had one (what "compiled before" is checked on)."""
    out = {}
    for path in files.changes:
        text = _original(files, path) if path in files.entries else None
        if text is not None:
            out[path] = text
    return out


class _Asking:
    """The rounds in which the model asks for more context instead of editing."""

    def __init__(self, llm: LLM, plan: Plan, files: CommitFiles, console: Console) -> None:
        self.llm = llm
        self.plan = plan
        self.console = console
        self.used = 0
        self.more = MoreContext(plan, plan.shown, files) if plan.shown is not None else None
        self.log: dict[str, Any] = context_record(plan)
        self._note()

    def _note(self) -> None:
        if self.llm.run is not None:
            self.llm.run.note("context", self.log)

    def answer_needs(
        self, messages: list[dict[str, str]], reply: Reply
    ) -> tuple[list[dict[str, str]], Reply]:
        """Answer need blocks while rounds are left; returns the conversation and last reply."""
        from ..edit import parse_reply
        from ..llm import estimate_tokens

        while self.more is not None and self.used < self.plan.rounds:
            items = parse_need(reply.text)
            if items is None or parse_reply(reply.text, "auto").edits:
                break
            self.used += 1
            asked = [*messages, {"role": "assistant", "content": reply.text}]
            used, _ = estimate_tokens(asked, self.plan.model.name)
            text, record = self.more.answer(items, used, self.used, self.plan.rounds - self.used)
            self.console.info(
                f"round {self.used}/{self.plan.rounds}: the model asked for "
                f"{', '.join(record.asked) or 'more (nothing readable)'}; given "
                f"{', '.join(record.given) or 'nothing'}"
            )
            self.log["rounds"].append(record.to_json())
            self._note()
            messages = [*asked, {"role": "user", "content": text}]
            reply = self.llm.ask(messages)
        return messages, reply


def context_record(plan: Plan) -> dict[str, Any]:
    """What the run log keeps about the context sent: the mode, budget, parts and the map."""
    if plan.shown is None:
        return {"mode": "all", "files": sorted(plan.selection.files), "rounds": []}
    selection = plan.shown.selection
    return {
        "mode": "selected",
        "budget": plan.context_budget,
        "sent": plan.shown.summary(),
        "map": [entry.path for entry in selection.map] if selection else [],
        "rounds_allowed": plan.rounds,
        "rounds": [],
    }


def _report_line(report: HunkReport) -> str:
    where = f"{report.path} hunk {report.hunk}"
    return f"{where}: {report.detail}" if report.detail else where
