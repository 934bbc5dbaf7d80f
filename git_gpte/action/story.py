"""The pull request's body as the story of the runs that made it. Pure functions.

A reviewer opening a pull request git-gpte wrote should not need the job logs to know what
happened: each run (the issue, a later ``/gpte`` comment, review comments, a pre-merge heal) adds
one section with what was asked, what was sent (files, tokens), what was applied and refused,
each heal attempt and how it ended, and the cost; the total is at the end. The runs so far are
kept as JSON in an HTML comment at the end of the body (invisible when rendered), so the next run
can append to them; that JSON is read as untrusted (anyone who can edit the body can change it):
unknown shapes are dropped, lengths are capped, and everything is rendered through the same
escaping as text that came from outside.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from ..llm.usage import Usage, total
from .markdown import code, fence
from .sanitize import cap, clean

if TYPE_CHECKING:
    from .report import Outcome

MARKER = "git-gpte-story"
_PAYLOAD = re.compile(r"[A-Za-z0-9+/=\s]*")  # one class, one star: linear on any input
MAX_BODY_CHARS = 70_000  # GitHub keeps 65,536 characters of a body; anything longer is not ours
# The kinds of run a story holds; anything else read back is shown as code, never as Markdown.
_KINDS = re.compile(r"(?:issue #\d{1,9}|/gpte comment|review comments|pre-merge heal)")
_RUNS = re.compile(r"(https?://[^/\s]+/[\w.-]+/[\w.-]+/actions/runs/)\d+(?:/attempts/\d+)?")
MAX_TOKENS = 10**12
MAX_COST_USD = 10**6
HEADING = "### What git-gpte did"
MAX_ITERATIONS = 20  # the oldest give way: a body has a size limit (65,536 characters)
MAX_REQUEST_CHARS = 600
MAX_LISTED = 25
MAX_ITEM_CHARS = 300


@dataclass
class Attempt:
    """One run of the check: attempt 0 is the edit itself, n the commit of heal attempt n."""

    attempt: int
    commit: str
    passed: bool
    summary: str
    files: list[str] = field(default_factory=list)


@dataclass
class Iteration:
    """One run of the action on this pull request."""

    kind: str  # "issue #7", "/gpte comment", "review comments", "pre-merge heal"
    request: str
    commit: str = ""
    model: str = ""
    files_sent: list[str] = field(default_factory=list)
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float | None = None
    files_changed: list[str] = field(default_factory=list)
    applied: int = 0
    refused: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # left after the retries (syntax errors)
    check: str = ""  # the heal command, when the check ran
    attempts: list[Attempt] = field(default_factory=list)
    heal_result: str = ""  # "passed", or why healing stopped
    run_url: str = ""

    @property
    def usage(self) -> Usage:
        return Usage(self.tokens_in, self.tokens_out, self.cost_usd)

    @classmethod
    def from_json(cls, data: Any) -> Iteration | None:
        """An iteration read back from a body, or None when the data does not have its shape."""
        if not isinstance(data, dict):
            return None

        def text(key: str, limit: int = MAX_ITEM_CHARS) -> str:
            value = data.get(key)
            return value[:limit] if isinstance(value, str) else ""

        def number(key: str) -> int:
            value = data.get(key)
            return value if isinstance(value, int) and 0 <= value <= MAX_TOKENS else 0

        def texts(key: str) -> list[str]:
            value = data.get(key)
            items = value if isinstance(value, list) else []
            return [v[:MAX_ITEM_CHARS] for v in items if isinstance(v, str)][: MAX_LISTED * 4]

        cost = data.get("cost_usd")
        attempts = []
        stored = data.get("attempts")
        for item in stored if isinstance(stored, list) else []:
            if isinstance(item, dict) and isinstance(item.get("attempt"), int):
                attempts.append(
                    Attempt(
                        attempt=item["attempt"],
                        commit=str(item.get("commit") or "")[:40],
                        passed=item.get("passed") is True,
                        summary=str(item.get("summary") or "")[:MAX_ITEM_CHARS],
                        files=[str(f)[:MAX_ITEM_CHARS] for f in _list(item.get("files"))][:50],
                    )
                )
        if not text("kind"):
            return None
        return cls(
            kind=text("kind", 80),
            request=text("request", MAX_REQUEST_CHARS + 20),
            commit=text("commit", 40),
            model=text("model", 80),
            files_sent=texts("files_sent"),
            tokens_in=number("tokens_in"),
            tokens_out=number("tokens_out"),
            cost_usd=(
                float(cost)
                if isinstance(cost, (int, float)) and 0 <= cost <= MAX_COST_USD
                else None
            ),
            files_changed=texts("files_changed"),
            applied=number("applied"),
            refused=texts("refused"),
            problems=texts("problems"),
            check=text("check"),
            attempts=attempts[:20],
            heal_result=text("heal_result"),
            run_url=text("run_url"),
        )


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def iteration(kind: str, request: str, o: Outcome) -> Iteration:
    """This run, from the outcome the flow filled in."""
    asked, cut = cap(clean(request), MAX_REQUEST_CHARS)
    heal_result = ""
    if o.heal_ran:
        heal_result = "passed" if o.heal_success else (o.heal_stop or "still failing")
    return Iteration(
        kind=kind,
        request=asked + (" …" if cut else ""),
        commit=o.commit,
        model=o.model,
        files_sent=list(o.files_sent),
        tokens_in=o.usage.tokens_in,
        tokens_out=o.usage.tokens_out,
        cost_usd=o.usage.cost_usd,
        files_changed=list(o.files_changed),
        applied=o.applied,
        refused=list(o.refused),
        problems=list(o.problems),
        check=o.check_command if o.heal_ran else "",
        attempts=[
            Attempt(
                r.attempt,
                r.commit,
                r.exit_code == 0 and not r.timed_out,
                r.summary,
                list(r.files_changed),
            )
            for r in o.heal_runs
        ],
        heal_result=heal_result,
        run_url=o.run_url or "",
    )


def _stored(body: str | None) -> str | None:
    """The base64 text of the stored story, found without a regular expression that could
    backtrack (a body is written by people too): the last ``<!-- git-gpte-story ... -->``."""
    text = (body or "")[-MAX_BODY_CHARS:]
    at = text.rfind(MARKER)
    if at < 0 or not text[:at].rstrip().endswith("<!--"):
        return None
    end = text.find("-->", at)
    if end < 0:
        return None
    payload = text[at + len(MARKER) : end]
    return payload if _PAYLOAD.fullmatch(payload) else None


def read_story(body: str | None) -> list[Iteration]:
    """The iterations stored in a pull request body; [] when there are none (or they are not
    readable: the story then starts again rather than failing the run)."""
    payload = _stored(body)
    if payload is None:
        return []
    try:
        data = json.loads(base64.b64decode("".join(payload.split()), validate=True))
    except (binascii.Error, ValueError, RecursionError):
        return []  # not base64, not JSON, or nested deeper than a story is: no story
    items = data if isinstance(data, list) else []
    kept = [it for it in (Iteration.from_json(x) for x in items) if it is not None]
    return kept[-MAX_ITERATIONS:]


def _listed(paths: list[str]) -> str:
    shown = ", ".join(code(p) for p in paths[:MAX_LISTED])
    more = len(paths) - MAX_LISTED
    return shown + (f" and {more} more" if more > 0 else "")


def _section(n: int, it: Iteration, runs: str | None) -> list[str]:
    """One run's section. Everything in ``it`` may have been read back from a body anyone
    could edit: text goes out as code spans or fences, the kind only if it is one of ours, the
    run link only if it is one of this repository's workflow runs (``runs``)."""
    kind = it.kind if _KINDS.fullmatch(it.kind) else code(it.kind)
    head = f"#### {n}. {kind}"
    if it.commit:
        head += f" · commit {code(it.commit[:12])}"
    if it.model:
        head += f" · {code(it.model)}"
    lines = [head, "", "**Asked:**", "", fence(it.request or "(no text)"), ""]
    # An edit sends files and applies hunks; a pre-merge heal's entry has only its attempts.
    edited = bool(it.files_sent or it.applied or it.refused)
    if it.files_sent:
        summary = f"<summary>{len(it.files_sent)} file(s)</summary>"
        lines += ["**Sent:**", "", f"<details>{summary}\n\n{_listed(it.files_sent)}\n\n</details>"]
    lines.append(f"\n**Usage:** {it.usage.describe()}")
    if edited:
        changed = _listed(it.files_changed) if it.files_changed else "no file"
        lines.append(f"\n**Applied:** {it.applied} hunk(s), changing {changed}.")
    if it.refused:
        lines += ["", f"**Refused** ({len(it.refused)}, **not** applied):", ""]
        lines += [f"- {code(reason)}" for reason in it.refused[:MAX_LISTED]]
    if it.problems:
        lines += ["", "**Problems left:**", ""]
        lines += [f"- {code(problem)}" for problem in it.problems[:MAX_LISTED]]
    if it.check:
        lines += ["", f"**Check** {code(it.check)}:", ""]
        for a in it.attempts:
            label = "the edit" if a.attempt == 0 else f"heal attempt {a.attempt}"
            verdict = "passed" if a.passed else "failed"
            fixed = f" (changed {_listed(a.files)})" if a.files else ""
            lines.append(f"- {label} {code(a.commit[:12])}{fixed}: **{verdict}** {code(a.summary)}")
        result = (
            "passed" if it.heal_result == "passed" else f"still failing: {code(it.heal_result)}"
        )
        lines += ["", f"**Self-heal:** {result}."]
    else:
        lines += ["", "**Self-heal:** not run (no check command)."]
    link = _RUNS.fullmatch(it.run_url)
    if runs is not None and link is not None and link.group(1) == runs:
        lines += ["", f"[Workflow run]({it.run_url})"]
    return lines


def story_markdown(iterations: list[Iteration], run_url: str | None = None) -> str:
    """The runs, oldest first, then the totals, then the stored form for the next run.
    ``run_url``: this run's own (trusted) link, which says what a workflow run link of this
    repository looks like."""
    ours = _RUNS.fullmatch(run_url or "")
    runs = ours.group(1) if ours else None
    lines = [HEADING, ""]
    for n, it in enumerate(iterations, 1):
        lines += [*_section(n, it, runs), ""]
    spent = total(it.usage for it in iterations)
    lines.append(f"**Total:** {len(iterations)} run(s), {spent.describe()}.")
    data = json.dumps([asdict(it) for it in iterations], separators=(",", ":"))
    lines += ["", f"<!-- {MARKER} {base64.b64encode(data.encode()).decode()} -->"]
    return "\n".join(lines) + "\n"


def with_iteration(head: str, previous_body: str | None, new: Iteration) -> str:
    """A body: ``head`` (ours), then the story of the earlier runs plus ``new``."""
    iterations = [*read_story(previous_body), new][-MAX_ITERATIONS:]
    return head.rstrip("\n") + "\n\n" + story_markdown(iterations, new.run_url)


def has_story(body: str | None) -> bool:
    return _stored(body) is not None


def story_head(body: str) -> str:
    """The part of a body above the story (what the first run wrote there, or a person since)."""
    at = body.find(HEADING)
    return body[:at].rstrip() if at >= 0 else body.rstrip()
