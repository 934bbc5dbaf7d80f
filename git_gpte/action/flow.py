"""The action: event -> gate -> one flow (issue, pull request, review) -> its outcome.

The flows live in their own modules (``issue_flow``, ``pull_request_flow``, ``review``) on the
shared steps of ``steps``; each returns how it ended. Overall: event -> gate -> status ->
improve (+ heal) -> push -> pull request.

Order matters for safety: secrets are read, masked and removed from the environment first; the
gate runs before anything costs money; everything the pipelines print (LLM text, the program's
output) is inside a ``::stop-commands::`` block; the push happens last, with the token in the push's
own environment only.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import replace
from typing import Any, TextIO

from ..errors import GitHubError
from ..llm.kinds import all_key_variables
from ..ui import Console
from .client import GitHubClient
from .commands import WorkflowCommands, write_outputs
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
from .issue_flow import IssueFlow
from .pull_request_flow import PullRequestFlow
from .report import Outcome
from .review_flow import ReviewFlow
from .settings import ActionSettings, scrub_secrets
from .steps import Flow, RunContext, skip


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
    for name in all_key_variables():  # every provider's, from the provider table
        cmds.mask(os.environ.get(name))
    cmds.mask(settings.token)
    cmds.mask(settings.app_private_key)
    scrub_secrets(os.environ)
    console = Console(quiet=quiet, verbose=verbose, stream=out, live=False)
    ctx = RunContext(settings, model, cmds, console)

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
        return FLOWS[type(trigger)](ctx, client, trigger).run().exit_code
    except GitHubError as exc:
        # Before the flows' own reporting (reading the repository, the gate): an annotation on
        # the run, outputs that say nothing happened; the CLI prints the one-line error.
        cmds.error(f"git-gpte: {exc.render()}")
        write_outputs(settings.output_path, {**Outcome(0).outputs(), "success": "false"})
        raise


# Which flow answers each kind of trigger (event.py parses the events into these triggers).
FLOWS: dict[type[Trigger], Callable[[RunContext, GitHubClient, Any], Flow]] = {
    IssueTrigger: IssueFlow,
    PullRequestTrigger: PullRequestFlow,
    ReviewTrigger: ReviewFlow,
}


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
