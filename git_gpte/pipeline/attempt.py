"""One attempt, as improve and each heal fix make it: ask and edit in memory (the edit loop),
then either refuse with a reason or commit with a message that says what was asked, what was
corrected or refused, and which run and model made it (the trailers). The session is finished
with how it ended, whichever way that is."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..edit.pycheck import Problem
from ..errors import GpteError
from ..git import FileChange, format_message, summary_line
from ..ui import Console
from .commit import run_trailers
from .edit_loop import Edited, Verify, edit_loop
from .files import CommitFiles
from .plan import Plan

if TYPE_CHECKING:
    from ..llm.session import Session

# The kind of the problem a result nothing verified is committed with (see ``assess``).
UNVERIFIED = "unverified"
# Commit the changes with this message: (branch, commit) made.
CommitTo = Callable[[str, Sequence[FileChange]], tuple[str, str]]


@dataclass(frozen=True)
class Message:
    """What the commit message is made of: its subject and the body's opening lines."""

    subject: str
    opening: list[str]


@dataclass(frozen=True)
class Attempted:
    edited: Edited
    branch: str
    commit: str


def attempt(
    session: Session,
    planned: Plan,
    files: CommitFiles,
    console: Console,
    *,
    message: Message,
    commit_to: CommitTo,
    max_retries: int = 2,
    verify: Verify | None = None,
    cache: bool = False,
    refuse_broken: Callable[[Edited], GpteError | None] | None = None,
    rescue: Callable[[Edited], Edited | None] | None = None,
    assess: Callable[[Edited], str | None] | None = None,
) -> Attempted:
    """Edit, then commit through ``commit_to``. No change at all raises (the model answered,
    refused or wrote nothing usable); a result still broken after the retries raises what
    ``refuse_broken`` gives for it (improve without --keep-failing), else is committed (a heal
    fix: the next run of the program judges it). ``rescue`` is given a result with no change or
    with failures, and may give another in its place (see pipeline/fix_search.py); ``assess``
    says why a sound result is not verified (None: it is), which commits it with exit 1."""
    llm = session.client(planned.model, cache=cache)
    edited = edit_loop(llm, planned, files, console, max_retries=max_retries, verify=verify)
    if rescue is not None and (not edited.changes or edited.failures):
        edited = rescue(edited) or edited
        if edited.searched and llm.run is not None:
            llm.run.note("found", edited.searched)
    if assess is not None and edited.changes and not edited.failures:
        said = assess(edited)
        if said is not None:
            edited.failures.append(Problem(UNVERIFIED, "", None, said, advisory=True))
    if not edited.changes:
        error = edited.nothing_committed()
        outcome = "answered" if edited.answer else "refused" if edited.refused else "no-edits"
        session.finish(outcome, detail=error.render())
        raise error
    refusal = refuse_broken(edited) if edited.broken and refuse_broken is not None else None
    if refusal is not None:
        session.finish("failed", detail="; ".join(edited.problems)[:2000])
        raise refusal
    text = format_message(
        summary_line(message.subject),
        commit_body(message.opening, edited),
        run_trailers(session.id, planned.model.name),
    )
    branch, sha = commit_to(text, edited.changes)
    session.finish(
        "partial" if edited.partial else "ok",
        branch=branch,
        commit=sha,
        detail="; ".join(edited.refused + edited.problems)[:2000],
    )
    return Attempted(edited, branch, sha)


def commit_body(opening: list[str], edited: Edited) -> str:
    """A commit body: ``opening`` lines, then the corrections made, the refusals and the
    problems left (a result kept with --keep-failing), if any."""
    body = list(opening)
    if edited.searched:
        body += [
            "",
            f"No answer of the model did this; found by trying {edited.searched}.",
        ]
    if edited.corrected:
        lines = [r.one_line() for r in edited.corrected]
        body += ["", "Corrected while applying:", *[f"- {line}" for line in lines]]
    if edited.refused:
        body += ["", "Refused hunks (not applied):", *[f"- {line}" for line in edited.refused]]
    if edited.failures:
        problems = [p.render().split("\n")[0] for p in edited.failures]
        body += ["", "Problems left after the retries:", *[f"- {line}" for line in problems]]
    return "\n".join(body)
