"""The webhook payload turned into what the action should do.

Pure functions over the parsed JSON of ``$GITHUB_EVENT_PATH``: no API calls here. The result is
an :class:`IssueTrigger` (work on an issue, or a pull request's conversation), a
:class:`PullRequestTrigger` (the pre-merge heal check), a :class:`ReviewTrigger` (a ``/gpte``
comment on lines of a pull request's diff, or a review that starts with it), a
:class:`DispatchTrigger` (an issue number given by hand), or :class:`Ignored` with the reason,
shown to the user as a neutral note.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..errors import UsageError


@dataclass(frozen=True)
class Actor:
    """Whoever asked for the run: the person who labelled, commented, opened or pushed."""

    login: str
    association: str | None  # None when the payload does not tell (a label added by someone else)
    is_bot: bool


@dataclass(frozen=True)
class IssueTrigger:
    number: int
    title: str
    body: str
    extra: str  # the comment's text after the trigger phrase
    actor: Actor
    state: str
    locked: bool
    is_pull_request: bool  # a /gpte comment on a pull request's conversation
    comment_id: int | None


@dataclass(frozen=True)
class PullRequestTrigger:
    number: int
    title: str
    head_ref: str
    head_sha: str
    head_repo: str
    base_ref: str
    base_repo: str
    actor: Actor
    state: str
    action: str


@dataclass(frozen=True)
class ReviewComment:
    """A comment on lines of a pull request's diff, as the webhook and the REST API give it."""

    id: int
    body: str
    path: str
    line: int | None  # the last line commented on; None when the comment is outdated
    start_line: int | None  # the first line of a multi-line comment
    original_line: int | None  # the line in the commit the comment was written on
    side: str  # RIGHT: the new version of the file; LEFT: the old one
    diff_hunk: str
    in_reply_to: int | None  # the thread's first comment, for a reply
    review_id: int | None
    login: str
    association: str | None

    @property
    def thread(self) -> int:
        """The comment a reply goes under (GitHub threads replies under the first comment)."""
        return self.in_reply_to or self.id

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ReviewComment:
        def number(key: str) -> int | None:
            value = data.get(key)
            return int(value) if isinstance(value, int) else None

        login, _ = _user(data.get("user"))
        return cls(
            id=int(data["id"]),
            body=str(data.get("body") or ""),
            path=str(data.get("path") or ""),
            line=number("line"),
            start_line=number("start_line"),
            original_line=number("original_line"),
            side=str(data.get("side") or "RIGHT"),
            diff_hunk=str(data.get("diff_hunk") or ""),
            in_reply_to=number("in_reply_to_id"),
            review_id=number("pull_request_review_id"),
            login=login,
            association=data.get("author_association"),
        )


@dataclass(frozen=True)
class ReviewTrigger:
    """A ``/gpte`` line comment on a pull request's diff (``comment`` set), or a submitted review
    whose body starts with the trigger phrase (``comment`` None; its comments are fetched)."""

    number: int
    title: str
    head_ref: str
    head_repo: str
    base_repo: str
    actor: Actor
    state: str
    locked: bool
    review_id: int | None
    comment: ReviewComment | None
    extra: str  # the review's text after the trigger phrase


@dataclass(frozen=True)
class DispatchTrigger:
    number: int
    actor: Actor


@dataclass(frozen=True)
class Ignored:
    reason: str


Trigger = IssueTrigger | PullRequestTrigger | ReviewTrigger | DispatchTrigger | Ignored


def load_event(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except OSError as exc:
        raise UsageError(f"cannot read the event file {path}: {exc.strerror}") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise UsageError(f"the event file {path} is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise UsageError(f"the event file {path} does not hold a JSON object")
    return data


def _user(obj: Any) -> tuple[str, bool]:
    user = obj if isinstance(obj, dict) else {}
    login = str(user.get("login") or "")
    is_bot = user.get("type") == "Bot" or login.endswith("[bot]")
    return login, is_bot


def _labels(issue: dict[str, Any]) -> list[str]:
    return [
        str(label.get("name", "")) for label in issue.get("labels") or [] if isinstance(label, dict)
    ]


def match_phrase(body: str, phrase: str) -> str | None:
    """The text after ``phrase`` when the comment starts with it (as a word), else None."""
    text = body.lstrip()
    if not phrase or not text.startswith(phrase):
        return None
    rest = text[len(phrase) :]
    if rest and not re.match(r"\s", rest):
        return None  # "/gpteX" is not "/gpte"
    return rest.strip()


def _number(value: Any, what: str) -> int:
    """A positive whole number from the event file (a hand-edited or forged event is input
    like any other: one clear line, not a traceback)."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise UsageError(f"the event's {what} is not a whole number: {value!r}")
    try:
        number = int(str(value).strip())
    except ValueError:
        raise UsageError(f"the event's {what} is not a whole number: {value!r}") from None
    if number <= 0:
        raise UsageError(f"the event's {what} must be above 0, got {number}")
    return number


def _issue_trigger(
    issue: dict[str, Any], actor: Actor, extra: str, comment_id: int | None
) -> IssueTrigger:
    return IssueTrigger(
        number=_number(issue["number"], "issue number"),
        title=str(issue.get("title") or ""),
        body=str(issue.get("body") or ""),
        extra=extra,
        actor=actor,
        state=str(issue.get("state") or "open"),
        locked=bool(issue.get("locked")),
        is_pull_request=bool(issue.get("pull_request")),
        comment_id=comment_id,
    )


def _review_trigger(name: str, action: str, payload: dict[str, Any], phrase: str) -> Trigger:
    pr = payload.get("pull_request")
    if not isinstance(pr, dict):
        raise UsageError(f"the {name} event has no pull request in it")
    comment: ReviewComment | None = None
    if name == "pull_request_review_comment":
        if action != "created":
            return Ignored(f"{name}/{action} does not start a run")
        data = payload.get("comment")
        if not isinstance(data, dict) or "id" not in data:
            raise UsageError(f"the {name} event has no comment in it")
        comment = ReviewComment.from_json(data)
        if match_phrase(comment.body, phrase) is None:
            return Ignored(f"the review comment does not start with {phrase!r}")
        extra, review_id, author = "", comment.review_id, data.get("user")
        association = comment.association
    else:
        if action != "submitted":
            return Ignored(f"{name}/{action} does not start a run")
        review = payload.get("review")
        if not isinstance(review, dict) or "id" not in review:
            raise UsageError(f"the {name} event has no review in it")
        found = match_phrase(str(review.get("body") or ""), phrase)
        if found is None:
            return Ignored(f"the review's text does not start with {phrase!r}")
        extra, review_id, author = found, int(review["id"]), review.get("user")
        association = review.get("author_association")
    login, is_bot = _user(author)
    head, base = pr.get("head") or {}, pr.get("base") or {}
    return ReviewTrigger(
        number=int(pr.get("number") or 0),
        title=str(pr.get("title") or ""),
        head_ref=str(head.get("ref") or ""),
        head_repo=str((head.get("repo") or {}).get("full_name") or ""),
        base_repo=str((base.get("repo") or {}).get("full_name") or ""),
        actor=Actor(login, association, is_bot),
        state=str(pr.get("state") or "open"),
        locked=bool(pr.get("locked")),
        review_id=review_id,
        comment=comment,
        extra=extra,
    )


@dataclass(frozen=True)
class Delivery:
    """One event as delivered: its action, payload and sender, and the workflow's settings
    that decide whether it starts a run (the trigger label and phrase, a dispatched number)."""

    name: str
    action: str
    payload: dict[str, Any]
    sender: str
    sender_bot: bool
    label: str
    phrase: str
    issue_number: int | None


def parse_event(
    name: str,
    payload: dict[str, Any],
    *,
    label: str,
    phrase: str,
    issue_number: int | None = None,
) -> Trigger:
    """The trigger an event is (or why it is ignored), by the event table."""
    parser = EVENTS.get(name)
    if parser is None:
        return Ignored(f"the {name!r} event does not start a run")
    sender, sender_bot = _user(payload.get("sender"))
    action = str(payload.get("action") or "")
    return parser(Delivery(name, action, payload, sender, sender_bot, label, phrase, issue_number))


def _issues(d: Delivery) -> Trigger:
    issue = d.payload.get("issue")
    if not isinstance(issue, dict) or "number" not in issue:
        raise UsageError("the issues event has no issue in it")
    author, author_bot = _user(issue.get("user"))
    if d.action == "labeled":
        added = str((d.payload.get("label") or {}).get("name") or "")
        if added != d.label:
            return Ignored(f"label {added!r} is not the trigger label {d.label!r}")
    elif d.action == "opened":
        if d.label not in _labels(issue):
            return Ignored(f"the new issue does not carry the trigger label {d.label!r}")
    else:
        return Ignored(f"issues/{d.action} does not start a run")
    # The association in the payload is the issue author's: it speaks for the sender only
    # when they are the same person. Otherwise the permission API alone decides.
    association = issue.get("author_association") if d.sender == author else None
    actor = Actor(d.sender or author, association, d.sender_bot if d.sender else author_bot)
    return _issue_trigger(issue, actor, "", None)


def _issue_comment(d: Delivery) -> Trigger:
    if d.action != "created":
        return Ignored(f"issue_comment/{d.action} does not start a run")
    issue, comment = d.payload.get("issue"), d.payload.get("comment")
    if not isinstance(issue, dict) or not isinstance(comment, dict):
        raise UsageError("the issue_comment event has no issue or comment in it")
    extra = match_phrase(str(comment.get("body") or ""), d.phrase)
    if extra is None:
        return Ignored(f"the comment does not start with {d.phrase!r}")
    login, is_bot = _user(comment.get("user"))
    actor = Actor(login, comment.get("author_association"), is_bot)
    comment_id = _number(comment["id"], "comment id") if comment.get("id") else None
    return _issue_trigger(issue, actor, extra, comment_id)


def _pull_request(d: Delivery) -> Trigger:
    if d.action not in ("opened", "synchronize", "reopened"):
        return Ignored(f"pull_request/{d.action} does not start a heal check")
    pr = d.payload.get("pull_request")
    if not isinstance(pr, dict):
        raise UsageError("the pull_request event has no pull request in it")
    head, base = pr.get("head") or {}, pr.get("base") or {}
    login, is_bot = _user(pr.get("user"))
    # On synchronize the pusher is the sender; the payload gives the PR author's association.
    actor_login = d.sender or login
    association = pr.get("author_association") if actor_login == login else None
    return PullRequestTrigger(
        number=_number(pr.get("number") or d.payload.get("number"), "pull request number"),
        title=str(pr.get("title") or ""),
        head_ref=str(head.get("ref") or ""),
        head_sha=str(head.get("sha") or ""),
        head_repo=str((head.get("repo") or {}).get("full_name") or ""),
        base_ref=str(base.get("ref") or ""),
        base_repo=str((base.get("repo") or {}).get("full_name") or ""),
        actor=Actor(actor_login, association, d.sender_bot if d.sender else is_bot),
        state=str(pr.get("state") or "open"),
        action=d.action,
    )


def _review(d: Delivery) -> Trigger:
    return _review_trigger(d.name, d.action, d.payload, d.phrase)


def _pull_request_target(d: Delivery) -> Trigger:
    # Runs with a write token on code from forks: exactly what this action must never do.
    return Ignored("pull_request_target is not supported: use pull_request (see docs/action.md)")


def _workflow_dispatch(d: Delivery) -> Trigger:
    inputs = d.payload.get("inputs") or {}
    raw = d.issue_number or inputs.get("issue-number") or inputs.get("issue")
    try:
        number = int(str(raw))
    except ValueError:
        return Ignored("workflow_dispatch needs an issue number (input issue-number)")
    return DispatchTrigger(number, Actor(d.sender, None, d.sender_bot))


# Which GitHub events start a run, and how each becomes a trigger (flow.py's FLOWS says which
# flow answers a trigger): a new event is a row here and, for a new kind of trigger, one there.
EVENTS: dict[str, Callable[[Delivery], Trigger]] = {
    "issues": _issues,
    "issue_comment": _issue_comment,
    "pull_request": _pull_request,
    "pull_request_review_comment": _review,
    "pull_request_review": _review,
    "pull_request_target": _pull_request_target,
    "workflow_dispatch": _workflow_dispatch,
}
