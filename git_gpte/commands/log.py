"""``git gpte log`` / ``git gpte log show ID``: the recorded runs (``.git/gpte/runs.sqlite``)."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

import click

from ..cli import AppContext

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..llm.runlog import RunLog, RunRecord


def _log(ctx: click.Context) -> RunLog:
    from ..git.repo import Repository
    from ..llm.runlog import RunLog

    obj: AppContext = ctx.obj
    repo = Repository.discover(obj.cwd)
    return RunLog(repo.state_dir())


def _when(stamp: str) -> str:
    return stamp.replace("T", " ").removesuffix("Z")[:16]


def _first_line(text: str, width: int = 50) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= width else line[: width - 1] + "…"


@click.group("log", invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True, help="Print the runs as a JSON array.")
@click.option(
    "-n",
    "--max-count",
    "limit",
    type=int,
    metavar="N",
    help="Show at most N runs.",
)
@click.option(
    "-b",
    "--branch",
    metavar="BRANCH",
    help="Show the chain of runs of BRANCH, oldest first (-: the latest run's branch).",
)
@click.pass_context
def command(ctx: click.Context, as_json: bool, limit: int | None, branch: str | None) -> int:
    """List recorded runs, newest first: id, date, model, tokens, cost, outcome, branch.

    Every command that talks to a model records its run under .git/gpte/ (never in the work
    tree). Commits made by git-gpte name their run in a Gpte-Run: trailer; see one with
    'git gpte log show ID'. With --branch, the runs that built one branch (improve, improve
    --on, heal --on ...), oldest first.
    """
    if ctx.invoked_subcommand is not None:
        return 0
    if limit is not None and limit < 0:
        from ..errors import UsageError

        raise UsageError(f"-n takes a count of runs, got {limit}")
    if branch is not None:
        return _chain(ctx, branch, as_json, limit)
    runs = _log(ctx).list(limit=limit)
    if as_json:
        click.echo(json.dumps([run.to_dict(exchanges=False) for run in runs], indent=2))
        return 0
    if not runs:
        if limit != 0:
            click.echo("no runs recorded yet", err=True)
        return 0
    _print_runs(runs)
    return 0


def _print_runs(
    runs: list[RunRecord], prefix: Callable[[int, RunRecord], str] | None = None
) -> None:
    model_width = max(len(run.model or "-") for run in runs)
    for n, run in enumerate(runs, 1):
        tokens = f"{run.tokens_in:,}/{run.tokens_out:,}"
        fields = [
            run.id,
            _when(run.started_at),
            f"{run.model or '-':<{model_width}}",
            f"{tokens:>15}",
            f"{run.usage.cost_text():>9}",
            f"{run.outcome:<11}",
            run.branch or "-",
            f"{run.command}: {_first_line(run.prompt)}",
        ]
        if prefix is not None:
            fields.insert(0, prefix(n, run))
        click.echo("  ".join(fields))


def _chain(ctx: click.Context, name: str, as_json: bool, limit: int | None) -> int:
    """The runs of one branch, oldest first, each marked with whether its commit is still in the
    branch (a rewritten branch drops commits; the runs stay in the log)."""
    from ..git.repo import Repository
    from ..pipeline.chain import resolve_on

    obj: AppContext = ctx.obj
    repo = Repository.discover(obj.cwd)
    branch = resolve_on(repo, name)
    runs = list(_log(ctx).on_branch(branch))
    if limit is not None:
        runs = runs[-limit:] if limit else []
    exists = repo.ref_exists(f"refs/heads/{branch}")

    def on_branch(run: RunRecord) -> bool:
        return bool(exists and run.commit and repo.is_ancestor(run.commit, f"refs/heads/{branch}"))

    if as_json:
        rows = [{**r.to_dict(exchanges=False), "on_branch": on_branch(r)} for r in runs]
        click.echo(json.dumps(rows, indent=2))
        return 0
    if not runs:
        click.echo(f"no runs recorded for branch {branch}", err=True)
        return 0
    tip = (repo.branch_tip(branch) or "")[:12] if exists else "deleted"
    click.echo(f"chain of {branch}: {len(runs)} run(s), tip {tip}")
    _print_runs(
        runs,
        lambda n, r: (
            f"{n:>2}. {(r.commit or '-')[:12]:<12}"
            + ("  " if on_branch(r) or not r.commit else " !")
        ),
    )
    if any(r.commit and not on_branch(r) for r in runs):
        click.echo("(!: that run's commit is no longer on the branch)")
    from ..llm.usage import total

    click.echo(f"total: {len(runs)} run(s), {total(r.usage for r in runs).describe()}")
    return 0


@command.command("show")
@click.argument("run_id", metavar="ID")
@click.option("--json", "as_json", is_flag=True, help="Print the run and its exchanges as JSON.")
@click.option("--full", is_flag=True, help="Every message sent and every reply, in full.")
@click.pass_context
def show(ctx: click.Context, run_id: str, as_json: bool, full: bool) -> int:
    """Show one run: request, model, what was sent, each round, each hunk and how it ended,
    usage, commit (ID may be a prefix). --full adds every message and reply. On a terminal
    the text goes through your pager, as git's does."""
    record = _log(ctx).get(run_id)
    if as_json:
        click.echo(json.dumps(record.to_dict(), indent=2, ensure_ascii=False))
        return 0
    text = "\n".join(_show_lines(record, full)) + "\n"
    if sys.stdout.isatty():
        _page(text)
    else:
        click.echo(text, nl=False)
    return 0


def _page(text: str) -> None:
    """``text`` through the pager git would use (GIT_PAGER, core.pager, PAGER, less)."""
    import os
    import shutil
    import subprocess

    pager = os.environ.get("GIT_PAGER") or ""
    if not pager:
        from ..git.config import pager as git_pager

        pager = git_pager(os.getcwd())
    pager = pager or os.environ.get("PAGER") or ("less" if shutil.which("less") else "")
    if not pager or pager == "cat":
        click.echo(text, nl=False)
        return
    env = {**os.environ, "LESS": os.environ.get("LESS", "FRX"), "LV": os.environ.get("LV", "-c")}
    try:
        subprocess.run(pager, input=text, text=True, shell=True, env=env, check=False)
    except OSError:
        click.echo(text, nl=False)


def _show_lines(record: RunRecord, full: bool) -> list[str]:
    from ..llm.usage import Usage

    rows = [
        ("run", record.id),
        ("command", record.command),
        ("started", _when(record.started_at)),
        ("finished", _when(record.finished_at) if record.finished_at else "-"),
        ("model", f"{record.model or '-'}" + (f" ({record.provider})" if record.provider else "")),
        ("base", record.base or "-"),
        ("outcome", record.outcome),
        ("branch", record.branch or "-"),
        ("commit", record.commit or "-"),
        ("tokens", f"{record.usage.tokens_text()} in {record.calls} call(s)"),
        ("cost", record.usage.cost_text()),
    ]
    out = [f"{key + ':':<10}{value}" for key, value in rows]
    if record.detail:
        out.append(f"{'detail:':<10}{record.detail}")
    out.append(f"\nrequest:\n{record.prompt.rstrip()}\n")
    context = record.meta.get("context")
    if isinstance(context, dict):
        out += [*_context_lines(context), ""]
    edits = record.meta.get("edits")
    if isinstance(edits, dict):
        out += [*_edit_lines(edits), ""]
    found = record.meta.get("found")
    if found:  # no answer did it; a fix of the shape the request names did (fix_search.py)
        out += [f"found by trying {found}", ""]
    out.append(f"calls ({len(record.exchanges)}):")
    for exchange in record.exchanges:
        flags = []
        if exchange.cached:
            flags.append("cached")
        if exchange.attempts > 1:
            flags.append(f"{exchange.attempts} tries")
        if exchange.error:
            flags.append(f"error: {exchange.error}")
        if exchange.stopped:
            flags.append(f"stopped: {exchange.stopped}")
        used = Usage(
            exchange.tokens_in, exchange.tokens_out, exchange.cost_usd, exchange.usage_exact
        )
        head = (
            f"{exchange.seq}. {exchange.model}, {used.describe()}, {exchange.elapsed:.0f} s, "
            f"finish {exchange.finish_reason or '-'}" + (f" ({'; '.join(flags)})" if flags else "")
        )
        if not full:
            out.append(f"  {head}")
            continue
        out.append(f"=== call {head}")
        for message in exchange.messages:
            content = message.get("content", "")
            text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
            out.append(f"--- {message.get('role', '?')}\n{text.rstrip()}")
        for image in exchange.images:
            out.append(
                f"--- image {image.get('path')} ({image.get('media_type')}, "
                f"{image.get('bytes')} bytes)"
            )
        out.append(f"--- reply\n{exchange.reply.rstrip()}\n")
    if not full and record.exchanges:
        out.append(f"\n(every message and reply: git gpte log show --full {record.id})")
    return out


def _edit_lines(edits: dict[str, Any]) -> list[str]:
    """What became of the edits (the run log's ``meta.edits``): each hunk applied, corrected
    (and how) or refused (and why), in every attempt, and the problems left."""
    lines = [f"edits: {edits.get('format', '?')} format, {edits.get('attempts', '?')} attempt(s)"]
    if edits.get("started_over"):
        lines[0] += f", started over {edits['started_over']} time(s)"
    lines += [f"  {line}" for line in edits.get("hunks") or []]
    for problem in edits.get("problems") or []:
        lines.append(f"  problem left: {str(problem).splitlines()[0] if problem else ''}")
    return lines


def _context_lines(context: dict[str, Any]) -> list[str]:
    """The context a run sent, as ``log show`` prints it: what went in, and each round in
    which the model asked for more (the run log's ``meta.context``)."""
    if context.get("mode") == "all":
        files = context.get("files") or []
        return [f"context: every selected file ({len(files)})"] + [f"  {p}" for p in files]
    sent = context.get("sent") or []
    lines = [f"context: selected within {context.get('budget') or '?'} tokens, {len(sent)} file(s)"]
    for part in sent:
        ranges = part.get("ranges") or []
        where = "whole" if part.get("whole") else ", ".join(f"{s}-{e}" for s, e in ranges)
        lines.append(f"  {part.get('path')}  {where}")
    mapped = context.get("map") or []
    if mapped:
        lines.append(f"  map: {len(mapped)} further file(s) by name and definitions")
    for round_ in context.get("rounds") or []:
        given = ", ".join(round_.get("given") or []) or "nothing"
        lines.append(
            f"  round {round_.get('round')}: asked for {'; '.join(round_.get('asked') or [])}"
            f" -> {given} (~{round_.get('tokens', 0):,} tokens)"
        )
        for what, why in round_.get("not_given") or []:
            lines.append(f"    not given: {what} ({why})")
    return lines
