"""The issue flow: an issue (or a ``/gpte`` comment) in, a branch and a pull request out."""

from __future__ import annotations

import re

from ..errors import EXIT_OK, EXIT_PARTIAL, GitHubError
from ..git import Repository, unique_branch
from ..git.config import load_settings
from . import markdown as md
from .client import GitHubClient, PullInfo
from .event import (
    IssueTrigger,
)
from .gate import check_state
from .remote import Remote
from .report import (
    Outcome,
    context_section,
    heal_section,
    pr_head,
    pr_title,
    usage_line,
)
from .sanitize import build_prompt, clean
from .steps import (
    Flow,
    RunContext,
    add_to_story,
    edit_and_heal,
    gate,
    identity,
)
from .story import iteration, with_iteration


class IssueFlow(Flow):
    """An issue (or a ``/gpte`` comment) in, a branch and a pull request out."""

    def __init__(self, ctx: RunContext, client: GitHubClient, trigger: IssueTrigger) -> None:
        s = ctx.settings
        outcome = Outcome(trigger.number, run_url=s.run_url, max_attempts=s.max_attempts)
        super().__init__(ctx, client, trigger.number, outcome)
        self.t = trigger
        self.previous: PullInfo | None = None  # the pull request this run updates

    def refusal(self) -> str | None:
        what = "pull request" if self.t.is_pull_request else "issue"
        state = check_state(self.t.state, self.t.locked, "it")
        decision = gate(self.ctx, self.client, state, self.t)
        return None if decision.allowed else f"{what} #{self.t.number}: {decision.reason}"

    def started(self) -> None:
        self.status.update("started: reading the issue and the repository.")

    # ------------------------------------------------------------------ steps
    def _work(self) -> int:
        s, t = self.s, self.t
        repo = Repository.discover(s.workspace)
        remote = Remote.origin(repo, s.server_url, s.token)
        who = identity(repo)
        target, expect, base_commit = self._target(repo, remote)
        prompt, truncated = build_prompt(
            number=t.number,
            title=t.title,
            body=t.body,
            extra=t.extra,
            kind="pull request" if t.is_pull_request else "issue",
            max_chars=s.max_prompt_chars,
        )
        self.note(branch=target, truncated_prompt=truncated)
        o = self.outcome
        self.ctx.say(f"issue #{t.number}: {t.title}")
        self.ctx.say(f"base {o.base_branch} at {base_commit[:12]}, branch {target}")
        self.status.update(
            f"editing: asking the model for changes (based on {md.code(o.base_branch)})."
        )

        from ..pipeline.context_choice import resolve_context
        from ..pipeline.improve import ImproveRequest

        settings = load_settings(s.workspace, repo.root)
        # The remote branch may exist locally already (a re-run): the local name gets a suffix.
        local = unique_branch(repo, target)
        kind = "pull request" if t.is_pull_request else "issue"
        request = ImproveRequest(
            prompt=prompt,
            model=self.ctx.model,
            base=base_commit,
            branch=local,
            identity=who,
            # The commit says what changed in the issue's words, not the instructions around them.
            subject=clean(t.extra).splitlines()[0] if t.extra.strip() else clean(t.title),
            quoted=f"{kind} #{t.number}: {clean(t.title)}"
            + (f"\n{clean(t.extra)}" if t.extra.strip() else ""),
            context=resolve_context(
                settings,
                ranked_by="\n\n".join(clean(text) for text in (t.title, t.body, t.extra) if text),
            ),
        )
        edit_and_heal(
            self.ctx, self, repo, settings, self.status, request, who, prompt,
            base=base_commit, meta={"issue": t.number},
        )  # fmt: skip

        self.status.update(f"pushing {md.code(target)}.")
        remote.push(self.outcome.commit, target, expect=expect)
        self.pushed = True
        self._open_or_update_pull(target)
        return EXIT_OK if self.outcome.success else EXIT_PARTIAL

    def _target(self, repo: Repository, remote: Remote) -> tuple[str, str | None, str]:
        """(branch to push, its current commit or None when new, commit to base the edit on)."""
        s, t = self.s, self.t
        if t.is_pull_request:
            pr = self.client.pull(t.number)
            if pr.head_repo.lower() != s.repository.lower():
                raise GitHubError(
                    f"pull request #{t.number} comes from a fork; git-gpte cannot push to it"
                )
            head = remote.fetch(pr.head_ref)
            self.note(base_branch=pr.head_ref, pr_number=pr.number, pr_url=pr.url)
            self.previous = pr
            return pr.head_ref, head, head
        base_branch = s.base_branch or self.client.default_branch
        self.note(base_branch=base_branch)
        pattern = re.compile(rf"^{re.escape(s.branch_prefix)}{t.number}(-\d+)?$")
        for pr in self.client.open_pulls(base=base_branch):
            if pr.head_repo.lower() == s.repository.lower() and pattern.match(pr.head_ref):
                # Re-run: build on the pull request's branch, update the pull request.
                head = remote.fetch(pr.head_ref)
                self.note(pr_number=pr.number, pr_url=pr.url, pr_updated=True)
                self.previous = pr
                return pr.head_ref, head, head
        base_commit = remote.fetch(base_branch)
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
        self.note(pr_number=pr.number, pr_url=pr.url)

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
            lines += ["", *heal_section(o, self.s.commit_url)]
        if o.context:
            lines += ["", *context_section(o)]
        self.status.update("\n".join(lines))
        self.ctx.cmds.notice(f"git-gpte {verb} {o.pr_url}", title="git-gpte")
        self._outputs()

    def _failure_note(self) -> str:
        if self.pushed:
            return (
                f"\n\nThe changes were pushed to {md.code(self.outcome.branch)}; "
                "open a pull request from it by hand."
            )
        return "\n\nNothing was pushed."

    def _summary_rows(self) -> list[tuple[str, str]]:
        o = self.outcome
        return [
            ("issue", f"#{o.number}"),
            ("branch", o.branch or "-"),
            ("pull request", o.pr_url or "-"),
        ]
