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
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ..config import Settings
from ..context.places import output_places
from ..errors import EditError, GpteError, UsageError
from ..git import FileChange, Repository, slugify, unique_branch
from ..git.branch import require_new_branch
from ..llm.usage import Spent, Usage
from ..prompts.messages import check_prompt
from ..ui import Console
from .attempt import Message, attempt
from .commit import CommitSpec, commit
from .context_choice import ContextChoice, resolve_context
from .files import CommitFiles
from .plan import dirty_warning, plan

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
# From where a run of path characters starts (a program's long line without the worktree in it
# was scanned from each of its characters, in time growing with its square).
_WORKTREE = re.compile(r"(?<![^\s\"'(])[^\s\"'(]*gpte-run-[^/\s]*/wt-[0-9a-f]{4,40}")
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
            files = CommitFiles(repo, base, planned.selection.files)

            def commit_to(message: str, changes: Sequence[FileChange]) -> tuple[str, str]:
                return target.branch, commit(repo, replace(target, message=message), changes)

            done = attempt(
                session,
                planned,
                files,
                console,
                message=Message(summary, body.strip("\n").splitlines()),
                commit_to=commit_to,
            )
            edited, sha = done.edited, done.commit
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
        healer = _Healer(
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
            callbacks=(on_output, confirm, after_run),
        )
        return healer.heal()


class _Healer:
    """One heal: run the base, then while it fails ask for a fix, commit it onto the heal
    branch and run that, until a run passes, the attempts run out, a fix holds no usable edit
    or leaves the same failure. Every run is recorded in ``runs`` and the session's meta."""

    def __init__(
        self,
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
        callbacks: tuple[
            OutputCallback | None, ConfirmCallback | None, Callable[[int], None] | None
        ],
    ) -> None:
        assert session.model is not None
        self.repo, self.settings, self.request = repo, settings, request
        self.console, self.session, self.model = console, session, session.model
        self.options, self.base, self.branch, self.spec = options, base, branch, spec
        self.identity = identity
        self.on_output, self.confirm, self.after_run = callbacks
        # Continuing a branch: the first fix moves it from its tip, later ones from the last fix.
        self.start = base if request.continue_branch else None
        self.runs: list[HealRun] = []
        self.committed: str | None = None

    def heal(self) -> HealResult:
        try:
            result, attempts, stop_reason = self._loop()
        except GpteError as exc:
            from ..llm import outcome_for

            branch = _exists(self.repo, self.branch)
            self.session.finish(
                outcome_for(exc), branch=branch, commit=self.committed, detail=exc.render()
            )
            raise
        success = bool(result.success)
        if success:
            stop_reason = "the program passed" + ("" if attempts else " at once; nothing to heal")
        branch = self.branch if self.committed else None
        self.session.finish(
            "ok" if success else "failed",
            branch=branch,
            commit=self.committed,
            detail=f"{stop_reason}; last run: {result.summary()}",
        )
        return HealResult(
            success=success,
            attempts=attempts,
            branch=branch,
            commit=self.committed,
            usage=self.session.usage,
            last_output_tail=result.output_tail,
            runs=self.runs,
            stop_reason=stop_reason,
            run_id=self.session.id,
            base=self.base,
            model=self.model.name,
        )

    def _loop(self) -> tuple[RunResult, int, str]:
        """(the last run, the fixes attempted, why it stopped when it did not pass)."""
        n = self.request.attempts
        result = self._execute(self.base, 0, None, [])
        attempt = 0
        while not result.success:
            if attempt >= n:
                why = f"still failing after {attempt} attempt(s)" if attempt else ""
                return result, attempt, why or "no fix attempted (attempts: 0)"
            attempt += 1
            self.console.info(f"attempt {attempt}/{n}: asking {self.model.name} for a fix")
            fix = self._fix(attempt, result)
            if fix.commit is None:
                why = f"attempt {attempt} produced no usable edit: {fix.error}"
                self.console.info(why)
                return result, attempt, why
            self._committed(attempt, fix)
            previous = result
            result = self._execute(fix.commit, attempt, fix.run_id, fix.files_changed)
            if not result.success and failure_key(result) == failure_key(previous):
                why = f"attempt {attempt} left the same failure as before"
                self.console.info(why)
                return result, attempt, why
        return result, attempt, ""

    def _execute(
        self, commit: str, attempt: int, run_id: str | None, files: list[str]
    ) -> RunResult:
        """Run the command on ``commit`` (after the caller's confirmation), and record it."""
        from ..run import preview, run_commit

        options = self.options
        if self.confirm is not None:
            self.confirm(preview(self.repo, commit, options), attempt)
        label = "base" if attempt == 0 else f"attempt {attempt}/{self.request.attempts}"
        self.console.info(f"{label}: running `{options.command.display}` on {commit[:12]}")
        try:
            result = run_commit(self.repo, commit, options, on_output=self.on_output)
        finally:
            if self.after_run is not None:
                self.after_run(attempt)
        self.runs.append(
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
        self.session.update(meta=_meta(options, self.request, self.runs, self.branch))
        verdict = "passed" if result.success else "failed"
        self.console.info(f"{label}: {verdict}: {result.summary()}")
        return result

    def _fix(self, attempt: int, failed: RunResult) -> Fix:
        """Ask for a fix of ``failed`` and commit it onto the heal branch (a child session)."""
        on = self.committed or self.base
        feedback = failed.feedback_text()
        n = self.request.attempts
        return fix_attempt(
            self.repo,
            self.settings,
            self.console,
            self.session,
            instruction=heal_instruction(self.spec, feedback, self.runs, attempt, n),
            base=on,
            target=CommitSpec(
                self.branch,
                on,
                "",
                self.identity,
                expect=self.committed or self.start,
                reason="git-gpte heal-attempt",
            ),
            model=self.request.model,
            summary=f"heal: make `{self.options.command.display}` succeed (attempt {attempt})",
            body=_commit_body(self.session.id, attempt, failed),
            meta={"heal_run": self.session.id, "attempt": attempt, "spec": self.spec or ""},
            context=heal_context(self.repo, self.settings, on, feedback),
        )

    def _committed(self, attempt: int, fix: Fix) -> None:
        assert fix.commit is not None
        self.committed = fix.commit
        branch = self.branch
        self.session.progress(
            branch=branch, commit=fix.commit, left=f"attempts so far are on {branch}"
        )
        where = f" on {branch}" if self.request.name_branch else ""
        self.console.info(
            f"attempt {attempt}/{self.request.attempts}: committed {fix.commit[:12]}{where} "
            f"({', '.join(fix.files_changed)})"
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
