"""``heal``: run the program; while it fails, send the failure through improve and run again.

Each attempt is one improve on top of the previous attempt (the first on the base commit), so
the heal branch holds one commit per attempt and can be reviewed step by step. The loop is
bounded: it stops on the first green run (exit code 0 — any other exit is a failure), after
``attempts`` fixes, when an attempt yields no usable edit, or when a fix leaves the very same
failure as before (same exit code, same output once run-specific noise is removed), since
asking again with the same evidence would only spend tokens.

Run log: one ``heal`` row for the whole loop (spec, every execution in ``meta.runs``, the final
outcome; it makes no model calls itself, so it has no tokens), and one ``heal-attempt`` row per
fix made through improve (its model calls, tokens and cost; ``meta.heal_run`` points back).
Totals are thus never counted twice. The commits carry the attempt's run id as ``Gpte-Run``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from ..config import Settings
from ..errors import EditError, GpteError, Interrupted, UnsafePathError, UsageError
from ..git import Repository, slugify, unique_branch
from ..git.branch import require_new_branch
from ..ui import Console

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
class HealResult:
    success: bool
    attempts: int
    branch: str | None
    commit: str | None
    tokens_in: int
    tokens_out: int
    cost_usd: float | None
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
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "cost_usd": self.cost_usd,
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


def failure_key(result: Any) -> tuple[int, bool, str]:
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

    out = repo.git_run(
        "log",
        "--first-parent",
        f"-n{SPEC_SEARCH_DEPTH}",
        "--format=%(trailers:key=Gpte-Run,valueonly,separator=%x20)",
        base,
        "--",
    )
    log = RunLog(repo.state_dir())
    try:
        for line in out.splitlines():
            for run_id in line.split():
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
    """The request improve sends for one attempt: the spec, the failure, what was tried."""
    parts = [
        "The program fails when it is run. Change the files so that the command below succeeds "
        "(exits with code 0) and the program does what the specification asks.",
        "",
        "Specification the program was written from:",
        spec.strip()
        if spec and spec.strip()
        else "(not available: keep what the program does, fix the failure)",
        "",
        f"The failed run (attempt {attempt} of {total}), on the files exactly as shown above:",
        feedback.rstrip(),
    ]
    earlier = [run for run in history if run.attempt > 0]
    if earlier:
        parts += ["", "Earlier fixes on this branch, already in the files shown, did not work:"]
        for run in earlier:
            changed = ", ".join(run.files_changed[:6]) or "no files"
            parts.append(f"- attempt {run.attempt} changed {changed}; then: {run.summary}")
    return "\n".join(parts) + "\n"


def _commit_body(heal_id: str, attempt: int, result: Any) -> str:
    tail = result.output_excerpt().rstrip("\n").splitlines()[-BODY_OUTPUT_LINES:]
    lines = [
        f"Attempt {attempt} of git gpte heal (run {heal_id}) to fix this failure:",
        "",
        f"    {result.command} {result.status_text()}",
    ]
    if tail:
        lines += ["", "End of its output:", "", *[f"    {line}" for line in tail]]
    return "\n".join(lines)


# ---------------------------------------------------------------------------- the loop
def _branch_for(repo: Repository, request: HealRequest, spec: str | None, base: str) -> str:
    if request.branch:
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
) -> HealResult:
    """Run, fix, commit, run again — bounded. Failures of the program are results; exceptions
    are for what stops the loop itself (LLM errors keep their types, Ctrl-C is Interrupted).

    ``confirm(preview, attempt)`` is called before every execution (the CLI asks there, or
    refuses without --yes on a non-terminal); None runs without asking (the caller decided).
    """
    from ..llm import RunLog, api_key, resolve_model
    from ..prompts import system_prompt
    from ..run import RunOptions, preview, run_commit
    from .improve import ImproveRequest, run_improve

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
    branch = _branch_for(repo, request, spec, base)
    system = system_prompt("heal", repo.root)

    log = RunLog(repo.state_dir())
    heal_run = log.start(
        "heal",
        prompt=spec or "",
        model=model.name,
        base=base,
        meta={"command": options.command.display, "attempts_allowed": request.attempts},
    )
    runs: list[HealRun] = []
    tokens_in = tokens_out = 0
    cost: float | None = 0.0
    committed: str | None = None
    stop_reason = ""

    def execute(commit: str, attempt: int, run_id: str | None, files: list[str]) -> Any:
        if confirm is not None:
            confirm(preview(repo, commit, options), attempt)
        label = "base" if attempt == 0 else f"attempt {attempt}/{request.attempts}"
        console.info(f"{label}: running `{options.command.display}` on {commit[:12]}")
        result = run_commit(repo, commit, options, on_output=on_output)
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
        heal_run.update(meta=_meta(options, request, runs, branch))
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
            improve = ImproveRequest(
                prompt=heal_instruction(
                    spec, result.feedback_text(), runs, attempt, request.attempts
                ),
                model=request.model,
                base=committed or base,
                branch=branch,
                extend_branch=committed is not None,
                cache=request.cache,
                identity=identity,
                command="heal-attempt",
                system_prompt=system,
                summary=f"heal: make `{options.command.display}` succeed (attempt {attempt})",
                commit_body=_commit_body(heal_run.id, attempt, result),
            )
            before = _latest_run_id(log)
            try:
                fix = run_improve(repo, settings, improve, console)
            except (EditError, UnsafePathError) as exc:
                stop_reason = f"attempt {attempt} produced no usable edit: {exc.message}"
                console.info(stop_reason)
                spent = _attempt_run_since(log, before)
                if spent is not None:  # its calls were paid for: count them, link the run
                    tokens_in += spent.tokens_in
                    tokens_out += spent.tokens_out
                    cost = None if cost is None or spent.cost_usd is None else cost + spent.cost_usd
                    _link_attempt(log, spent.id, heal_run.id, attempt, spec)
                break
            tokens_in += fix.tokens_in
            tokens_out += fix.tokens_out
            cost = None if cost is None or fix.cost_usd is None else cost + fix.cost_usd
            _link_attempt(log, fix.run_id, heal_run.id, attempt, spec)
            committed = fix.commit
            console.info(
                f"attempt {attempt}/{request.attempts}: committed {fix.commit[:12]} on {branch} "
                f"({', '.join(fix.files_changed)})"
            )
            previous = result
            result = execute(fix.commit, attempt, fix.run_id, fix.files_changed)
            if not result.success and failure_key(result) == failure_key(previous):
                stop_reason = f"attempt {attempt} left the same failure as before"
                console.info(stop_reason)
                break
        attempts = attempt
    except KeyboardInterrupt:
        heal_run.finish("interrupted", branch=_exists(repo, branch), commit=committed)
        raise Interrupted(
            "interrupted" + (f"; attempts so far are on {branch}" if committed else "")
        ) from None
    except GpteError as exc:
        from ..llm import outcome_for

        heal_run.finish(
            outcome_for(exc), branch=_exists(repo, branch), commit=committed, detail=exc.render()
        )
        raise
    success = bool(result.success)
    if success:
        stop_reason = "the program passed" + ("" if attempts else " at once; nothing to heal")
    heal_run.finish(
        "ok" if success else "failed",
        branch=branch if committed else None,
        commit=committed,
        detail=f"{stop_reason}; last run: {result.summary()}",
    )
    log.close()
    return HealResult(
        success=success,
        attempts=attempts,
        branch=branch if committed else None,
        commit=committed,
        tokens_in=tokens_in,
        tokens_out=tokens_out,
        cost_usd=cost,
        last_output_tail=result.output_tail,
        runs=runs,
        stop_reason=stop_reason,
        run_id=heal_run.id,
        base=base,
        model=model.name,
    )


def _meta(options: Any, request: HealRequest, runs: list[HealRun], branch: str) -> dict[str, Any]:
    return {
        "command": options.command.display,
        "attempts_allowed": request.attempts,
        "branch": branch,
        "runs": [run.to_json() for run in runs],
    }


def _link_attempt(log: Any, run_id: str, heal_id: str, attempt: int, spec: str | None) -> None:
    """Note on the attempt's run which heal it belongs to and the spec (find_spec reads it)."""
    from ..llm import Run

    Run(log, run_id).update(meta={"heal_run": heal_id, "attempt": attempt, "spec": spec or ""})


def _latest_run_id(log: Any) -> str | None:
    runs = log.list(limit=1)
    return str(runs[0].id) if runs else None


def _attempt_run_since(log: Any, before: str | None) -> Any:
    """The heal-attempt run that improve recorded after ``before`` (None if there is none)."""
    runs = log.list(limit=1)
    if runs and runs[0].id != before and runs[0].command == "heal-attempt":
        return runs[0]
    return None


def _exists(repo: Repository, branch: str) -> str | None:
    return branch if repo.ref_exists(f"refs/heads/{branch}") else None
