"""The action's steps: event -> gate -> status -> improve (+ heal) -> push -> pull request.

Order matters for safety: secrets are read, masked and removed from the environment first; the
gate runs before anything costs money; everything the pipelines print (LLM text, the program's
output) is inside a ``::stop-commands::`` block; the push happens last, with the token in the push's
own environment only.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, TextIO

from ..config import Settings
from ..errors import EXIT_OK, EXIT_PARTIAL, GitHubError, GpteError, MissingIdentity, RunError
from ..git import Repository, unique_branch
from ..git.config import load_settings
from ..ui import Console
from . import markdown as md
from .client import GitHubClient, PullInfo
from .commands import WorkflowCommands, error_line, write_outputs, write_summary
from .credentials import installation_token
from .event import (
    DispatchTrigger,
    Ignored,
    IssueTrigger,
    PullRequestTrigger,
    ReviewTrigger,
    Trigger,
    load_event,
    parse_event,
)
from .gate import Decision, check_actor, check_state
from .joblog import CheckGroups
from .remote import Remote
from .report import Outcome, cost_text, pr_head, pr_title, summary_markdown, usage_line
from .sanitize import build_prompt
from .settings import BOT_IDENTITY, LLM_KEY_VARIABLES, ActionSettings, scrub_secrets
from .status import StatusComment
from .story import Iteration, has_story, iteration, story_head, with_iteration

if TYPE_CHECKING:
    from ..pipeline.heal import HealResult

TAIL_CHARS = 3000


@dataclass
class Context:
    settings: ActionSettings
    model: str | None
    cmds: WorkflowCommands
    console: Console

    def say(self, message: str) -> None:
        self.console.info(message)


def run(
    settings: ActionSettings,
    model: str | None,
    *,
    verbose: bool = False,
    quiet: bool = False,
    stream: TextIO | None = None,
) -> int:
    """``git gpte action``: returns the exit code."""
    out = stream if stream is not None else sys.stdout
    cmds = WorkflowCommands(out)
    for name in LLM_KEY_VARIABLES:
        cmds.mask(os.environ.get(name))
    cmds.mask(settings.token)
    cmds.mask(settings.app_private_key)
    scrub_secrets(os.environ)
    console = Console(quiet=quiet, verbose=verbose, stream=out, live=False)
    ctx = Context(settings, model, cmds, console)

    payload = load_event(settings.event_path)
    trigger = parse_event(
        settings.event_name,
        payload,
        label=settings.trigger_label,
        phrase=settings.trigger_phrase,
        issue_number=settings.issue_number,
    )
    if isinstance(trigger, Ignored):
        return skip(ctx, trigger.reason)
    try:
        if settings.app_id:
            token = installation_token(
                settings.api_url, settings.app_id, settings.app_private_key, settings.repository
            )
            cmds.mask(token)
            settings = replace(settings, token=token, app_private_key="")
            ctx.settings = settings
        client = GitHubClient(settings.api_url, settings.token, settings.repository)
        trigger = _resolve_dispatch(client, trigger)
        if isinstance(trigger, PullRequestTrigger):
            return PullRequestFlow(ctx, client, trigger).run()
        if isinstance(trigger, ReviewTrigger):
            from .review import ReviewFlow  # it builds on this module's steps

            return ReviewFlow(ctx, client, trigger).run()
        assert isinstance(trigger, IssueTrigger)
        return IssueFlow(ctx, client, trigger).run()
    except GitHubError as exc:
        # Before the flows' own reporting (reading the repository, the gate): an annotation on
        # the run, outputs that say nothing happened; the CLI prints the one-line error.
        cmds.error(f"git-gpte: {exc.render()}")
        write_outputs(settings.output_path, {**Outcome(0).outputs(), "success": "false"})
        raise


def _resolve_dispatch(client: GitHubClient, trigger: Trigger) -> Trigger:
    if not isinstance(trigger, DispatchTrigger):
        return trigger
    issue = client.issue(trigger.number)
    return IssueTrigger(
        number=issue.number,
        title=issue.title,
        body=issue.body,
        extra="",
        actor=trigger.actor,
        state=issue.state,
        locked=issue.locked,
        is_pull_request=issue.is_pull_request,
        comment_id=None,
    )


def skip(ctx: Context, reason: str) -> int:
    """Nothing to do (or not allowed): a neutral note, outputs saying so, exit 0."""
    ctx.cmds.notice(f"git-gpte: nothing done: {reason}", title="git-gpte skipped")
    write_outputs(
        ctx.settings.output_path, {**Outcome(0).outputs(), "success": "false", "skipped": "true"}
    )
    write_summary(ctx.settings.summary_path, summary_markdown("skipped", [("reason", reason)]))
    return EXIT_OK


def gate(
    ctx: Context,
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


def tail(text: str, limit: int = TAIL_CHARS) -> str:
    return text if len(text) <= limit else "…" + text[-limit:]


def heal(
    ctx: Context,
    o: Outcome,
    repo: Repository,
    settings: Settings,
    *,
    command: str,
    base: str,
    prompt: str,
    who: tuple[str, str],
    on_attempt: Callable[[int], None],
) -> HealResult:
    """Run ``command`` on ``base`` and heal failures, up to max-attempts fixes; what the heal did
    is recorded in ``o`` (its tokens and cost are the caller's to count).

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
        )
    finally:
        groups.close()
    o.heal_ran, o.heal_success, o.attempts = True, healed.success, healed.attempts
    o.heal_runs, o.check_command = list(healed.runs), command
    o.heal_tail = tail(healed.last_output_tail)
    o.heal_stop = healed.stop_reason
    return healed


def add_to_story(ctx: Context, client: GitHubClient, number: int, step: Iteration) -> None:
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
    ctx: Context,
    o: Outcome,
    repo: Repository,
    settings: Settings,
    status: StatusComment,
    *,
    command: str,
    who: tuple[str, str],
    prompt: str,
) -> None:
    """Self-heal after an edit: run ``command`` on ``o.commit`` and heal failures, the status
    comment following each run. A passing fix replaces ``o.commit`` (failed attempts stay out of
    what is pushed); the heal's tokens and cost are added to the edit's."""
    n = ctx.settings.max_attempts

    def progress(attempt: int) -> None:
        what = "checking the edit" if attempt == 0 else f"heal attempt {attempt}/{n}"
        status.update(f"{what}: running {md.code(command)}.")

    healed = heal(
        ctx,
        o,
        repo,
        settings,
        command=command,
        base=o.commit,
        prompt=prompt,
        who=who,
        on_attempt=progress,
    )
    if healed.success and healed.commit:
        o.commit = healed.commit
    o.tokens_in += healed.tokens_in
    o.tokens_out += healed.tokens_out
    o.cost_usd = (
        None if o.cost_usd is None or healed.cost_usd is None else o.cost_usd + healed.cost_usd
    )


class IssueFlow:
    """An issue (or a ``/gpte`` comment) in, a branch and a pull request out."""

    def __init__(self, ctx: Context, client: GitHubClient, trigger: IssueTrigger) -> None:
        self.ctx = ctx
        self.s = ctx.settings
        self.client = client
        self.t = trigger
        self.outcome = Outcome(
            trigger.number, run_url=self.s.run_url, max_attempts=self.s.max_attempts
        )
        self.status = StatusComment(client, trigger.number, self.s.run_url, ctx.cmds.warning)
        self.pushed = False
        self.previous: PullInfo | None = None  # the pull request this run updates

    def run(self) -> int:
        what = "pull request" if self.t.is_pull_request else "issue"
        decision = gate(
            self.ctx,
            self.client,
            check_state(self.t.state, self.t.locked, "it"),
            self.t,
        )
        if not decision.allowed:
            return skip(self.ctx, f"{what} #{self.t.number}: {decision.reason}")
        self.status.update("started: reading the issue and the repository.")
        try:
            with self.ctx.cmds.untrusted():
                code = self._work()
        except GpteError as exc:
            return self._failed(exc)
        self._finish()
        return code

    # ------------------------------------------------------------------ steps
    def _work(self) -> int:
        s, t, o = self.s, self.t, self.outcome
        repo = Repository.discover(s.workspace)
        remote = Remote.origin(repo, s.server_url, s.token)
        who = identity(repo)
        target, expect, base_commit = self._target(repo, remote)
        o.branch = target
        prompt, o.truncated_prompt = build_prompt(
            number=t.number,
            title=t.title,
            body=t.body,
            extra=t.extra,
            kind="pull request" if t.is_pull_request else "issue",
            max_chars=s.max_prompt_chars,
        )
        self.ctx.say(f"issue #{t.number}: {t.title}")
        self.ctx.say(f"base {o.base_branch} at {base_commit[:12]}, branch {target}")
        self.status.update(
            f"editing: asking the model for changes (based on {md.code(o.base_branch)})."
        )

        from ..pipeline.improve import ImproveRequest, run_improve

        settings = load_settings(s.workspace, repo.root)
        # The remote branch may exist locally already (a re-run): the local name gets a suffix.
        local = unique_branch(repo, target)
        request = ImproveRequest(
            prompt=prompt,
            model=self.ctx.model,
            base=base_commit,
            branch=local,
            identity=who,
        )
        result = run_improve(repo, settings, request, self.ctx.console, command="action")
        o.commit = result.commit
        o.files_changed = list(result.files_changed)
        o.files_sent = list(result.files_sent)
        o.applied = result.applied
        o.refused = list(result.refused)
        o.problems = list(result.problems)
        o.model = result.model
        o.tokens_in, o.tokens_out, o.cost_usd = result.tokens_in, result.tokens_out, result.cost_usd

        if s.self_heal:
            command = default_heal_command(repo, result.commit, s.heal_command)
            if command:
                heal_the_edit(
                    self.ctx,
                    o,
                    repo,
                    settings,
                    self.status,
                    command=command,
                    who=who,
                    prompt=prompt,
                )
            else:
                self.ctx.say("self-heal: no heal-command and no run.sh; skipped")

        self.status.update(f"pushing {md.code(target)}.")
        remote.push(o.commit, target, expect=expect)
        self.pushed = True
        self._open_or_update_pull(target)
        return EXIT_OK if o.success else EXIT_PARTIAL

    def _target(self, repo: Repository, remote: Remote) -> tuple[str, str | None, str]:
        """(branch to push, its current commit or None when new, commit to base the edit on)."""
        s, t, o = self.s, self.t, self.outcome
        if t.is_pull_request:
            pr = self.client.pull(t.number)
            if pr.head_repo.lower() != s.repository.lower():
                raise GitHubError(
                    f"pull request #{t.number} comes from a fork; git-gpte cannot push to it"
                )
            head = remote.fetch(pr.head_ref)
            o.base_branch, o.pr_number, o.pr_url = pr.head_ref, pr.number, pr.url
            self.previous = pr
            return pr.head_ref, head, head
        o.base_branch = s.base_branch or self.client.default_branch
        pattern = re.compile(rf"^{re.escape(s.branch_prefix)}{t.number}(-\d+)?$")
        for pr in self.client.open_pulls(base=o.base_branch):
            if pr.head_repo.lower() == s.repository.lower() and pattern.match(pr.head_ref):
                # Re-run: build on the pull request's branch, update the pull request.
                head = remote.fetch(pr.head_ref)
                o.pr_number, o.pr_url, o.pr_updated = pr.number, pr.url, True
                self.previous = pr
                return pr.head_ref, head, head
        base_commit = remote.fetch(o.base_branch)
        return remote.free_branch(f"{s.branch_prefix}{t.number}"), None, base_commit

    def _open_or_update_pull(self, target: str) -> None:
        o, t = self.outcome, self.t
        kind = "/gpte comment" if t.comment_id is not None else f"issue #{t.number}"
        step = iteration(kind, t.extra or f"{t.title}\n\n{t.body}", o)
        before = self.previous.body if self.previous else None
        if t.is_pull_request:
            add_to_story(self.ctx, self.client, t.number, step)  # the commits went onto it
            return
        title = pr_title(t.title, t.number)
        body = with_iteration(pr_head(o), before, step)
        if o.pr_number is not None:
            pr = self.client.update_pull(o.pr_number, title=title, body=body)
        else:
            pr = self.client.create_pull(
                title=title, body=body, head=target, base=o.base_branch, draft=self.s.draft
            )
        o.pr_number, o.pr_url = pr.number, pr.url

    # ------------------------------------------------------------------ endings
    def _finish(self) -> None:
        o = self.outcome
        verb = "updated" if o.pr_updated or self.t.is_pull_request else "opened"
        lines = [
            f"done: {verb} {o.pr_url} from {md.code(o.branch)}.",
            "",
            f"Usage: {usage_line(o)}.",
        ]
        if o.refused:
            lines.append(
                f"{len(o.refused)} hunk(s) could not be placed and were left out "
                "(see the pull request)."
            )
        if o.heal_ran:
            lines.append(
                f"Self-heal: {'passed' if o.heal_success else 'still failing'} "
                f"after {o.attempts} attempt(s) "
                f"of at most {o.max_attempts}."
            )
        self.status.update("\n".join(lines))
        self.ctx.cmds.notice(f"git-gpte {verb} {o.pr_url}", title="git-gpte")
        self._outputs()

    def _failed(self, exc: GpteError) -> int:
        reason = exc.render()
        o = self.outcome
        text = f"failed: {md.code(reason)}"
        if o.tokens_in or o.tokens_out:
            text += f"\n\nUsage: {usage_line(o)}."
        if self.pushed:
            text += (
                f"\n\nThe changes were pushed to {md.code(o.branch)}; "
                "open a pull request from it by hand."
            )
        else:
            text += "\n\nNothing was pushed."
        self.status.update(text)
        self.ctx.cmds.error(f"git-gpte: {reason}")
        error_line(reason)
        self._outputs(failed=reason)
        return exc.exit_code

    def _outputs(self, failed: str | None = None) -> None:
        o = self.outcome
        values = o.outputs()
        if failed:
            values["success"] = "false"
            if not self.pushed:
                values["branch"] = ""  # the output names where changes were pushed: nowhere
        values["skipped"] = "false"
        write_outputs(self.s.output_path, values)
        rows = [
            ("issue", f"#{o.number}"),
            ("branch", o.branch or "-"),
            ("pull request", o.pr_url or "-"),
            ("files changed", str(len(o.files_changed))),
            ("refused hunks", str(len(o.refused))),
            ("heal attempts", str(o.attempts)),
            ("tokens", f"{o.tokens_in:,} in / {o.tokens_out:,} out"),
            ("cost", cost_text(o.cost_usd)),
        ]
        title = f"failed: {failed}" if failed else ("done" if o.success else "done, with problems")
        write_summary(self.s.summary_path, summary_markdown(title, rows))


class PullRequestFlow:
    """The pre-merge check: run the heal command on the pull request's head, heal if it fails."""

    def __init__(self, ctx: Context, client: GitHubClient, trigger: PullRequestTrigger) -> None:
        self.ctx = ctx
        self.s = ctx.settings
        self.client = client
        self.t = trigger
        self.outcome = Outcome(
            trigger.number,
            branch=trigger.head_ref,
            base_branch=trigger.base_ref,
            run_url=self.s.run_url,
            max_attempts=self.s.max_attempts,
            pr_number=trigger.number,
            pr_url=self.s.pull_url(trigger.number),
        )
        self.status = StatusComment(client, trigger.number, self.s.run_url, ctx.cmds.warning)

    def run(self) -> int:
        t = self.t
        if not t.head_repo or t.head_repo.lower() != t.base_repo.lower():
            return skip(
                self.ctx,
                f"pull request #{t.number} comes from a fork; "
                "the heal check runs on same-repository branches only",
            )
        decision = gate(self.ctx, self.client, check_state(t.state, False, "it"), t)
        if not decision.allowed:
            return skip(self.ctx, f"pull request #{t.number}: {decision.reason}")
        try:
            with self.ctx.cmds.untrusted():
                code = self._work()
        except GpteError as exc:
            self.status.update(f"heal check failed to run: {md.code(exc.render())}")
            self.ctx.cmds.error(f"git-gpte: {exc.render()}")
            error_line(exc.render())
            self._outputs(False)
            return exc.exit_code
        return code

    def _work(self) -> int:
        s, t, o = self.s, self.t, self.outcome
        repo = Repository.discover(s.workspace)
        remote = Remote.origin(repo, s.server_url, s.token)
        head = remote.fetch(t.head_ref)
        command = default_heal_command(repo, head, s.heal_command)
        if command is None:
            self.ctx.say(
                "no heal-command and no run.sh at the pull request's head: nothing to check"
            )
            self._outputs(True)
            return EXIT_OK
        settings = load_settings(s.workspace, repo.root)
        prompt = (
            f"The checks of pull request #{t.number} fail. "
            f"Fix the code so that `{command}` succeeds. "
            "Change as little as needed."
        )
        n = s.max_attempts

        def progress(attempt: int) -> None:
            what = "running the check" if attempt == 0 else f"heal attempt {attempt}/{n}"
            self.status.update(f"{what}: {md.code(command)} on {md.code(t.head_ref)}.")

        healed = heal(
            self.ctx,
            o,
            repo,
            settings,
            command=command,
            base=head,
            prompt=prompt,
            who=identity(repo),
            on_attempt=progress,
        )
        o.tokens_in, o.tokens_out, o.cost_usd = healed.tokens_in, healed.tokens_out, healed.cost_usd
        if healed.success and (not healed.commit or healed.commit == head):
            self.status.update(f"check passed: {md.code(command)} succeeds on {head[:12]}.")
            self._outputs(True)
            return EXIT_OK
        if healed.success:
            o.commit = healed.commit or head
            self._push_fix(repo, remote, head, command)
            self._outputs(True)
            return EXIT_OK
        self.status.update(
            f"check failed: {md.code(command)} still fails on {head[:12]} "
            f"after {o.attempts} heal attempt(s)"
            f"{f' ({md.code(o.heal_stop)})' if o.heal_stop else ''}. "
            f"Usage: {usage_line(o)}.\n\nLast output:\n\n{md.fence(o.heal_tail or '(no output)')}"
        )
        # The job log ends with why: one line on stderr and an annotation on the run.
        why = (
            f"pre-merge check failed: `{command}` still fails on {t.head_ref} ({head[:12]}) "
            f"after {o.attempts} heal attempt(s)" + (f": {o.heal_stop}" if o.heal_stop else "")
        )
        self.ctx.cmds.error(why, title="git-gpte pre-merge check")
        error_line(why)
        self._outputs(False)
        return RunError.exit_code

    def _push_fix(self, repo: Repository, remote: Remote, head: str, command: str) -> None:
        o, t = self.outcome, self.t
        try:
            remote.push(o.commit, t.head_ref, expect=head)
            o.branch = t.head_ref
            o.pr_url = self.client.pull(t.number).url
            self.status.update(
                f"healed: {md.code(command)} failed on {head[:12]}; "
                f"{o.attempts} heal attempt(s) fixed it and the "
                f"fix was pushed to {md.code(t.head_ref)}. Usage: {usage_line(o)}."
            )
            o.commit = o.commit or head
            step = iteration("pre-merge heal", f"make `{command}` pass", o)
            add_to_story(self.ctx, self.client, t.number, step)
            return
        except GitHubError as exc:
            self.ctx.console.warn(
                f"cannot push to {t.head_ref} ({exc.render()}); opening a follow-up pull request"
            )
        name = remote.free_branch(f"gpte/heal-{t.number}")
        remote.push(o.commit, name, expect=None)
        body = (
            f"Fixes the failing check of #{t.number} ({md.code(command)}), "
            "found by git-gpte's pre-merge heal.\n\n" + pr_body_heal(o)
        )
        pr = self.client.create_pull(
            title=f"Fix the check of #{t.number}",
            body=body,
            head=name,
            base=t.head_ref,
            draft=self.s.draft,
        )
        o.branch, o.pr_url, o.pr_number = name, pr.url, pr.number
        self.status.update(
            f"healed: the fix is in the follow-up pull request {pr.url}. Usage: {usage_line(o)}."
        )

    def _outputs(self, success: bool) -> None:
        o = self.outcome
        values = {**o.outputs(), "success": "true" if success else "false", "skipped": "false"}
        write_outputs(self.s.output_path, values)
        rows = [
            ("pull request", f"#{self.t.number}"),
            ("result", "passed" if success else "failing"),
            ("heal attempts", str(o.attempts)),
            ("tokens", f"{o.tokens_in:,} in / {o.tokens_out:,} out"),
            ("cost", cost_text(o.cost_usd)),
        ]
        write_summary(self.s.summary_path, summary_markdown("pre-merge heal", rows))


def pr_body_heal(o: Outcome) -> str:
    return f"{o.attempts} heal attempt(s). Usage: {usage_line(o)}.\n"
