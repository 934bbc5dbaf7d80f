"""``improve``: base files + an instruction -> validated edits -> a commit on a new branch.

Three steps other commands compose too (heal, the Action, bench, ``apply --branch``):
:func:`~git_gpte.pipeline.plan.plan` decides what to send (no model call, no writes),
:func:`~git_gpte.pipeline.edit_loop.edit_loop` asks, applies in memory and retries (no git
writes), :func:`~git_gpte.pipeline.commit.commit` makes the commit and creates the branch
create-only. This module is improve's own composition of them: the branch named after the
prompt, ``--from-worktree``, the run-log row and the commit message. The user's work tree,
index, HEAD and current branch are never touched.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..config import Settings
from ..errors import GpteError, Interrupted, UsageError
from ..git import (
    FileChange,
    Repository,
    branch_from_prompt,
    build_commit,
    format_message,
    summary_line,
    unique_branch,
)
from ..git.branch import require_new_branch
from ..ui import Console
from .chain import chained_instruction
from .commit import CommitSpec, commit
from .edit_loop import Edited, edit_loop, python_problems
from .files import CommitFiles
from .plan import Plan, dirty_warning, plan
from .selection import DEFAULT_MAX_FILE_BYTES

if TYPE_CHECKING:
    from ..llm import Run

__all__ = [
    "ImprovePlan",
    "ImproveRequest",
    "ImproveResult",
    "plan_improve",
    "python_problems",
    "recorded",
    "run_improve",
]


@dataclass
class ImproveRequest:
    """What ``git gpte improve`` was asked (its options, nothing other commands need)."""

    prompt: str
    pathspecs: tuple[str, ...] = ()
    model: str | None = None
    base: str = "HEAD"
    branch: str | None = None
    max_retries: int = 2
    edit_format: str = "diff"
    images: tuple[str, ...] = ()
    cache: bool = False
    identity: tuple[str, str] | None = None
    from_worktree: bool = False
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    # --on: add the commit to this existing branch (``base`` is its tip, checked again when the
    # branch moves: a compare-and-swap), telling the model what came before (``history``).
    continue_branch: str | None = None
    history: str = ""


@dataclass
class ImproveResult:
    run_id: str
    branch: str
    commit: str
    base: str
    applied: int
    refused: list[str]
    files_changed: list[str]
    tokens_in: int
    tokens_out: int
    cost_usd: float | None
    exit_code: int
    problems: list[str] = field(default_factory=list)
    attempts: int = 1
    model: str = ""
    files_sent: list[str] = field(default_factory=list)  # the files the model was shown

    def to_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "branch": self.branch,
            "commit": self.commit,
            "base": self.base,
            "model": self.model,
            "files_sent": self.files_sent,
            "applied": self.applied,
            "refused": self.refused,
            "problems": self.problems,
            "files_changed": self.files_changed,
            "attempts": self.attempts,
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "cost_usd": self.cost_usd,
            "exit_code": self.exit_code,
        }


@dataclass
class ImprovePlan:
    """The plan plus what improve decided around it: the branch to create and, with
    ``--from-worktree``, the uncommitted changes the base commit was made from."""

    plan: Plan
    branch: str
    worktree_changes: list[FileChange] = field(default_factory=list)
    expect: str | None = None  # the branch's tip when continuing it; None: a new branch


@contextmanager
def recorded(run: Run) -> Iterator[None]:
    """Finish ``run`` by how the block ends when it ends with an error (success is the
    caller's to record, with its branch and commit); Ctrl-C becomes :class:`Interrupted`."""
    from ..llm import outcome_for

    try:
        yield
    except KeyboardInterrupt:
        run.finish("interrupted", detail="interrupted by the user")
        raise Interrupted("interrupted; nothing committed") from None
    except GpteError as exc:
        run.finish(outcome_for(exc), detail=exc.render())
        raise
    except Exception as exc:
        run.finish("error", detail=f"{type(exc).__name__}: {exc}")
        raise


def resolve_base(repo: Repository, rev: str, console: Console) -> str:
    """The commit ``rev`` names; a detached HEAD is said out loud, since no branch moves."""
    base = repo.resolve_commit(rev)
    if rev == "HEAD" and repo.current_branch() is None:
        console.info(f"HEAD is detached; the edit is based on its commit {base[:12]}")
    return base


def _worktree_changes(repo: Repository, paths: set[str]) -> list[FileChange]:
    changes = []
    for path in sorted(paths):
        full = repo.root / path
        if full.is_symlink():
            continue
        if full.is_file():
            changes.append(
                FileChange(path, full.read_bytes(), executable=bool(full.stat().st_mode & 0o111))
            )
        elif not full.exists():
            changes.append(FileChange(path, None))
    return changes


def worktree_base(
    repo: Repository, base: str, identity: tuple[str, str] | None, console: Console
) -> tuple[str, list[FileChange]]:
    """``--from-worktree``: HEAD plus the uncommitted changes to tracked files, as a commit
    object (no ref points at it until the edit's branch does). Returns (base, changes)."""
    if base != repo.resolve_commit("HEAD"):
        raise UsageError("--from-worktree needs the base to be HEAD (your changes are on HEAD)")
    changes = _worktree_changes(repo, repo.dirty_paths())
    count = len(repo.untracked_files())
    if count:
        console.warn(
            f"{count} untracked file(s) are not included: only tracked files are sent "
            "(git add them to include them)"
        )
    if not changes:
        return base, changes
    message = format_message(
        "Uncommitted changes the edit is based on",
        "Taken from the work tree by git-gpte --from-worktree.",
    )
    return build_commit(repo, base, changes, message, identity=identity), changes


def plan_improve(
    repo: Repository, settings: Settings, request: ImproveRequest, console: Console
) -> ImprovePlan:
    """Base, branch and plan for ``request``. No LLM call; a selection over the model's
    budget is in ``plan.over_budget`` (a dry run shows it, :func:`run_improve` refuses it)."""
    from ..prompts import system_prompt

    if not request.prompt.strip():
        raise UsageError("the prompt is empty")
    base = resolve_base(repo, request.base, console)
    expect = None
    if request.continue_branch:
        if request.from_worktree:
            raise UsageError("--on and --from-worktree cannot be combined")
        branch, expect = request.continue_branch, base
    elif request.branch:
        branch = require_new_branch(repo, request.branch)
    else:
        branch = unique_branch(repo, branch_from_prompt(request.prompt))
    worktree: list[FileChange] = []
    if request.from_worktree:
        base, worktree = worktree_base(repo, base, request.identity, console)
    instruction = request.prompt
    if request.continue_branch:
        instruction = chained_instruction(request.prompt, request.history, branch)
    planned = plan(
        repo,
        settings,
        instruction=instruction,
        base=base,
        system=system_prompt("improve", repo.root, edit_format=request.edit_format),
        pathspecs=request.pathspecs,
        model=request.model,
        images=request.images,
        max_file_bytes=request.max_file_bytes,
    )
    if not request.from_worktree:
        warning = dirty_warning(planned, "use --from-worktree to include them")
        if warning:
            console.warn(warning)
    return ImprovePlan(planned, branch, worktree, expect)


def run_improve(
    repo: Repository,
    settings: Settings,
    request: ImproveRequest,
    console: Console,
    prepared: ImprovePlan | None = None,
    *,
    command: str = "improve",
) -> ImproveResult:
    """Plan, ask, apply, retry, commit on the new branch. Raises a GpteError when nothing is
    committed. ``command`` names the run in the log (the Action records its runs as its own)."""
    from ..llm import LLM, RunLog, api_key

    identity = request.identity or repo.identity()  # fail before spending tokens
    prepared = prepared or plan_improve(repo, settings, request, console)
    planned = prepared.plan
    planned.check()
    api_key(planned.model, settings)  # a missing key is one clear line, before anything is logged
    console.info(f"sending {len(planned.selection.files)} file(s) from {planned.base[:12]}")
    state = repo.state_dir()
    run = RunLog(state).start(
        command=command, prompt=request.prompt, model=planned.model.name, base=planned.base
    )
    llm = LLM(
        planned.model, settings, console=console, cache=request.cache, state_dir=state, run=run
    )
    with recorded(run):
        files = CommitFiles(repo, planned.base, planned.selection.files)
        edited = edit_loop(llm, planned, files, console, max_retries=request.max_retries)
        if not edited.changes:
            error = edited.nothing_committed()
            run.finish("refused" if edited.refused else "no-edits", detail=error.render())
            raise error
        message = format_message(
            summary_line(request.prompt),
            commit_body(prompt_section(request.prompt), edited),
            [("Gpte-Run", run.id), ("Gpte-Model", planned.model.name)],
        )
        spec = CommitSpec(
            prepared.branch,
            planned.base,
            message,
            identity,
            expect=prepared.expect,
            reason=f"git-gpte {command}",
        )
        sha = commit(repo, spec, edited.changes)
    run.finish(
        outcome="partial" if edited.partial else "ok",
        branch=prepared.branch,
        commit=sha,
        detail="; ".join(edited.refused + edited.problems)[:2000],
    )
    totals = llm.totals
    return ImproveResult(
        run_id=run.id,
        branch=prepared.branch,
        commit=sha,
        base=planned.base,
        applied=edited.applied,
        refused=edited.refused,
        problems=edited.other_problems,
        files_changed=sorted(c.path for c in edited.changes),
        tokens_in=totals.tokens_in,
        tokens_out=totals.tokens_out,
        cost_usd=totals.cost_usd,
        exit_code=1 if edited.partial else 0,
        attempts=edited.attempts,
        model=planned.model.name,
        files_sent=sorted(planned.selection.files),
    )


def prompt_section(prompt: str) -> list[str]:
    """The "Prompt:" section of an improve commit's body (the request, indented)."""
    return ["Prompt:", "", *[f"    {line}" for line in prompt.strip().splitlines()]]


def commit_body(opening: list[str], edited: Edited) -> str:
    """A commit body: ``opening`` lines, then the refusals and syntax problems left, if any."""
    body = list(opening)
    if edited.refused:
        body += ["", "Refused hunks (not applied):", *[f"- {line}" for line in edited.refused]]
    syntax = [p for p in edited.other_problems if "SyntaxError" in p or "cannot be compiled" in p]
    if edited.partial and syntax:
        body += ["", "Problems left after the retries:", *[f"- {line}" for line in syntax]]
    return "\n".join(body)
