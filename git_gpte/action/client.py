"""The few GitHub REST calls the action makes, through PyGithub.

PyGithub is imported when a client is made, never at module import, so ``git gpte --help`` stays
fast. Every failure becomes a :class:`~git_gpte.errors.GitHubError` naming what was being done.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlsplit

from ..errors import GitHubError
from .event import ReviewComment

T = TypeVar("T")


@dataclass(frozen=True)
class PullInfo:
    number: int
    url: str
    head_ref: str
    head_repo: str
    base_ref: str
    state: str
    title: str
    body: str


@dataclass(frozen=True)
class ReviewInfo:
    id: int
    body: str
    login: str
    state: str


@dataclass(frozen=True)
class IssueInfo:
    number: int
    title: str
    body: str
    state: str
    locked: bool
    is_pull_request: bool


def _pull_info(pr: Any) -> PullInfo:
    return PullInfo(
        number=pr.number,
        url=pr.html_url,
        head_ref=pr.head.ref,
        head_repo=pr.head.repo.full_name if pr.head.repo else "",
        base_ref=pr.base.ref,
        state=pr.state,
        title=pr.title or "",
        body=pr.body or "",
    )


@contextmanager
def _api(what: str) -> Iterator[None]:
    from github import GithubException

    try:
        yield
    except GithubException as exc:
        data = exc.data if isinstance(exc.data, dict) else {}
        detail = str(data.get("message") or exc)
        for err in data.get("errors") or []:
            if isinstance(err, dict) and err.get("message"):
                detail += f": {err['message']}"
        hint = None
        if exc.status == 403 and "pull request" in detail.lower():
            hint = (
                "enable Settings > Actions > General > 'Allow GitHub Actions to create and "
                "approve pull requests', or pass a token that may"
            )
        raise GitHubError(
            f"GitHub API: {what} failed ({exc.status}): {detail}", hint=hint
        ) from None
    except OSError as exc:
        raise GitHubError(f"GitHub API: {what} failed: {exc}") from None


class GitHubClient:
    """One repository on one GitHub (or GitHub Enterprise) API."""

    def __init__(self, api_url: str, token: str, repository: str) -> None:
        from github import Auth, Github

        if not token:
            raise GitHubError(
                "no GitHub token: set GITHUB_TOKEN or the github-token input",
                hint="the workflow needs permissions: contents, issues and pull-requests: write",
            )
        auth = Auth.Token(token)
        # PyGithub paces requests (0.25 s apart, writes 1 s apart) to stay clear of GitHub's
        # secondary rate limits; an API on this machine (a test server, a local proxy) has none.
        local = urlsplit(api_url).hostname in ("127.0.0.1", "localhost", "::1")
        self._gh = Github(
            auth=auth,
            base_url=api_url.rstrip("/"),
            retry=None,
            timeout=30,
            seconds_between_requests=0 if local else 0.25,
            seconds_between_writes=0 if local else 1.0,
        )
        self.repository = repository
        self._comments: dict[int, Any] = {}
        with _api(f"reading repository {repository}"):
            self._repo = self._gh.get_repo(repository)

    def _call(self, what: str, fn: Callable[[], T]) -> T:
        with _api(what):
            return fn()

    # ------------------------------------------------------------------ repository
    @property
    def default_branch(self) -> str:
        return str(self._call("reading the default branch", lambda: self._repo.default_branch))

    def permission(self, login: str) -> str:
        """admin, maintain, write, triage, read or none (404 -> none)."""
        from github import GithubException

        try:
            data = self._repo._requester.requestJsonAndCheck(
                "GET", f"{self._repo.url}/collaborators/{login}/permission"
            )[1]
        except GithubException as exc:
            if exc.status == 404:
                return "none"
            raise GitHubError(f"GitHub API: permission of @{login} failed ({exc.status})") from None
        # role_name knows maintain/triage; the legacy field folds them into write/read.
        return str(data.get("role_name") or data.get("permission") or "none")

    # ------------------------------------------------------------------ issues and comments
    def issue(self, number: int) -> IssueInfo:
        issue = self._call(f"reading issue #{number}", lambda: self._repo.get_issue(number))
        return IssueInfo(
            number=issue.number,
            title=issue.title or "",
            body=issue.body or "",
            state=issue.state,
            locked=bool(issue.locked),
            is_pull_request=issue.pull_request is not None,
        )

    def create_comment(self, number: int, body: str) -> int:
        def create() -> int:
            comment = self._repo.get_issue(number).create_comment(body)
            self._comments[int(comment.id)] = comment
            return int(comment.id)

        return self._call(f"commenting on #{number}", create)

    def find_own_comment(self, number: int, marker: str) -> int | None:
        """The newest comment on #``number`` that starts with ``marker`` and was written by a bot
        (the Actions token comments as ``github-actions[bot]``, an app token as its app), so a
        re-run edits the status comment of the run before instead of adding another. A person's
        comment is never taken, even one that copies the marker."""

        def find() -> int | None:
            for comment in reversed(list(self._repo.get_issue(number).get_comments())):
                user = comment.user
                if (comment.body or "").startswith(marker) and user and user.type == "Bot":
                    self._comments[int(comment.id)] = comment
                    return int(comment.id)
            return None

        return self._call(f"reading the comments of #{number}", find)

    def edit_comment(self, comment_id: int, body: str) -> None:
        """Edit a comment this client created (PyGithub edits through the object's own URL)."""
        self._call("editing the status comment", lambda: self._comments[comment_id].edit(body))

    # ------------------------------------------------------------------ pull requests
    def pull(self, number: int) -> PullInfo:
        return self._call(
            f"reading pull request #{number}", lambda: _pull_info(self._repo.get_pull(number))
        )

    def open_pulls(self, base: str | None = None) -> list[PullInfo]:
        def listing() -> list[PullInfo]:
            kwargs: dict[str, Any] = {"state": "open"}
            if base:
                kwargs["base"] = base
            return [_pull_info(pr) for pr in self._repo.get_pulls(**kwargs)]

        return self._call("listing open pull requests", listing)

    def create_pull(self, *, title: str, body: str, head: str, base: str, draft: bool) -> PullInfo:
        return self._call(
            f"opening a pull request from {head} into {base}",
            lambda: _pull_info(
                self._repo.create_pull(title=title, body=body, head=head, base=base, draft=draft)
            ),
        )

    def update_pull(self, number: int, *, title: str, body: str) -> PullInfo:
        def update() -> PullInfo:
            pr = self._repo.get_pull(number)
            pr.edit(title=title, body=body)
            return _pull_info(pr)

        return self._call(f"updating pull request #{number}", update)

    # ------------------------------------------------------------------ reviews
    def review(self, number: int, review_id: int) -> ReviewInfo:
        def get() -> ReviewInfo:
            review = self._repo.get_pull(number).get_review(review_id)
            return ReviewInfo(
                id=int(review.id),
                body=review.body or "",
                login=review.user.login if review.user else "",
                state=str(review.state or ""),
            )

        return self._call(f"reading review {review_id} of pull request #{number}", get)

    def review_comments(self, number: int, review_id: int | None = None) -> list[ReviewComment]:
        """The line comments of one review, or of the whole pull request (oldest first)."""

        def listing() -> list[ReviewComment]:
            pr = self._repo.get_pull(number)
            found = (
                pr.get_single_review_comments(review_id)
                if review_id is not None
                else pr.get_review_comments()
            )
            # _rawData: the listed JSON as it came (raw_data would fetch every comment again).
            comments = (ReviewComment.from_json(c._rawData) for c in found)
            return sorted(comments, key=lambda c: c.id)

        what = f"review {review_id}" if review_id is not None else "all review comments"
        return self._call(f"reading {what} of pull request #{number}", listing)

    def reply_in_thread(self, number: int, comment_id: int, body: str) -> int:
        """Answer under the review comment ``comment_id`` (the first comment of its thread)."""

        def reply() -> int:
            pr = self._repo.get_pull(number)
            return int(pr.create_review_comment_reply(comment_id, body).id)

        return self._call(f"replying to review comment {comment_id}", reply)
