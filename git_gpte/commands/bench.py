"""``git gpte bench TASKS.jsonl``: improve (and heal) on a task file; solved %, tokens, cost.

``git gpte bench merge REPORT...`` joins the reports of ``--shard I/N`` runs (one per machine of a
CI matrix) into the report of the whole task file, and compares it with an earlier one.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import click

from ..cli import AppContext
from .options import model_option

if TYPE_CHECKING:
    from ..taskbench import BenchConfig, Task, TaskResult
    from ..taskbench.shard import Shard


class BenchCommand(click.Command):
    """The run command, handing ``bench merge ...`` to :data:`merge`.

    ``bench TASKS.jsonl`` keeps its usage, options, help and man page entry; only a first
    argument that is exactly ``merge`` is taken as the sub-command (a task file of that name is
    still reachable as ``./merge``).
    """

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: click.Context | None = None,
        **extra: Any,
    ) -> click.Context:
        if args and args[0] == "merge":
            name = f"{info_name} merge" if info_name else "merge"
            return merge.make_context(name, args[1:], parent=parent, **extra)
        return super().make_context(info_name, args, parent=parent, **extra)


@click.command("bench", cls=BenchCommand)
@click.argument("tasks_file", metavar="TASKS.jsonl", type=click.Path(dir_okay=False))
@model_option
@click.option("--heal", is_flag=True, help="When the test fails, heal with it (see --attempts).")
@click.option(
    "--attempts",
    type=click.IntRange(0, 20),
    help="Heal attempts per task (default 3; giving it turns on --heal; 0 turns heal off).",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=60.0,
    show_default=True,
    help='Seconds each test run may take (a task\'s own "timeout" wins).',
)
@click.option(
    "--max-retries",
    type=click.IntRange(0, 10),
    default=2,
    show_default=True,
    help="Improve's retries for refused hunks.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["auto", "gpte", "apps", "mbpp"]),
    default="auto",
    show_default=True,
    help="Task file shape: gpte tasks, or APPS / MBPP rows as published.",
)
@click.option("--only", multiple=True, metavar="NAME", help="Run only the named task(s).")
@click.option("--limit", type=click.IntRange(min=1), help="Run at most N tasks.")
@click.option(
    "--shard",
    "shard_text",
    metavar="I/N",
    help="Run only shard I of N (tasks split by a hash of their name); join the --json "
    "reports with 'git gpte bench merge'.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON on stdout.")
@click.option("--report", metavar="FILE", help="Also write the JSON report to FILE.")
@click.option("--keep", is_flag=True, help="Keep each task's temporary repository.")
@click.option("-y", "--yes", is_flag=True, help="Run the generated code without asking.")
@click.pass_obj
def command(app: AppContext, /, **given: Any) -> int:
    """Measure improve (and heal) on the tasks in TASKS.jsonl.

    Each task (one JSON object per line: name, prompt, files, and a "test" command or
    "asserts" Python scripts) runs in its own temporary repository: its files are committed,
    improve edits them, and the test runs on the produced commit with a timeout, in a
    temporary worktree with secrets removed from the environment. With --heal a failing test
    is fed back for up to --attempts fixes. The report gives each task's result (solved,
    failed or error, with the reason), the solved %, tokens, cost and time.

    The code the model writes runs on this machine: you are asked first (or pass --yes).

    On several machines (a CI matrix): run 'git gpte bench TASKS.jsonl --shard I/N --json
    --report shard-I.json' on each, then 'git gpte bench merge shard-*.json' for the report of
    the whole task file, and --compare BASELINE.json for what changed since an earlier run (see
    'git gpte bench merge -h').
    """
    from ..git.config import load_settings
    from ..llm import api_key, resolve_model
    from ..taskbench import load_tasks, render_table, summarize
    from ..taskbench.report import run_block, run_options
    from ..taskbench.shard import file_sha256, parse_shard, select_shard, shard_block

    flags = Flags(**given)
    shard = parse_shard(flags.shard_text) if flags.shard_text is not None else None
    selected = _select(
        load_tasks(flags.tasks_file, flags.fmt), flags.tasks_file, flags.only, flags.limit
    )
    sha256 = file_sha256(flags.tasks_file)  # what every shard must have read (checked by merge)
    numbered = select_shard(selected, shard) if shard else list(enumerate(selected, 1))
    tasks = [task for _, task in numbered]
    settings = load_settings(app.cwd)
    info = resolve_model(flags.model, settings)
    api_key(info, settings)  # one clear line before any repository is made
    config = flags.config(app.verbose, docker=settings.get_bool(git="gpte.docker", default=False))
    part = f" (shard {shard} of {len(selected)})" if shard else ""
    quiet = app.quiet or flags.as_json
    _confirm(config, info.name, f"{len(tasks)} task(s){part}", yes=flags.yes, quiet=quiet)
    started = time.monotonic()
    results = _run_tasks(app, tasks, config)
    summary = summarize(results, model=info.name)
    data: dict[str, Any] = {"summary": summary, "tasks": [r.to_json() for r in results]}
    data["run"] = run_block(
        task_file=flags.tasks_file,
        sha256=sha256,
        options=run_options(config, fmt=flags.fmt, only=flags.only, limit=flags.limit),
        wall_seconds=time.monotonic() - started,
    )
    if shard:
        data["shard"] = shard_block(shard, [n for n, _ in numbered], len(selected))
    _write_report(flags.report, data)
    if flags.as_json:
        click.echo(json.dumps(data, indent=2))
        return 0
    click.echo(render_table(results, summary))
    if shard:
        click.echo(_shard_line(shard, len(tasks), len(selected), data["run"]["wall_seconds"]))
    return 0


@dataclass(frozen=True)
class Flags:
    """The command line of one bench run, as click gives it."""

    tasks_file: str
    model: str | None
    heal: bool
    attempts: int | None
    timeout: float
    max_retries: int
    fmt: str
    only: tuple[str, ...]
    limit: int | None
    shard_text: str | None
    as_json: bool
    report: str | None
    keep: bool
    yes: bool

    def config(self, verbose: bool, *, docker: bool) -> BenchConfig:
        """How each task runs: --attempts alone turns heal on, --attempts 0 off."""
        from ..taskbench import BenchConfig

        return BenchConfig(
            model=self.model,
            heal=(self.heal or self.attempts is not None) and self.attempts != 0,
            attempts=self.attempts if self.attempts is not None else 3,
            timeout=self.timeout,
            max_retries=self.max_retries,
            keep=self.keep,
            verbose=verbose,
            docker=docker,
        )


def _confirm(config: BenchConfig, model: str, what: str, *, yes: bool, quiet: bool) -> None:
    """The code the model writes runs here: said, and asked, before any of it runs."""
    from ..run import require_confirmation

    where = "in Docker" if config.docker else "on this machine"
    require_confirmation(
        f"git-gpte bench will run the code {model} writes for {what} {where}:\n"
        f"  each in a temporary repository and worktree, secrets removed from the environment,\n"
        f"  at most {config.timeout:g} s per test run" + (" (heal on)" if config.heal else ""),
        yes=yes,
        quiet=quiet,
        question="Run the bench?",
    )


def _select(
    tasks: list[Task], tasks_file: str, only: tuple[str, ...], limit: int | None
) -> list[Task]:
    """--only, then --limit: the selection a shard is taken from (the same on every shard)."""
    from ..errors import UsageError

    if only:
        unknown = sorted(set(only) - {t.name for t in tasks})
        if unknown:
            raise UsageError(f"no task named {', '.join(map(repr, unknown))} in {tasks_file}")
        tasks = [t for t in tasks if t.name in only]
    return tasks[:limit] if limit else tasks


def _run_tasks(app: AppContext, tasks: list[Task], config: BenchConfig) -> list[TaskResult]:
    """Each task in turn, with its progress and result on stderr."""
    from ..taskbench import run_task

    results = []
    for number, task in enumerate(tasks, 1):
        if not app.quiet:
            click.echo(f"[{number}/{len(tasks)}] {task.name} ...", err=True)
        result = run_task(task, config)
        results.append(result)
        if not app.quiet:
            reason = f": {result.reason}" if result.reason else ""
            kept = f" (kept in {result.repository})" if result.repository else ""
            click.echo(
                f"[{number}/{len(tasks)}] {task.name}: {result.status}{reason} "
                f"({result.seconds:.1f}s){kept}",
                err=True,
            )
    return results


def _shard_line(shard: Shard, tasks: int, selected: int, wall: float) -> str:
    return (
        f"shard {shard}: {tasks} of {selected} task(s), wall time {wall:.1f}s"
        " (join the --json reports with 'git gpte bench merge')"
    )


def _write_report(path: str | None, data: dict[str, Any]) -> None:
    from ..errors import UsageError

    if not path:
        return
    try:
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=2)
            handle.write("\n")
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None


@click.command("merge")
@click.argument("reports", metavar="REPORT...", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="Print the merged report as JSON on stdout.")
@click.option("--report", metavar="FILE", help="Also write the merged JSON report to FILE.")
@click.option(
    "--compare",
    "baseline",
    metavar="BASELINE.json",
    help="Also show what changed since BASELINE.json (an earlier bench or merged report): "
    "tasks solved <-> failed, solved %, tokens and cost.",
)
def merge(reports: tuple[str, ...], as_json: bool, report: str | None, baseline: str | None) -> int:
    """Join the --json reports of 'git gpte bench --shard I/N' runs into one report.

    The reports must come from the same task file (its sha256), model, git-gpte version and
    options, and hold every shard 1..N exactly once; otherwise the merge names what differs,
    or which shard is missing or given twice. It prints the table of an unsharded run (tasks in
    the task file's order) and each shard's wall time; --json prints the merged report, which
    has the shape of an unsharded run's report, and --report writes it. With --compare, the
    tasks whose result changed since BASELINE.json, and the difference in solved %, tokens and
    cost (in --json: a "compare" member). Failed tasks are results: the exit code is 0.
    """
    from ..taskbench.merge import (
        compare,
        merge_reports,
        read_report,
        render_compare,
        render_merged,
        shard_report,
    )

    shards = [shard_report(path, read_report(path)) for path in reports]
    old = read_report(baseline) if baseline else None
    merged = merge_reports(shards)
    _write_report(report, merged)
    comparison = compare(old, merged) if old is not None else None
    if as_json:
        shown = {**merged, "compare": comparison} if comparison is not None else merged
        click.echo(json.dumps(shown, indent=2))
        return 0
    click.echo(render_merged(merged))
    if comparison is not None and baseline:
        click.echo("")
        click.echo(render_compare(comparison, baseline))
    return 0
