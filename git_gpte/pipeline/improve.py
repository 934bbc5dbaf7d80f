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

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..config import Settings
from ..edit.intent import checked_by_kind
from ..edit.subject import OFF_SUBJECT
from ..errors import BranchExists, GpteError, RepoError, UsageError
from ..git import (
    FileChange,
    Repository,
    branch_from_prompt,
    build_commit,
    format_message,
    unique_branch,
)
from ..git.branch import require_new_branch
from ..llm.usage import ZERO, Spent, Usage
from ..prompts.messages import check_prompt
from ..ui import Console
from .attempt import Message, attempt
from .chain import chained_instruction
from .commit import CommitSpec, commit
from .context_choice import ContextChoice, resolve_context
from .edit_loop import Edited, Verify
from .files import CommitFiles
from .plan import Plan, dirty_warning, plan
from .regression import AUTO, regression_check
from .selection import DEFAULT_MAX_FILE_BYTES
from .verify import judged_by

if TYPE_CHECKING:
    from ..llm.models import ModelInfo
    from ..llm.session import Session

__all__ = [
    "ImprovePlan",
    "ImproveRequest",
    "ImproveResult",
    "plan_improve",
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
    edit_format: str | None = None  # None: as configured, else the model's own
    images: tuple[str, ...] = ()
    cache: bool = False
    identity: tuple[str, str] | None = None
    from_worktree: bool = False
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    # --on: add the commit to this existing branch (``base`` is its tip, checked again when the
    # branch moves: a compare-and-swap), telling the model what came before (``history``).
    continue_branch: str | None = None
    history: str = ""
    context: ContextChoice | None = None  # None: as configured (gpte.context, ...)
    # --check CMD: a shell command the result must pass (run in a temporary worktree), and
    # --keep-failing: commit a result that still fails a check (exit 1) instead of nothing.
    # ``auto``: the project's own tests, failing only on tests the result breaks.
    # default_check: with no check given, the model's default (``--check auto`` for a
    # self-hosted model); False for --no-check.
    check: str | None = None
    keep_failing: bool = False
    default_check: bool = True
    # --probe / --no-probe (None: the model's default, on for a self-hosted model): see
    # pipeline/probe.py.
    probe: bool | None = None
    # The commit message's subject and the request it quotes, when the prompt is not what a
    # person wrote (the Action wraps an issue in instructions): None, the prompt's own.
    subject: str | None = None
    quoted: str | None = None


@dataclass
class ImproveResult(Spent):
    run_id: str
    branch: str
    commit: str
    base: str
    applied: int
    refused: list[str]
    files_changed: list[str]
    exit_code: int
    usage: Usage = ZERO
    problems: list[str] = field(default_factory=list)
    attempts: int = 1
    model: str = ""
    files_sent: list[str] = field(default_factory=list)  # the files the model was shown
    # What the model was sent: mode, budget, files whole or in part, the map, the rounds.
    context: dict[str, Any] = field(default_factory=dict)
    edit_format: str = ""
    format_note: str = ""  # why the edit format is not the one configured
    corrected: list[str] = field(default_factory=list)  # hunks placed with a correction
    checked: bool = False  # --check ran on the committed result
    check: str = ""  # the check that ran: the user's command, or "auto" (the project's tests)
    checked_by: list[str] = field(default_factory=list)  # what judged it, in words
    explanation: str = ""  # the model's words around its edits

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
            "edit_format": self.edit_format,
            "edit_format_note": self.format_note,
            "corrected": self.corrected,
            "checked": self.checked,
            "check": self.check,
            "checked_by": self.checked_by,
            **self.usage.to_json(),
            "exit_code": self.exit_code,
            "context": self.context,
        }


@dataclass
class ImprovePlan:
    """The plan plus what improve decided around it: the branch to create and, with
    ``--from-worktree``, the uncommitted changes the base commit was made from."""

    plan: Plan
    branch: str
    worktree_changes: list[FileChange] = field(default_factory=list)
    expect: str | None = None  # the branch's tip when continuing it; None: a new branch


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
    conflicted = repo.unmerged_paths()
    if conflicted:
        shown = ", ".join(conflicted[:3]) + (" …" if len(conflicted) > 3 else "")
        raise RepoError(
            f"--from-worktree: {len(conflicted)} file(s) have unresolved merge conflicts "
            f"({shown}); their conflict markers would be sent and committed",
            hint="resolve the conflict (or git merge --abort) first",
        )
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
    from ..context.index import terminal_progress

    check_prompt(request.prompt)
    base = resolve_base(repo, request.base, console)
    expect = None
    if request.continue_branch:
        if request.from_worktree:
            raise UsageError("--on and --from-worktree cannot be combined")
        branch, expect = request.continue_branch, base
    elif request.branch is not None:
        branch = require_new_branch(repo, request.branch)
    else:
        branch = unique_branch(repo, branch_from_prompt(request.prompt))
    worktree: list[FileChange] = []
    if request.from_worktree:
        base, worktree = worktree_base(repo, base, request.identity, console)
    instruction = request.prompt
    if request.continue_branch:
        instruction = chained_instruction(request.prompt, request.history, branch)
    choice = request.context or resolve_context(settings)
    planned = plan(
        repo,
        settings,
        instruction=instruction,
        base=base,
        edit_format=request.edit_format,
        pathspecs=request.pathspecs,
        model=request.model,
        images=request.images,
        max_file_bytes=request.max_file_bytes,
        context=choice,
        request=choice.ranked_by,
        progress=None if console.quiet else terminal_progress(),
        kept=_kept(repo, base, request),
    )
    if not request.from_worktree:
        warning = dirty_warning(planned, "use --from-worktree to include them")
        if warning:
            console.warn(warning)
    return ImprovePlan(planned, branch, worktree, expect)


def _kept(repo: Repository, base: str, request: ImproveRequest) -> frozenset[str]:
    """The tests ``--check`` runs, which the model leaves as they are unless the request asks
    to change tests."""
    if not request.check or request.check == AUTO:
        return frozenset()  # auto: a request may change what a test checks, and the test
    from ..edit.intent import asks_to_change_tests
    from .verify import files_the_check_runs

    if asks_to_change_tests(request.prompt):
        return frozenset()
    return files_the_check_runs(request.check, (e.path for e in repo.tree_entries(base)))


def run_improve(
    repo: Repository,
    settings: Settings,
    request: ImproveRequest,
    console: Console,
    prepared: ImprovePlan | None = None,
    *,
    command: str = "improve",
    session: Session | None = None,
) -> ImproveResult:
    """Plan, ask, apply, retry, commit on the new branch. Raises a GpteError when nothing is
    committed. ``command`` names the run in the log (the Action records its runs as its own).

    Runs in ``session`` when the caller has one (the Action, bench), else in a session of its
    own; either way the run is closed however this ends.
    """
    from ..llm import api_key
    from ..llm.session import Session

    identity = request.identity or repo.identity()  # fail before spending tokens
    prepared = prepared or plan_improve(repo, settings, request, console)
    planned = prepared.plan
    planned.check()
    api_key(planned.model, settings)  # a missing key is one clear line, before anything is logged
    console.info(f"sending {len(planned.selection.files)} file(s) from {planned.base[:12]}")
    if session is not None:
        session.update(prompt=request.prompt, base=planned.base)
        return _improve(repo, request, console, prepared, identity, session)
    with Session(
        repo.state_dir(),
        command,
        settings=settings,
        console=console,
        prompt=request.prompt,
        base=planned.base,
        model=planned.model,
        cache=request.cache,
    ) as own:
        return _improve(repo, request, console, prepared, identity, own)


def _improve(
    repo: Repository,
    request: ImproveRequest,
    console: Console,
    prepared: ImprovePlan,
    identity: tuple[str, str],
    session: Session,
) -> ImproveResult:
    planned = prepared.plan
    if planned.format_note:
        console.info(f"asking for {planned.edit_format} edits: {planned.format_note}")
    checks, check, label = _verifier(repo, session.settings, prepared, request, identity, console)
    verify = checks
    rescue = assess = None
    if _probes(request, planned.model):
        from .fix_search import fix_rescue
        from .probe import probe_check

        llm = session.client(planned.model, cache=request.cache)
        probe = probe_check(checks, llm, request.prompt, repo, session.settings, planned.base,
                            identity, console)  # fmt: skip
        rescue = fix_rescue(request.prompt, probe, list(planned.selection.files), console)
        if label is None and not checked_by_kind(request.prompt):  # no check of the user's

            def assess(_: Edited) -> str | None:
                return probe.unverified()

        verify = probe
    files = CommitFiles(repo, planned.base, planned.selection.files)

    def commit_to(message: str, changes: Sequence[FileChange]) -> tuple[str, str]:
        return _commit(repo, prepared, request, changes, message, identity, session.command)

    def refusal(edited: Edited) -> GpteError | None:
        if request.keep_failing:
            return None
        return broken_result(edited, label or _named(judged_by(checks)))

    done = attempt(
        session,
        planned,
        files,
        console,
        message=Message(
            request.subject or request.prompt, prompt_section(request.quoted or request.prompt)
        ),
        commit_to=commit_to,
        max_retries=request.max_retries,
        verify=verify,
        cache=request.cache,
        refuse_broken=refusal,
        rescue=rescue,
        assess=assess,
    )
    edited, branch, sha = done.edited, done.branch, done.commit
    judges = judged_by(verify)
    return ImproveResult(
        run_id=session.id,
        branch=branch,
        commit=sha,
        base=planned.base,
        applied=edited.applied,
        refused=edited.refused,
        problems=edited.other_problems,
        files_changed=sorted(c.path for c in edited.changes),
        exit_code=1 if edited.partial else 0,
        usage=session.own_usage,
        attempts=edited.attempts,
        model=planned.model.name,
        files_sent=sent_labels(planned),
        context=edited.context,
        edit_format=planned.edit_format,
        format_note=planned.format_note,
        corrected=[r.one_line() for r in edited.corrected],
        checked=edited.checked and not edited.failures and bool(judges),
        check=check or "",
        checked_by=judges if edited.checked and not edited.failures else [],
        explanation=edited.explanation,
    )


def _verifier(
    repo: Repository,
    settings: Settings,
    prepared: ImprovePlan,
    request: ImproveRequest,
    identity: tuple[str, str],
    console: Console,
) -> tuple[Verify | None, str | None, str | None]:
    """The check the result must pass (None: none), the check's value (a command or
    ``auto``) and how a refusal names it (None: by what judged the result)."""
    planned = prepared.plan
    check = request.check
    if check is None and request.default_check and planned.model.defaults.test_check:
        check = AUTO
    if not check:
        return None, None, None
    if check == AUTO:
        from .demos import DemoCheck

        tests = regression_check(repo, settings, planned.base, identity, console)
        demos = DemoCheck(tests, repo, settings, planned.base, identity, console)
        return demos, check, None  # named by what judged: the tests, a module's demo
    from .verify import check_command

    command = check_command(repo, settings, planned.base, check, identity, console)
    return command, check, f"`{check}`"


def _named(judges: list[str]) -> str | None:
    """How a refusal names the checks that judged: the one, or "one of its checks (...)"
    (the failure's own first line says which)."""
    if len(judges) < 2:
        return judges[0] if judges else None
    return f"one of its checks ({', '.join(judges)})"


def _probes(request: ImproveRequest, model: ModelInfo) -> bool:
    """Whether results are probed (--probe, --no-probe, else the model's default)."""
    return model.defaults.probe if request.probe is None else request.probe


def broken_result(edited: Edited, check: str | None) -> GpteError:
    """The error for a result that still fails its checks after the retries: nothing is
    committed (``--keep-failing`` commits it with exit 1)."""
    from ..errors import CheckFailed, EditError

    failures = [p for p in edited.failures if not p.advisory]  # what makes it broken
    kinds = {p.kind for p in failures}
    first = failures[0].render().split("\n")[0]
    more = f" (and {len(failures) - 1} more)" if len(failures) > 1 else ""
    tries = f"{edited.attempts} attempt(s)"
    hint = "--keep-failing commits it anyway, with exit code 1"
    if kinds == {"check"}:
        return CheckFailed(
            f"nothing committed: the result still fails {check} after {tries}: {first}",
            hint=hint,
        )
    if kinds <= {"request", OFF_SUBJECT}:
        return EditError(
            f"nothing committed: the edits do not do what the request asks after {tries}: "
            f"{first}{more}",
            hint=hint,
        )
    return EditError(
        f"nothing committed: the edits leave broken code after {tries}: {first}{more}", hint=hint
    )


def _commit(
    repo: Repository,
    prepared: ImprovePlan,
    request: ImproveRequest,
    changes: Sequence[FileChange],
    message: str,
    identity: tuple[str, str],
    command: str,
) -> tuple[str, str]:
    """Commit onto the planned branch, created create-only. A default name another run took
    while the model was answering becomes the next free one (``-2``, ``-3``...) rather than
    losing the paid-for edit; a name the user chose is theirs, and its clash is an error."""
    branch = prepared.branch
    for _ in range(20):
        spec = CommitSpec(
            branch,
            prepared.plan.base,
            message,
            identity,
            expect=prepared.expect,
            reason=f"git-gpte {command}",
        )
        try:
            return branch, commit(repo, spec, changes)
        except BranchExists:
            if request.branch is not None or prepared.expect is not None:
                raise
            branch = unique_branch(repo, branch_from_prompt(request.prompt))
    raise BranchExists(f"branch {branch!r} already exists")


def sent_labels(planned: Plan) -> list[str]:
    """What the model was shown, one entry per file: ``PATH`` when whole, ``PATH:A-B,C-D`` for
    excerpts (as ``git gpte context --format lines`` names ranges), sorted by path."""
    return sorted(
        part.path if part.whole else part.path + ":" + ",".join(f"{a}-{b}" for a, b in part.ranges)
        for part in planned.shown.parts.values()
    )


def prompt_section(prompt: str) -> list[str]:
    """The "Prompt:" section of an improve commit's body (the request, indented)."""
    return ["Prompt:", "", *[f"    {line}" for line in prompt.strip().splitlines()]]
