"""Review comments in, a commit on the pull request's branch and replies in the threads out.

A ``/gpte`` comment on lines of the diff (``pull_request_review_comment``), or a submitted review
whose text starts with ``/gpte`` (``pull_request_review``), asks for a change to the pull request
itself. One run per review: a review's ``/gpte`` text takes all its comments; without it, the
first ``/gpte`` comment of a review takes every ``/gpte`` comment of that review and the events
of the others are skipped. The same gate as issues (association and the permission API) runs
first; pull requests from forks are refused (their branch is not this repository's to push to).
The fix is pushed onto the pull request's branch with a compare-and-swap, so a push made while
git-gpte worked is never overwritten, and the answer goes into each thread it came from.
"""

from __future__ import annotations

from ..errors import EXIT_OK, EXIT_PARTIAL, GitHubError, GpteError
from ..git import Repository, decode_text, unique_branch
from ..git.config import load_settings
from . import markdown as md
from .client import GitHubClient
from .event import Actor, ReviewComment, ReviewTrigger, match_phrase
from .gate import check_actor, check_state
from .remote import Remote
from .report import heal_section, usage_line
from .review_prompt import CommentContext, build_review_prompt, line_range, numbered_excerpt
from .sanitize import clean
from .steps import (
    Flow,
    RunContext,
    add_to_story,
    edit_and_heal,
    gate,
    identity,
    pull_outcome,
)
from .story import iteration


def pushed_or_moved(remote: Remote, commit: str, branch: str, expect: str) -> None:
    """Push ``commit`` onto ``branch`` if it still points at ``expect``; if someone pushed in the
    meantime, say so plainly instead of git's "stale info" (nothing is overwritten either way)."""
    try:
        remote.push(commit, branch, expect=expect)
    except GitHubError:
        now = remote.fetch(branch)
        if now != expect:
            raise GitHubError(
                f"{branch} moved while git-gpte worked (it was {expect[:12]}, now {now[:12]}); "
                "nothing was pushed",
                hint="ask again: the next run starts from the new commits",
            ) from None
        raise


class ReviewFlow(Flow):
    """Answer review comments with a commit on the pull request's own branch."""

    def __init__(self, ctx: RunContext, client: GitHubClient, trigger: ReviewTrigger) -> None:
        outcome = pull_outcome(
            ctx, trigger.number, trigger.head_ref, trigger.head_ref, updated=True
        )
        super().__init__(ctx, client, trigger.number, outcome)
        self.t = trigger
        self.comments: list[ReviewComment] = []
        self._allowed: dict[str, bool] = {}  # login -> may shape the request (thread context)

    # ------------------------------------------------------------------ entry
    def refusal(self) -> str | None:
        t = self.t
        repository = self.s.repository.lower()
        if t.head_repo.lower() != repository or t.base_repo.lower() not in ("", repository):
            return (
                f"pull request #{t.number} comes from a fork; git-gpte pushes only to branches "
                "of this repository"
            )
        decision = gate(
            self.ctx, self.client, check_state(t.state, t.locked, "the pull request"), t
        )
        if not decision.allowed:
            return f"pull request #{t.number}: {decision.reason}"
        chosen = self._choose_comments()
        if isinstance(chosen, str):
            return chosen
        self.comments = chosen
        return None

    def started(self) -> None:
        paths = sorted({c.path for c in self.comments})
        where = ", ".join(md.code(p) for p in paths) or "the pull request"
        self.status.update(f"started: answering review comments on {where}.")

    def _choose_comments(self) -> list[ReviewComment] | str:
        """The comments this run answers, or why another run answers them."""
        t, phrase = self.t, self.s.trigger_phrase
        if t.comment is None:  # a review whose text starts with the phrase: all its comments
            assert t.review_id is not None
            return self.client.review_comments(t.number, t.review_id)
        if t.review_id is None:
            return [t.comment]
        review = self.client.review(t.number, t.review_id)
        if match_phrase(review.body, phrase) is not None:
            return (
                f"review comment {t.comment.id} is part of review {t.review_id}, whose text "
                f"starts with {phrase!r}: that review's run answers it"
            )
        listed = self.client.review_comments(t.number, t.review_id)
        asking = [c for c in listed if match_phrase(c.body, phrase) is not None] or [t.comment]
        if asking[0].id != t.comment.id:
            return (
                f"review comment {t.comment.id} is answered together with comment "
                f"{asking[0].id} of the same review (one run per review)"
            )
        return asking

    # ------------------------------------------------------------------ the work
    def _contexts(self, repo: Repository, head: str) -> list[CommentContext]:
        phrase = self.s.trigger_phrase
        everything: list[ReviewComment] | None = None
        contexts = []
        for c in self.comments:
            thread: tuple[ReviewComment, ...] = ()
            if c.in_reply_to is not None:
                if everything is None:
                    everything = self.client.review_comments(self.t.number)
                thread = tuple(
                    x
                    for x in everything
                    if x.id < c.id and c.in_reply_to in (x.id, x.in_reply_to) and self._may_ask(x)
                )
            excerpt = None
            if c.line is not None and c.side == "RIGHT" and c.path:
                text = self._file_at(repo, head, c.path)
                if text is not None:
                    excerpt = numbered_excerpt(text, c.start_line or c.line, c.line)
            request = match_phrase(c.body, phrase)
            contexts.append(
                CommentContext(c, c.body if request is None else request, thread, excerpt)
            )
        return contexts

    def _may_ask(self, comment: ReviewComment) -> bool:
        """Whether an earlier comment in a thread may shape the request: only someone who could
        have triggered the run (the same gate), so a reader cannot steer it by replying."""
        if comment.login not in self._allowed:
            actor = Actor(comment.login, comment.association, comment.login.endswith("[bot]"))
            self._allowed[comment.login] = check_actor(
                actor,
                allowed_associations=self.s.allowed_associations,
                allowed_bots=self.s.allowed_bots,
                permission=self.client.permission,
            ).allowed
        return self._allowed[comment.login]

    @staticmethod
    def _file_at(repo: Repository, commit: str, path: str) -> str | None:
        entries = [e for e in repo.tree_entries(commit, (f":(literal){path}",)) if e.path == path]
        if not entries or not entries[0].is_regular:
            return None
        return decode_text(repo.read_blob(entries[0].sha))

    def _work(self) -> int:
        s, t = self.s, self.t
        repo = Repository.discover(s.workspace)
        remote = Remote.origin(repo, s.server_url, s.token)
        who = identity(repo)
        head = remote.fetch(t.head_ref)
        contexts = self._contexts(repo, head)
        prompt, truncated = build_review_prompt(
            number=t.number,
            title=t.title,
            comments=contexts,
            extra=t.extra,
            max_chars=s.max_prompt_chars,
        )
        self.note(truncated_prompt=truncated)
        asked = [clean(c.request) for c in contexts if c.request.strip()]
        if t.extra.strip():
            asked.insert(0, clean(t.extra))
        self.ctx.say(f"pull request #{t.number}: {len(self.comments)} review comment(s)")
        self.ctx.say(f"based on {t.head_ref} at {head[:12]}")
        self.status.update(f"editing: asking the model for changes to {md.code(t.head_ref)}.")

        from ..pipeline.context_choice import resolve_context
        from ..pipeline.improve import ImproveRequest

        settings = load_settings(s.workspace, repo.root)
        request = ImproveRequest(
            prompt=prompt,
            subject=(
                asked[0].splitlines()[0]
                if len(asked) == 1
                else f"Address {len(asked)} review comments on #{t.number}"
            ),
            quoted=f"review comments on pull request #{t.number}:\n"
            + "\n".join(f"- {a}" for a in asked),
            model=self.ctx.model,
            base=head,
            branch=unique_branch(repo, f"gpte/review-{t.number}"),
            identity=who,
            # The lines commented on are sent whatever the ranking says.
            context=resolve_context(
                settings,
                pins=[(c.path, n) for c in self.comments for n in (c.start_line, c.line) if n],
            ),
        )
        edit_and_heal(
            self.ctx, self, repo, settings, self.status, request, who, prompt,
            base=head, meta={"pull_request": t.number},
        )  # fmt: skip

        self.status.update(f"pushing onto {md.code(t.head_ref)}.")
        pushed_or_moved(remote, self.outcome.commit, t.head_ref, head)
        self.pushed = True
        return EXIT_OK if self.outcome.success else EXIT_PARTIAL

    # ------------------------------------------------------------------ answers
    def _commit_link(self) -> str:
        o = self.outcome
        url = f"{self.s.server_url.rstrip('/')}/{self.s.repository}/commit/{o.commit}"
        return f"[`{o.commit[:12]}`]({url})"

    def reply_text(self, comment: ReviewComment | None, failed: str | None = None) -> str:
        """The answer in one thread: the commit and what of it concerns this comment's file."""
        o = self.outcome
        if failed is not None:
            tail = (
                "nothing was pushed."
                if not self.pushed
                else f"the commit is on {md.code(o.branch)}."
            )
            return f"**git-gpte** · could not do this: {md.code(failed)}; {tail}"
        lines = [f"**git-gpte** · done in {self._commit_link()}, pushed to {md.code(o.branch)}."]
        if o.files_changed:
            lines.append("Changed: " + ", ".join(md.code(p) for p in o.files_changed) + ".")
        mine = [r for r in o.refused if comment is None or r.startswith(f"{comment.path} hunk")]
        if mine:
            lines += ["", "Refused (could not be placed with confidence, **not** applied):"]
            lines += [f"- {md.code(reason)}" for reason in mine]
        others = len(o.refused) - len(mine)
        if others:
            lines.append(f"{others} refused hunk(s) in other files: see the other threads.")
        if o.heal_ran:
            lines += ["", *heal_section(o, self.s.commit_url)]
        lines += ["", f"Usage: {usage_line(o)}."]
        return "\n".join(lines)

    def _reply_everywhere(self, failed: str | None = None) -> None:
        seen: set[int] = set()
        for comment in self.comments:
            if comment.thread in seen:
                continue
            seen.add(comment.thread)
            try:
                self.client.reply_in_thread(
                    self.t.number, comment.thread, self.reply_text(comment, failed)
                )
            except GitHubError as exc:
                self.ctx.cmds.warning(f"could not reply to review comment: {exc.render()}")

    def _tell_the_story(self) -> None:
        """Add this run to the pull request's body (when git-gpte wrote it)."""
        t = self.t
        asked = [
            f"{c.path} {line_range(c)}: {match_phrase(c.body, self.s.trigger_phrase) or c.body}"
            for c in self.comments
        ]
        step = iteration("review comments", "\n".join([*asked, t.extra]).strip(), self.outcome)
        add_to_story(self.ctx, self.client, t.number, step)

    def _finish(self) -> None:
        o = self.outcome
        self._reply_everywhere()
        self._tell_the_story()
        status = [
            f"done: answered {len(self.comments)} review comment(s) with "
            f"{self._commit_link()} on {md.code(o.branch)}.",
            "",
            f"Usage: {usage_line(o)}.",
        ]
        if o.refused:
            status.append(f"{len(o.refused)} hunk(s) could not be placed and were left out.")
        self.status.update("\n".join(status))
        self.ctx.cmds.notice(f"git-gpte pushed {o.commit[:12]} to {o.branch}", title="git-gpte")
        self._outputs()

    def _failed(self, exc: GpteError) -> int:
        self._reply_everywhere(failed=exc.render())
        return super()._failed(exc)

    def _summary_rows(self) -> list[tuple[str, str]]:
        o = self.outcome
        return [
            ("pull request", f"#{o.number}"),
            ("review comments", str(len(self.comments))),
            ("branch", o.branch if self.pushed else "-"),
            ("commit", o.commit[:12] if self.pushed else "-"),
        ]

    def _summary_title(self, title: str) -> str:
        return f"review comments: {title}"
