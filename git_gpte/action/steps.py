"""The Action's shared steps: the context every flow carries, the one skeleton every flow runs
(refuse or skip -> work -> finish, or fail), the gate, skipping with a neutral note, the
identity to commit as, and the edit and heal steps the flows run."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..config import Settings
from ..errors import EXIT_OK, GitHubError, GpteError, MissingIdentity
from ..git import Repository
from ..ui import Console
from . import markdown as md
from .client import GitHubClient
from .commands import WorkflowCommands, error_line, write_outputs, write_summary
from .event import (
    IssueTrigger,
    PullRequestTrigger,
    ReviewTrigger,
)
from .gate import Decision, check_actor
from .joblog import CheckGroups
from .report import Outcome, summary_markdown, usage_line
from .settings import BOT_IDENTITY, ActionSettings
from .status import StatusComment
from .story import Iteration, has_story, story_head, with_iteration

if TYPE_CHECKING:
    from ..llm.session import Session
    from ..pipeline.heal import HealResult
    from ..pipeline.improve import ImproveRequest


@dataclass
class RunContext:
    """What every step of one Action run reads: its settings, model, workflow commands, console."""

    settings: ActionSettings
    model: str | None
    cmds: WorkflowCommands
    console: Console

    def say(self, message: str) -> None:
        self.console.info(message)


def pull_outcome(
    ctx: RunContext, number: int, head: str, base: str, *, updated: bool = False
) -> Outcome:
    """The outcome of a run on pull request ``number`` (head branch ``head`` into ``base``)."""
    s = ctx.settings
    return Outcome(
        number,
        branch=head,
        base_branch=base,
        run_url=s.run_url,
        max_attempts=s.max_attempts,
        pr_number=number,
        pr_url=s.pull_url(number),
        pr_updated=updated,
    )


def skip(ctx: RunContext, reason: str) -> int:
    """Nothing to do (or not allowed): a neutral note, outputs saying so, exit 0."""
    ctx.cmds.notice(f"git-gpte: nothing done: {reason}", title="git-gpte skipped")
    write_outputs(
        ctx.settings.output_path, {**Outcome(0).outputs(), "success": "false", "skipped": "true"}
    )
    write_summary(ctx.settings.summary_path, summary_markdown("skipped", [("reason", reason)]))
    return EXIT_OK


def gate(
    ctx: RunContext,
    client: GitHubClient,
    decision_state: Decision,
    trigger: IssueTrigger | PullRequestTrigger | ReviewTrigger,
) -> Decision:
    if not decision_state.allowed:
        return decision_state
    return check_actor(
        trigger.actor,
        allowed_associations=ctx.settings.allowed_associations,
        allowed_bots=ctx.settings.allowed_bots,
        permission=client.permission,
    )


def identity(repo: Repository) -> tuple[str, str]:
    """The configured git identity, or the GitHub Actions bot on a runner that has none."""
    try:
        return repo.identity()
    except MissingIdentity:
        return BOT_IDENTITY


def default_heal_command(repo: Repository, commit: str, configured: str | None) -> str | None:
    if configured:
        return configured
    if any(e.path == "run.sh" for e in repo.tree_entries(commit, (":(literal)run.sh",))):
        return "bash run.sh"
    return None


def heal(
    ctx: RunContext,
    repo: Repository,
    settings: Settings,
    *,
    command: str,
    base: str,
    prompt: str,
    who: tuple[str, str],
    on_attempt: Callable[[int], None],
    session: Session | None = None,
) -> HealResult:
    """Run ``command`` on ``base`` and heal failures, up to max-attempts fixes (its usage counts
    in ``session``, the caller's, when there is one); ``Outcome.with_heal`` records it.

    ``on_attempt(k)`` is called before run k (0 is the base): the status comment's progress.
    """
    from ..pipeline.heal import HealRequest, run_heal

    groups = CheckGroups(ctx.cmds, command, ctx.settings.max_attempts)

    def before_run(_preview: str, attempt: int) -> None:
        # The action runs without asking (CI; the gate already decided who may trigger it).
        on_attempt(attempt)
        groups.start(attempt)

    request = HealRequest(
        command=command,
        attempts=ctx.settings.max_attempts,
        base=base,
        branch=None,  # heal picks a fresh gpte/heal-... name; the action pushes the commit
        name_branch=False,  # that local name never reaches GitHub: not in the job log either
        prompt=prompt,
        timeout=ctx.settings.timeout_minutes * 60,
        model=ctx.model,
        identity=who,
        docker=ctx.settings.heal_docker,
    )
    try:
        healed = run_heal(
            repo,
            settings,
            request,
            ctx.console,
            on_output=groups.output,
            confirm=before_run,
            after_run=lambda _attempt: groups.close(),
            parent=session,
        )
    finally:
        groups.close()
    return healed


def add_to_story(ctx: RunContext, client: GitHubClient, number: int, step: Iteration) -> None:
    """Add ``step`` to pull request ``number``'s body when git-gpte wrote that body (its story
    is there); a person's description of their own pull request is left alone. A failure is a
    warning: the commits are pushed already, the body is news about them."""
    try:
        pr = client.pull(number)
        if has_story(pr.body):
            body = with_iteration(story_head(pr.body), pr.body, step)
            client.update_pull(number, title=pr.title, body=body)
    except GitHubError as exc:
        ctx.cmds.warning(f"could not update the pull request's body: {exc.render()}")


def heal_the_edit(
    ctx: RunContext,
    o: Outcome,
    repo: Repository,
    settings: Settings,
    status: StatusComment,
    *,
    command: str,
    who: tuple[str, str],
    prompt: str,
    session: Session | None = None,
) -> Outcome:
    """Self-heal after an edit: run ``command`` on ``o.commit`` and heal failures, the status
    comment following each run. A passing fix replaces the commit (failed attempts stay out of
    what is pushed); the heal runs in ``session`` (the edit's), so its usage counts there."""
    n = ctx.settings.max_attempts

    def progress(attempt: int) -> None:
        what = "checking the edit" if attempt == 0 else f"heal attempt {attempt}/{n}"
        status.update(f"{what}: running {md.code(command)}.")

    healed = heal(
        ctx,
        repo,
        settings,
        command=command,
        base=o.commit,
        prompt=prompt,
        who=who,
        on_attempt=progress,
        session=session,
    )
    o = o.with_heal(healed, command)
    return replace(o, commit=healed.commit) if healed.success and healed.commit else o


def edit_and_heal(
    ctx: RunContext,
    flow: Flow,
    repo: Repository,
    settings: Settings,
    status: StatusComment,
    request: ImproveRequest,
    who: tuple[str, str],
    prompt: str,
    *,
    base: str,
    meta: dict[str, object],
) -> None:
    """The edit every flow that answers a request makes: improve in one ``action`` session
    (on ``base``, with ``meta`` in the run log), its result noted in ``flow``'s outcome, then
    self-heal when configured. The usage is noted however it ends, so the status comment can say
    what a failed run cost."""
    from ..llm.session import Session
    from ..pipeline.improve import run_improve

    session = Session(
        repo.state_dir(),
        "action",
        settings=settings,
        console=ctx.console,
        prompt=prompt,
        base=base,
        meta=meta,
    )
    try:
        with session:
            result = run_improve(repo, settings, request, ctx.console, session=session)
            flow.outcome = flow.outcome.with_improve(result)
            if not ctx.settings.self_heal:
                return
            command = default_heal_command(repo, result.commit, ctx.settings.heal_command)
            if command:
                flow.outcome = heal_the_edit(
                    ctx,
                    flow.outcome,
                    repo,
                    settings,
                    status,
                    command=command,
                    who=who,
                    prompt=prompt,
                    session=session,
                )
            else:
                ctx.say("self-heal: no heal-command and no run.sh; skipped")
    finally:
        flow.note(usage=session.usage)


@dataclass(frozen=True)
class Finished:
    """How a flow ended: the process exit code and what it produced (the outputs, the summary)."""

    exit_code: int
    outcome: Outcome


class Flow:
    """One event's flow, on the skeleton every flow shares: ``refusal`` (why this run does
    nothing: a fork, the gate, another run's comments) -> ``started`` -> ``_work`` (untrusted
    text in the log is inert) -> ``_finish``; a ``GpteError`` goes to ``_failed``. The outcome
    is a value the flow replaces as its steps return (``note``), never one changed in place."""

    def __init__(
        self, ctx: RunContext, client: GitHubClient, number: int, outcome: Outcome
    ) -> None:
        self.ctx = ctx
        self.s = ctx.settings
        self.client = client
        self.outcome = outcome
        self.status = StatusComment(client, number, self.s.run_url, ctx.cmds.warning)
        self.pushed = False

    def note(self, **changes: Any) -> None:
        """The outcome from now on: the current one with ``changes``."""
        self.outcome = replace(self.outcome, **changes)

    def run(self) -> Finished:
        refusal = self.refusal()
        if refusal is not None:
            return Finished(skip(self.ctx, refusal), self.outcome)
        self.started()
        try:
            with self.ctx.cmds.untrusted():
                code = self._work()
        except GpteError as exc:
            return Finished(self._failed(exc), self.outcome)
        self._finish()
        return Finished(code, self.outcome)

    def refusal(self) -> str | None:
        """Why this run does nothing (a neutral skip), or None to go on."""
        raise NotImplementedError

    def started(self) -> None:
        """Say in the status comment that the work began."""

    def _work(self) -> int:
        raise NotImplementedError

    def _finish(self) -> None:
        """After ``_work`` succeeded: the status comment, annotations, outputs."""

    def _failed(self, exc: GpteError) -> int:
        """The run failed: the status comment says why and what it cost (``_failure_note``
        adds what was or was not pushed), the job log ends with it, the outputs say so."""
        reason = exc.render()
        text = f"failed: {md.code(reason)}"
        if self.outcome.usage.spent:
            text += f"\n\nUsage: {usage_line(self.outcome)}."
        self.status.update(text + self._failure_note())
        self.ctx.cmds.error(f"git-gpte: {reason}")
        error_line(reason)
        self._outputs(failed=reason)
        return exc.exit_code

    def _failure_note(self) -> str:
        return "" if self.pushed else "\n\nNothing was pushed."

    def _outputs(self, failed: str | None = None) -> None:
        """The step outputs and the job summary: this flow's rows, then what every edit has."""
        o = self.outcome
        values = {**o.outputs(), "skipped": "false"}
        if failed:
            values["success"] = "false"
            if not self.pushed:
                values["branch"] = ""  # the output names where changes were pushed: nowhere
        write_outputs(self.s.output_path, values)
        rows = [
            *self._summary_rows(),
            ("files changed", str(len(o.files_changed))),
            ("refused hunks", str(len(o.refused))),
            ("heal attempts", str(o.attempts)),
            ("tokens", o.usage.tokens_text()),
            ("cost", o.usage.cost_text()),
        ]
        title = f"failed: {failed}" if failed else ("done" if o.success else "done, with problems")
        write_summary(self.s.summary_path, summary_markdown(self._summary_title(title), rows))

    def _summary_rows(self) -> list[tuple[str, str]]:
        """What the job summary lists first: where this flow's work went."""
        return []

    def _summary_title(self, title: str) -> str:
        return title
