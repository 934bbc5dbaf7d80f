"""``git gpte apply [REPLY_FILE|-]``: an LLM reply's edits, validated, applied or refused.

Writes only the files the reply names, only what can be placed with confidence, and nothing at
all when a path is unsafe. With ``--branch`` the result becomes a commit on a new branch (based
on HEAD) and the checkout is not touched.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING

import click

from ..cli import AppContext
from ..edit.formats import reply_formats
from ..errors import EditError, UsageError

if TYPE_CHECKING:
    from ..edit import ApplyResult


def read_reply(source: str) -> str:
    """The reply text from a file or ``-`` (standard input); a clear error otherwise."""
    try:
        if source == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(source, "rb") as handle:
                data = handle.read()
    except OSError as exc:
        raise UsageError(f"cannot read the reply {source!r}: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UsageError(f"the reply {source!r} is not UTF-8 text") from None


def render_report(result: ApplyResult) -> list[str]:
    lines = [report.one_line() for report in result.reports]
    applied = sum(1 for r in result.reports if r.status == "applied")
    corrected = len(result.corrected)
    refused = len(result.refused)
    lines.append(
        f"{applied} applied, {corrected} corrected, {refused} refused; "
        f"{len(result.files)} file(s) changed"
    )
    return lines


@click.command("apply")
@click.argument("reply", required=False, default=None, metavar="[REPLY_FILE|-]")
@click.option("--check", is_flag=True, help="Report what would happen; write nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the per-hunk report as JSON.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(reply_formats()),
    default="auto",
    show_default=True,
    help="Edit format of the reply.",
)
@click.option(
    "--branch",
    metavar="NAME",
    help="Commit the result on a new branch NAME (based on HEAD); the checkout is not touched.",
)
@click.pass_obj
def command(
    app: AppContext, reply: str | None, check: bool, as_json: bool, fmt: str, branch: str | None
) -> int:
    """Apply the edits in an LLM reply (diffs, whole files or SEARCH/REPLACE blocks).

    Each hunk is placed by its content, with the @@ line number as a hint, and is applied,
    corrected (the report says how) or refused (the report says why). Only the files the reply
    names are written. Exit status: 0 all applied, 1 some refused, 6 nothing applicable,
    7 unsafe path (nothing written).
    """
    from ..edit import parse_reply
    from ..git import Repository
    from ..pipeline.apply import apply_parsed

    if reply is None:
        if sys.stdin.isatty():
            raise UsageError("no reply given", hint="git gpte apply REPLY_FILE, or pipe it to: -")
        reply = "-"
    text = read_reply(reply)
    repo = Repository.discover(app.cwd)
    applied = apply_parsed(repo, parse_reply(text, fmt), branch=branch, check=check)
    result = applied.result
    _print(app, result, as_json, check, applied.commit, branch, applied.base)
    if result.refused and result.applied_count == 0:
        raise EditError(
            f"every hunk was refused ({len(result.refused)}); nothing written",
            hint="the report above says why",
        )
    return 1 if result.refused else 0


def _print(
    app: AppContext,
    result: ApplyResult,
    as_json: bool,
    check: bool,
    commit: str | None,
    branch: str | None,
    base: str | None,
) -> None:
    if as_json:
        data = result.to_json()
        data["written"] = bool(result.files) and not check
        data["commit"] = commit
        data["branch"] = branch if commit else None
        data["retry_prompt"] = result.retry_prompt()
        click.echo(json.dumps(data, indent=2))
        return
    lines = render_report(result)
    for problem in result.problems:
        click.echo(f"warning: {problem}", err=True)
    for line in lines if not app.quiet else lines[-1:]:
        click.echo(line)
    if check:
        click.echo("--check: nothing written")
    elif commit and base:
        click.echo(
            f"created branch {branch} at {commit[:12]} (based on HEAD {base[:12]}; "
            "uncommitted changes are not included; your checkout is unchanged)"
        )
