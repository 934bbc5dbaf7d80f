"""``git gpte bench TASKS.jsonl``: improve (and heal) on a task file; solved %, tokens, cost."""

from __future__ import annotations

import json

import click

from ..cli import AppContext
from .options import model_option


@click.command("bench")
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
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON on stdout.")
@click.option("--report", metavar="FILE", help="Also write the JSON report to FILE.")
@click.option("--keep", is_flag=True, help="Keep each task's temporary repository.")
@click.option("-y", "--yes", is_flag=True, help="Run the generated code without asking.")
@click.pass_obj
def command(
    app: AppContext,
    tasks_file: str,
    model: str | None,
    heal: bool,
    attempts: int | None,
    timeout: float,
    max_retries: int,
    fmt: str,
    only: tuple[str, ...],
    limit: int | None,
    as_json: bool,
    report: str | None,
    keep: bool,
    yes: bool,
) -> int:
    """Measure improve (and heal) on the tasks in TASKS.jsonl.

    Each task (one JSON object per line: name, prompt, files, and a "test" command or
    "asserts" Python scripts) runs in its own temporary repository: its files are committed,
    improve edits them, and the test runs on the produced commit with a timeout, in a
    temporary worktree with secrets removed from the environment. With --heal a failing test
    is fed back for up to --attempts fixes. The report gives each task's result (solved,
    failed or error, with the reason), the solved %, tokens, cost and time.

    The code the model writes runs on this machine: you are asked first (or pass --yes).
    """
    from ..bench import BenchConfig, load_tasks, render_table, run_task, summarize
    from ..errors import UsageError
    from ..git.config import load_settings
    from ..llm import api_key, resolve_model
    from ..run import require_confirmation

    tasks = load_tasks(tasks_file, fmt)
    if only:
        unknown = sorted(set(only) - {t.name for t in tasks})
        if unknown:
            raise UsageError(f"no task named {', '.join(map(repr, unknown))} in {tasks_file}")
        tasks = [t for t in tasks if t.name in only]
    tasks = tasks[:limit] if limit else tasks
    heal = (heal or attempts is not None) and attempts != 0
    settings = load_settings(app.cwd)
    info = resolve_model(model, settings)
    api_key(info, settings)  # one clear line before any repository is made
    docker = settings.get_bool(git="gpte.docker", default=False)
    config = BenchConfig(
        model=model,
        heal=heal,
        attempts=attempts if attempts is not None else 3,
        timeout=timeout,
        max_retries=max_retries,
        keep=keep,
        verbose=app.verbose,
        docker=docker,
    )
    where = "in Docker" if docker else "on this machine"
    require_confirmation(
        f"git-gpte bench will run the code {info.name} writes for {len(tasks)} task(s) {where}:\n"
        f"  each in a temporary repository and worktree, secrets removed from the environment,\n"
        f"  at most {timeout:g} s per test run" + (" (heal on)" if heal else ""),
        yes=yes,
        quiet=app.quiet or as_json,
        question="Run the bench?",
    )
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
    summary = summarize(results, model=info.name)
    data = {"summary": summary, "tasks": [r.to_json() for r in results]}
    if report:
        try:
            with open(report, "w", encoding="utf-8") as handle:
                json.dump(data, handle, indent=2)
                handle.write("\n")
        except OSError as exc:
            raise UsageError(f"cannot write {report}: {exc.strerror or exc}") from None
    if as_json:
        click.echo(json.dumps(data, indent=2))
    else:
        click.echo(render_table(results, summary))
    return 0
