"""The pre-merge flow: run the heal command on a pull request's head; heal it if it fails."""

from __future__ import annotations

from ..errors import EXIT_OK, GitHubError, GpteError, RunError
from ..git import Repository
from ..git.config import load_settings
from . import markdown as md
from .client import GitHubClient
from .commands import error_line, write_outputs, write_summary
from .event import (
    PullRequestTrigger,
)
from .gate import check_state
from .remote import Remote
from .report import Outcome, summary_markdown, usage_line
from .steps import (
    Flow,
    RunContext,
    add_to_story,
    default_heal_command,
    gate,
    heal,
    identity,
    pull_outcome,
)
from .story import iteration


class PullRequestFlow(Flow):
    """The pre-merge check: run the heal command on the pull request's head, heal if it fails."""

    def __init__(self, ctx: RunContext, client: GitHubClient, trigger: PullRequestTrigger) -> None:
        outcome = pull_outcome(ctx, trigger.number, trigger.head_ref, trigger.base_ref)
        super().__init__(ctx, client, trigger.number, outcome)
        self.t = trigger

    def refusal(self) -> str | None:
        t = self.t
        if not t.head_repo or t.head_repo.lower() != t.base_repo.lower():
            return (
                f"pull request #{t.number} comes from a fork; "
                "the heal check runs on same-repository branches only"
            )
        decision = gate(self.ctx, self.client, check_state(t.state, False, "it"), t)
        return None if decision.allowed else f"pull request #{t.number}: {decision.reason}"

    def _failed(self, exc: GpteError) -> int:
        self.status.update(f"heal check failed to run: {md.code(exc.render())}")
        self.ctx.cmds.error(f"git-gpte: {exc.render()}")
        error_line(exc.render())
        self._check_outputs(False)
        return exc.exit_code

    def _work(self) -> int:
        s, t = self.s, self.t
        repo = Repository.discover(s.workspace)
        remote = Remote.origin(repo, s.server_url, s.token)
        head = remote.fetch(t.head_ref)
        command = default_heal_command(repo, head, s.heal_command)
        if command is None:
            self.ctx.say(
                "no heal-command and no run.sh at the pull request's head: nothing to check"
            )
            self._check_outputs(True)
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
            repo,
            settings,
            command=command,
            base=head,
            prompt=prompt,
            who=identity(repo),
            on_attempt=progress,
        )
        self.outcome = self.outcome.with_heal(healed, command)
        self.note(usage=healed.usage)
        o = self.outcome
        if healed.success and (not healed.commit or healed.commit == head):
            self.status.update(f"check passed: {md.code(command)} succeeds on {head[:12]}.")
            self._check_outputs(True)
            return EXIT_OK
        if healed.success:
            self.note(commit=healed.commit or head)
            self._push_fix(repo, remote, head, command)
            self._check_outputs(True)
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
        self._check_outputs(False)
        return RunError.exit_code

    def _push_fix(self, repo: Repository, remote: Remote, head: str, command: str) -> None:
        t = self.t
        try:
            remote.push(self.outcome.commit, t.head_ref, expect=head)
            self.note(branch=t.head_ref, pr_url=self.client.pull(t.number).url)
            o = self.outcome
            self.status.update(
                f"healed: {md.code(command)} failed on {head[:12]}; "
                f"{o.attempts} heal attempt(s) fixed it and the "
                f"fix was pushed to {md.code(t.head_ref)}. Usage: {usage_line(o)}."
            )
            step = iteration("pre-merge heal", f"make `{command}` pass", o)
            add_to_story(self.ctx, self.client, t.number, step)
            return
        except GitHubError as exc:
            self.ctx.console.warn(
                f"cannot push to {t.head_ref} ({exc.render()}); opening a follow-up pull request"
            )
        o = self.outcome
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
        self.note(branch=name, pr_url=pr.url, pr_number=pr.number)
        self.status.update(
            f"healed: the fix is in the follow-up pull request {pr.url}. Usage: {usage_line(o)}."
        )

    def _check_outputs(self, success: bool) -> None:
        o = self.outcome
        values = {**o.outputs(), "success": "true" if success else "false", "skipped": "false"}
        write_outputs(self.s.output_path, values)
        rows = [
            ("pull request", f"#{self.t.number}"),
            ("result", "passed" if success else "failing"),
            ("heal attempts", str(o.attempts)),
            ("tokens", o.usage.tokens_text()),
            ("cost", o.usage.cost_text()),
        ]
        write_summary(self.s.summary_path, summary_markdown("pre-merge heal", rows))


def pr_body_heal(o: Outcome) -> str:
    return f"{o.attempts} heal attempt(s). Usage: {usage_line(o)}.\n"
