"""``heal``: run the program; while it fails, send the failure through improve and run again.

Each attempt is one improve on top of the previous attempt (the first on the base commit), so
the heal branch holds one commit per attempt and can be reviewed step by step. The loop is
bounded: it stops on the first green run (exit code 0 — any other exit is a failure), after
``attempts`` fixes, when an attempt yields no usable edit, or when a fix leaves the very same
failure as before (same exit code, same output once run-specific noise is removed), since
asking again with the same evidence would only spend tokens.

Run log: heal runs in one session. Its ``heal`` row is the whole loop (spec, every execution in
``meta.runs``, the final outcome; it makes no model calls itself, so the row has no tokens), and
each fix is a child session: a ``heal-attempt`` row with its model calls, tokens and cost
(``meta.parent_run`` and ``meta.heal_run`` point back). Row totals are thus never counted
twice, and what heal spent is its session's usage, summed as the attempts happen, failed ones
included. The commits carry the attempt's run id as ``Gpte-Run``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ..config import Settings
from ..errors import EditError, GpteError, UsageError
from ..git import Repository, format_message, slugify, summary_line, unique_branch
from ..git.branch import require_new_branch
from ..llm.usage import Spent, Usage
from ..prompts.messages import check_prompt
from ..ui import Console
from .commit import CommitSpec, commit, run_trailers
from .edit_loop import edit_loop
from .files import CommitFiles
from .improve import commit_body
from .places import output_places
from .plan import dirty_warning, plan
from .shown import ContextChoice, resolve_context

if TYPE_CHECKING:
    from ..llm.session import Session
    from ..run import RunOptions, RunResult

DEFAULT_ATTEMPTS = 5
# How far back in first-parent history the spec is looked for (see find_spec).
SPEC_SEARCH_DEPTH = 100
# Lines of the failing output quoted in each attempt's commit message.
BODY_OUTPUT_LINES = 30

OutputCallback = Callable[[bytes], None]
# confirm(preview_text, attempt): return to run, raise to stop (attempt 0 is the base commit).
ConfirmCallback = Callable[[str, int], None]


@dataclass
class HealRequest:
    command: str | None = None  # None: RunOptions defaults (run.sh / gpt-engineer.toml)
    entrypoint: str | None = None
    attempts: int = DEFAULT_ATTEMPTS
    base: str = "HEAD"
    branch: str | None = None  # default gpte/heal-<slug or short sha>, unique suffix
    prompt: str | None = None  # the original spec; default: found through the run log
    timeout: float | None = None
    model: str | None = None
    identity: tuple[str, str] | None = None
    docker: bool = False
    cache: bool = False
    # --on: add the fixes to this existing branch, whose tip is ``base`` (compare-and-swap).
    continue_branch: str | None = None
    # Whether the heal branch is the user's to look at (the Action pushes only the passing
    # commit: its scratch branch is never named in its log).
    name_branch: bool = True


@dataclass
class HealRun:
    """One execution: ``attempt`` 0 is the base commit, n the commit of fix n."""

    attempt: int
    commit: str
    exit_code: int
    timed_out: bool
    summary: str
    duration: float = 0.0
    run_id: str | None = None  # the heal-attempt run that made the commit (None for the base)
    files_changed: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class HealResult(Spent):
    success: bool
    attempts: int
    branch: str | None
    commit: str | None
    usage: Usage
    last_output_tail: str
    runs: list[HealRun]
    stop_reason: str = ""
    run_id: str = ""
    base: str = ""
    model: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "success": self.success,
            "attempts": self.attempts,
            "branch": self.branch,
            "commit": self.commit,
            "base": self.base,
            "model": self.model,
            "run_id": self.run_id,
            "stop_reason": self.stop_reason,
            **self.usage.to_json(),
            "runs": [run.to_json() for run in self.runs],
            "last_output_tail": self.last_output_tail,
        }


# ---------------------------------------------------------------------------- same failure
_WORKTREE = re.compile(r"[^\s\"'(]*gpte-run-[^/\s]*/wt-[0-9a-f]{4,40}")
_HEX = re.compile(r"\b0x[0-9a-fA-F]+\b")
_CLOCK = re.compile(r"\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b")
_DURATION = re.compile(r"\b\d+(?:\.\d+)?\s?(?:ms|us|µs|s|sec|secs|seconds)\b")
_PID = re.compile(r"\b(pid|process) \d+\b", re.I)
# Where in a file: a fix that only moves the failing line has not changed the failure.
_LINE = re.compile(r"\b(line) \d+")
_POSITION = re.compile(r"(\.\w{1,8}):\d+(?::\d+)?\b")


def normalise_output(text: str) -> str:
    """The output with what differs between two runs of the same failure taken out: the
    temporary worktree's path, addresses, clock times, durations, pids, line numbers of
    locations (``line 12``, ``app.py:12:3``) and trailing blanks."""
    text = _WORKTREE.sub("<worktree>", text)
    text = _HEX.sub("0x…", text)
    text = _CLOCK.sub("<time>", text)
    text = _DURATION.sub("<duration>", text)
    text = _PID.sub(r"\1 <n>", text)
    text = _LINE.sub(r"\1 <n>", text)
    text = _POSITION.sub(r"\1:<n>", text)
    return "\n".join(line.rstrip() for line in text.strip().splitlines())


def failure_key(result: RunResult) -> tuple[int, bool, str]:
    """What makes two failed runs "the same failure" (a RunResult in, a comparable key out)."""
    return (result.exit_code, result.timed_out, normalise_output(result.output_excerpt(4000)))


# ---------------------------------------------------------------------------- the spec
def find_spec(repo: Repository, base: str) -> str | None:
    """The specification the code at ``base`` was made from, through the run log.

    The nearest commit in ``base``'s first-parent history (``base`` itself first, at most
    SPEC_SEARCH_DEPTH commits) whose ``Gpte-Run`` trailer names a run in this repository's log:
    an ``init``/``improve`` run gives its prompt (with the clarifications of ``init --clarify``);
    a ``heal-attempt`` run gives the spec it was healing. None when there is no such commit.
    """
    from ..llm import RunLog

    commits = repo.trailer_values(base, "Gpte-Run", SPEC_SEARCH_DEPTH)
    log = RunLog(repo.state_dir())
    try:
        for run_ids in commits:
            for run_id in run_ids:
                try:
                    record = log.get(run_id)
                except GpteError:
                    continue
                if record.command == "heal-attempt":
                    spec = record.meta.get("spec")
                    if spec:
                        return str(spec)
                    continue
                if record.command in ("heal",) or not record.prompt.strip():
                    continue
                return spec_with_clarifications(record.prompt, record.meta)
    finally:
        log.close()
    return None


def spec_with_clarifications(prompt: str, meta: dict[str, Any]) -> str:
    qa = meta.get("clarifications") or []
    if not qa:
        return prompt
    lines = [prompt.strip(), "", "Clarifications:"]
    for item in qa:
        lines += [f"Q: {item.get('question', '').strip()}", f"A: {item.get('answer', '').strip()}"]
    return "\n".join(lines)


# ---------------------------------------------------------------------------- messages
def heal_instruction(
    spec: str | None, feedback: str, history: list[HealRun], attempt: int, total: int
) -> str:
    """The request one attempt sends: the spec, the failure, what was tried (prompts/)."""
    from ..prompts.heal import heal_instruction as text

    earlier = [(r.attempt, r.files_changed, r.summary) for r in history if r.attempt > 0]
    return text(spec, feedback, earlier, attempt, total)


def _commit_body(heal_id: str, attempt: int, result: RunResult) -> str:
    tail = result.output_excerpt().rstrip("\n").splitlines()[-BODY_OUTPUT_LINES:]
    lines = [
        f"Attempt {attempt} of git gpte heal (run {heal_id}) to fix this failure:",
        "",
        f"    {result.command} {result.status_text()}",
    ]
    if tail:
        lines += ["", "End of its output:", "", *[f"    {line}" for line in tail]]
    return "\n".join(lines)


# ---------------------------------------------------------------------------- one attempt
@dataclass
class Fix:
    """One attempt's outcome: its commit (None: no usable edit, ``error`` says why) and what its
    model calls spent, counted whether or not anything was committed."""

    run_id: str
    commit: str | None
    files_changed: list[str]
    usage: Usage
    error: str = ""


def fix_attempt(
    repo: Repository,
    settings: Settings,
    console: Console,
    parent: Session,
    *,
    instruction: str,
    base: str,
    target: CommitSpec,
    model: str | None,
    summary: str,
    body: str,
    meta: dict[str, Any],
    context: ContextChoice | None = None,
) -> Fix:
    """plan -> edit loop -> commit onto ``target`` (its message is made here), in a
    ``heal-attempt`` child session of ``parent``. An attempt with no usable edit is a result,
    not an exception (its usage counts in ``parent`` either way); a reply with an unsafe path
    raises UnsafePathError."""
    planned = plan(
        repo,
        settings,
        instruction=instruction,
        base=base,
        kind="heal",
        model=model,
        context=context or resolve_context(settings),
    )
    warning = dirty_warning(planned, "the committed code is what runs and is edited")
    if warning:
        console.warn(warning)
    planned.check()
    console.info(f"sending {len(planned.selection.files)} file(s) from {base[:12]}")
    session = parent.child(
        "heal-attempt", prompt=instruction, base=base, model=planned.model, meta=meta
    )
    try:
        with session:
            llm = session.client(planned.model)
            files = CommitFiles(repo, base, planned.selection.files)
            edited = edit_loop(llm, planned, files, console)
            if not edited.changes:
                nothing = edited.nothing_committed()
                session.finish("refused" if edited.refused else "no-edits", detail=nothing.render())
                raise nothing
            message = format_message(
                summary_line(summary),
                commit_body(body.strip("\n").splitlines(), edited),
                run_trailers(session.id, planned.model.name),
            )
            sha = commit(repo, replace(target, message=message), edited.changes)
            session.finish(
                "partial" if edited.partial else "ok",
                branch=target.branch,
                commit=sha,
                detail="; ".join(edited.refused + edited.problems)[:2000],
            )
    except EditError as exc:
        # An unsafe path (UnsafePathError) is not a fix that failed: it stops the whole heal
        # with exit 7, nothing written, like improve and apply.
        return Fix(session.id, None, [], session.usage, exc.message)
    return Fix(session.id, sha, sorted(c.path for c in edited.changes), session.usage)


def heal_context(repo: Repository, settings: Settings, base: str, output: str) -> ContextChoice:
    """The configured context choice, with the places the failing output names pinned: the
    lines around each are sent whatever the ranking says (the output is also in the request,
    so the paths it names rank high)."""
    tracked = [entry.path for entry in repo.tree_entries(base)]
    return resolve_context(settings, pins=output_places(output, tracked))


# ---------------------------------------------------------------------------- the loop
def _branch_for(repo: Repository, request: HealRequest, spec: str | None, base: str) -> str:
    if request.branch is not None:
        return require_new_branch(repo, request.branch)
    slug = slugify(spec.strip().splitlines()[0]) if spec and spec.strip() else base[:7]
    return unique_branch(repo, f"gpte/heal-{slug}")


def run_heal(
    repo: Repository,
    settings: Settings,
    request: HealRequest,
    console: Console,
    *,
    on_output: OutputCallback | None = None,
    confirm: ConfirmCallback | None = None,
    after_run: Callable[[int], None] | None = None,
    parent: Session | None = None,
) -> HealResult:
    """Run, fix, commit, run again — bounded. Failures of the program are results; exceptions
    are for what stops the loop itself (LLM errors keep their types, Ctrl-C is Interrupted).

    ``confirm(preview, attempt)`` is called before every execution (the CLI asks there, or
    refuses without --yes on a non-terminal); None runs without asking (the caller decided).
    ``after_run(attempt)`` is called when that execution has ended, whatever its outcome (the
    Action closes the log group of its output there).
    ``parent``: the caller's session (the Action's, bench's), whose usage then includes heal's.
    """
    from ..llm import api_key, resolve_model
    from ..llm.session import Session
    from ..run import RunOptions

    if request.attempts < 0:
        raise UsageError(f"attempts must be 0 or more, got {request.attempts}")
    base = repo.resolve_commit(request.base)
    options = RunOptions.resolve(
        settings,
        entrypoint=request.entrypoint,
        command=request.command,
        timeout=request.timeout,
        docker=request.docker or None,
    )
    options.environment().check()
    identity = request.identity or repo.identity()
    model = resolve_model(request.model, settings)
    api_key(model, settings)  # a missing key is one clear line before anything runs
    spec = request.prompt if request.prompt is not None else find_spec(repo, base)
    if spec is None:
        console.info("no specification found for this commit; healing from the failure alone")
    else:
        check_prompt(spec, "the specification")
    branch = request.continue_branch or _branch_for(repo, request, spec, base)
    meta = {"command": options.command.display, "attempts_allowed": request.attempts}
    if parent is not None:
        session = parent.child("heal", prompt=spec or "", base=base, model=model, meta=meta)
    else:
        session = Session(
            repo.state_dir(),
            "heal",
            settings=settings,
            console=console,
            prompt=spec or "",
            base=base,
            model=model,
            meta=meta,
            cache=request.cache,
        )
    with session:
        return _heal_loop(
            repo,
            settings,
            request,
            console,
            session,
            options=options,
            base=base,
            branch=branch,
            spec=spec,
            identity=identity,
            on_output=on_output,
            confirm=confirm,
            after_run=after_run,
        )


def _heal_loop(
    repo: Repository,
    settings: Settings,
    request: HealRequest,
    console: Console,
    session: Session,
    *,
    options: RunOptions,
    base: str,
    branch: str,
    spec: str | None,
    identity: tuple[str, str],
    on_output: OutputCallback | None,
    confirm: ConfirmCallback | None,
    after_run: Callable[[int], None] | None,
) -> HealResult:
    from ..run import preview, run_commit

    # Continuing a branch: the first fix moves it from its tip, later ones from the last fix.
    start = base if request.continue_branch else None
    assert session.model is not None
    model = session.model
    runs: list[HealRun] = []
    committed: str | None = None
    stop_reason = ""

    def execute(commit: str, attempt: int, run_id: str | None, files: list[str]) -> RunResult:
        if confirm is not None:
            confirm(preview(repo, commit, options), attempt)
        label = "base" if attempt == 0 else f"attempt {attempt}/{request.attempts}"
        console.info(f"{label}: running `{options.command.display}` on {commit[:12]}")
        try:
            result = run_commit(repo, commit, options, on_output=on_output)
        finally:
            if after_run is not None:
                after_run(attempt)
        runs.append(
            HealRun(
                attempt=attempt,
                commit=commit,
                exit_code=result.exit_code,
                timed_out=result.timed_out,
                summary=result.summary(),
                duration=round(result.duration, 3),
                run_id=run_id,
                files_changed=files,
            )
        )
        session.update(meta=_meta(options, request, runs, branch))
        verdict = "passed" if result.success else "failed"
        console.info(f"{label}: {verdict}: {result.summary()}")
        return result

    try:
        result = execute(base, 0, None, [])
        attempt = 0
        while not result.success:
            if attempt >= request.attempts:
                stop_reason = (
                    f"still failing after {attempt} attempt(s)"
                    if attempt
                    else "no fix attempted (attempts: 0)"
                )
                break
            attempt += 1
            console.info(f"attempt {attempt}/{request.attempts}: asking {model.name} for a fix")
            fix = fix_attempt(
                repo,
                settings,
                console,
                session,
                instruction=heal_instruction(
                    spec, result.feedback_text(), runs, attempt, request.attempts
                ),
                base=committed or base,
                target=CommitSpec(
                    branch,
                    committed or base,
                    "",
                    identity,
                    expect=committed or start,
                    reason="git-gpte heal-attempt",
                ),
                model=request.model,
                summary=f"heal: make `{options.command.display}` succeed (attempt {attempt})",
                body=_commit_body(session.id, attempt, result),
                meta={"heal_run": session.id, "attempt": attempt, "spec": spec or ""},
                context=heal_context(repo, settings, committed or base, result.feedback_text()),
            )
            if fix.commit is None:
                stop_reason = f"attempt {attempt} produced no usable edit: {fix.error}"
                console.info(stop_reason)
                break
            committed = fix.commit
            session.progress(
                branch=branch, commit=committed, left=f"attempts so far are on {branch}"
            )
            where = f" on {branch}" if request.name_branch else ""
            console.info(
                f"attempt {attempt}/{request.attempts}: committed {fix.commit[:12]}{where} "
                f"({', '.join(fix.files_changed)})"
            )
            previous = result
            result = execute(fix.commit, attempt, fix.run_id, fix.files_changed)
            if not result.success and failure_key(result) == failure_key(previous):
                stop_reason = f"attempt {attempt} left the same failure as before"
                console.info(stop_reason)
                break
        attempts = attempt
    except GpteError as exc:
        from ..llm import outcome_for

        session.finish(
            outcome_for(exc), branch=_exists(repo, branch), commit=committed, detail=exc.render()
        )
        raise
    success = bool(result.success)
    if success:
        stop_reason = "the program passed" + ("" if attempts else " at once; nothing to heal")
    session.finish(
        "ok" if success else "failed",
        branch=branch if committed else None,
        commit=committed,
        detail=f"{stop_reason}; last run: {result.summary()}",
    )
    return HealResult(
        success=success,
        attempts=attempts,
        branch=branch if committed else None,
        commit=committed,
        usage=session.usage,
        last_output_tail=result.output_tail,
        runs=runs,
        stop_reason=stop_reason,
        run_id=session.id,
        base=base,
        model=model.name,
    )


def _meta(
    options: RunOptions, request: HealRequest, runs: list[HealRun], branch: str
) -> dict[str, Any]:
    return {
        "command": options.command.display,
        "attempts_allowed": request.attempts,
        "branch": branch,
        "runs": [run.to_json() for run in runs],
    }


def _exists(repo: Repository, branch: str) -> str | None:
    return branch if repo.ref_exists(f"refs/heads/{branch}") else None
