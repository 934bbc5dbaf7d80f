"""``git gpte bench merge``: shard reports joined into the report one machine would have made,
and two reports compared.

A merge refuses what would give a wrong number rather than a missing one: reports of another
task file, model, git-gpte version or options, a shard given twice or not at all. Everything
but the reading of files is pure, so the rules are tested without a bench run.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..llm.usage import format_cost
from .report import render_table, summarize
from .runner import TaskResult
from .shard import WHOLE, Shard

STATUSES = ("solved", "failed", "error")
_SHA256 = re.compile(r"[0-9a-f]{64}")
_NUMBER = (int, float)
_TASK_FIELDS: tuple[tuple[str, type | tuple[type, ...]], ...] = (
    ("name", str),
    ("status", str),
    ("reason", str),
    ("tokens_in", int),
    ("tokens_out", int),
    ("seconds", _NUMBER),
)


@dataclass(frozen=True)
class ShardReport:
    """One report given to merge, with what its ``"run"`` and ``"shard"`` members say."""

    path: str
    data: dict[str, Any]
    shard: Shard
    numbers: list[int]  # each task's number in the task file's selection
    of_tasks: int

    @property
    def run(self) -> dict[str, Any]:
        run: dict[str, Any] = self.data["run"]
        return run

    @property
    def wall_seconds(self) -> float:
        return float(self.run["wall_seconds"])


# What shard reports must agree on, as the error names it.
AGREE: tuple[tuple[str, Callable[[ShardReport], Any]], ...] = (
    ("task file (task_file_sha256)", lambda r: r.run["task_file_sha256"]),
    ("model", lambda r: r.data["summary"]["model"]),
    ("git-gpte version", lambda r: r.run["git_gpte"]),
    ("options", lambda r: r.run["options"]),
    ("shard count", lambda r: r.shard.count),
    ("number of tasks", lambda r: r.of_tasks),
)


# ------------------------------------------------------------------------------ reading
def read_report(path: str) -> dict[str, Any]:
    """The bench report in ``path``; an unreadable file, or JSON that is not a report, is one
    line naming the file."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        detail = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise UsageError(f"cannot read {path}: {detail}") from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise UsageError(f"{path}: not JSON ({exc})") from None
    problem = report_problem(data)
    if problem:
        raise UsageError(f"{path}: not a git gpte bench report ({problem})")
    assert isinstance(data, dict)
    return data


def report_problem(data: Any) -> str | None:
    """What keeps ``data`` from being a bench report (``summary`` and ``tasks``), or None."""
    if not isinstance(data, dict):
        return "not a JSON object"
    summary = data.get("summary")
    if not isinstance(summary, dict) or not isinstance(summary.get("model"), str):
        return 'no "summary" with a "model"'
    tasks = data.get("tasks")
    if not isinstance(tasks, list):
        return 'no "tasks" list'
    for number, task in enumerate(tasks, 1):
        problem = task_problem(task)
        if problem:
            return f"task {number}: {problem}"
    return None


def task_problem(task: Any) -> str | None:
    """What keeps ``task`` from being one task's result in a report, or None."""
    if not isinstance(task, dict):
        return "not a JSON object"
    for key, kind in _TASK_FIELDS:
        value = task.get(key)
        if not isinstance(value, kind) or isinstance(value, bool):
            return f'no "{key}" of the right type'
    if task["status"] not in STATUSES:
        return f"unknown status {task['status']!r}"
    cost = task.get("cost_usd")
    if cost is not None and (not isinstance(cost, _NUMBER) or isinstance(cost, bool)):
        return '"cost_usd" is not a number'
    return None


def shard_report(path: str, data: dict[str, Any]) -> ShardReport:
    """A report as a shard: a report without ``"shard"`` is the whole task file (1/1)."""
    run = data.get("run")
    if not isinstance(run, dict) or not all(
        key in run for key in ("git_gpte", "task_file_sha256", "options")
    ):
        raise UsageError(
            f'{path}: not a report to merge (no "run" member: made by an older git-gpte?)'
        )
    if not isinstance(run.get("wall_seconds"), _NUMBER):
        raise UsageError(f'{path}: not a report to merge ("run" has no "wall_seconds")')
    tasks: list[Any] = data["tasks"]
    block = data.get("shard")
    if block is None:
        return ShardReport(path, data, WHOLE, list(range(1, len(tasks) + 1)), len(tasks))
    problem = _shard_problem(block, len(tasks))
    if problem:
        raise UsageError(f'{path}: not a report to merge ("shard": {problem})')
    shard = Shard(block["index"], block["count"])
    return ShardReport(path, data, shard, list(block["task_numbers"]), block["of_tasks"])


def _shard_problem(block: Any, tasks: int) -> str | None:
    if not isinstance(block, dict):
        return "not a JSON object"
    values = [block.get(key) for key in ("index", "count", "of_tasks")]
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return "index, count and of_tasks must be whole numbers"
    numbers = block.get("task_numbers")
    if not isinstance(numbers, list) or len(numbers) != tasks:
        return "task_numbers must give one number per task"
    if not all(isinstance(n, int) and not isinstance(n, bool) for n in numbers):
        return "task_numbers must be whole numbers"
    if not 1 <= block["index"] <= block["count"]:
        return f"shard {block['index']}/{block['count']} does not exist"
    return None


# ------------------------------------------------------------------------------ checks
def check_agree(reports: Sequence[ShardReport]) -> None:
    """Refuse reports that measured different things; the error names the field and files."""
    for label, value_of in AGREE:
        groups: dict[str, list[str]] = {}
        for report in reports:
            groups.setdefault(_show(value_of(report)), []).append(report.path)
        if len(groups) > 1:
            parts = [f"{value} in {', '.join(paths)}" for value, paths in groups.items()]
            raise UsageError(f"the reports differ in {label}: {'; '.join(parts)}")


def check_complete(reports: Sequence[ShardReport]) -> None:
    """Every shard 1..N exactly once, and together every task of the selection once."""
    count = reports[0].shard.count
    given: dict[int, list[str]] = {}
    for report in reports:
        given.setdefault(report.shard.index, []).append(report.path)
    for index, paths in sorted(given.items()):
        if len(paths) > 1:
            times = "twice" if len(paths) == 2 else f"{len(paths)} times"
            raise UsageError(f"shard {index}/{count} is given {times}: {', '.join(paths)}")
    missing = [f"{index}/{count}" for index in range(1, count + 1) if index not in given]
    if len(missing) == 1:
        raise UsageError(f"shard {missing[0]} is missing")
    if missing:
        raise UsageError(f"shards {', '.join(missing)} are missing")
    numbers = sorted(n for report in reports for n in report.numbers)
    if numbers != list(range(1, reports[0].of_tasks + 1)):
        raise UsageError(
            f"the shard reports do not hold each of the {reports[0].of_tasks} tasks once "
            "(edited reports, or shards of different selections?)"
        )


def _show(value: Any) -> str:
    if isinstance(value, str) and _SHA256.fullmatch(value):  # its start is enough to tell
        return value[:12]
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


# ------------------------------------------------------------------------------ merge
def merge_reports(reports: Sequence[ShardReport]) -> dict[str, Any]:
    """The merged report: the shape of an unsharded run's report (tasks in the task file's
    order, the summary recomputed from them), plus ``"shards"`` with each one's wall time."""
    if not reports:
        raise UsageError("no reports to merge")
    check_agree(reports)
    check_complete(reports)
    numbered = sorted(
        ((n, task) for r in reports for n, task in zip(r.numbers, r.data["tasks"], strict=True)),
        key=lambda pair: pair[0],
    )
    tasks = [task for _, task in numbered]
    model = reports[0].data["summary"]["model"]
    summary = summarize([TaskResult.from_json(t) for t in tasks], model=model)
    ordered = sorted(reports, key=lambda r: r.shard)
    shards = [
        {
            "index": r.shard.index,
            "count": r.shard.count,
            "tasks": len(r.numbers),
            "wall_seconds": r.wall_seconds,
            "report": r.path,
        }
        for r in ordered
    ]
    wall = max(r.wall_seconds for r in reports)
    run = {**reports[0].run, "wall_seconds": wall}
    return {"summary": summary, "tasks": tasks, "run": run, "shards": shards}


def render_merged(merged: dict[str, Any]) -> str:
    """The table of an unsharded run, then one line per shard with its wall time."""
    results = [TaskResult.from_json(t) for t in merged["tasks"]]
    lines = [render_table(results, merged["summary"]), ""]
    rows = [("shard", "tasks", "wall time", "report")] + [
        (f"{s['index']}/{s['count']}", str(s["tasks"]), f"{s['wall_seconds']:.1f}s", s["report"])
        for s in merged.get("shards", [])
    ]
    lines += _columns(rows)
    lines.append(f"wall time {merged['run']['wall_seconds']:.1f}s (the slowest shard)")
    return "\n".join(lines)


def _columns(rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    return [
        "  ".join([*(cell.ljust(widths[i]) for i, cell in enumerate(row[:-1])), row[-1]]).rstrip()
        for row in rows
    ]


# ------------------------------------------------------------------------------ compare
def compare(baseline: dict[str, Any], current: dict[str, Any]) -> dict[str, Any]:
    """What changed from ``baseline`` to ``current``: the tasks whose result changed (a task in
    one report only counts as changed, from or to ``None``) and the totals, recomputed from the
    tasks of each so a hand-edited summary cannot mislead."""
    before = {t["name"]: t["status"] for t in baseline["tasks"]}
    after = {t["name"]: t["status"] for t in current["tasks"]}
    names = list(after) + [name for name in before if name not in after]
    changed = [
        {"name": name, "before": before.get(name), "after": after.get(name)}
        for name in names
        if before.get(name) != after.get(name)
    ]
    old, new = _summary(baseline), _summary(current)
    totals = {
        key: {"before": old[key], "after": new[key], "delta": _delta(old[key], new[key])}
        for key in ("solved_pct", "solved", "tasks", "tokens_in", "tokens_out", "cost_usd")
    }
    return {
        "models": {"before": old["model"], "after": new["model"]},
        "changed": changed,
        "totals": totals,
        "usage_exact": old["usage_exact"] and new["usage_exact"],
    }


def _summary(report: dict[str, Any]) -> dict[str, Any]:
    results = [TaskResult.from_json(t) for t in report["tasks"]]
    return summarize(results, model=report["summary"]["model"])


def _delta(before: float | None, after: float | None) -> float | None:
    if before is None or after is None:
        return None
    return round(after - before, 6)


def render_compare(comparison: dict[str, Any], baseline: str) -> str:
    """A table of the tasks that changed, then solved %, tokens and cost before and after."""
    models = comparison["models"]
    lines = [f"compared with {baseline} (model {models['before']} -> {models['after']}):"]
    rows = [("task", "before", "after")] + [
        (c["name"], c["before"] or "-", c["after"] or "-") for c in comparison["changed"]
    ]
    lines += _columns(rows) if comparison["changed"] else ["no task changed its result"]
    t, exact = comparison["totals"], comparison["usage_exact"]
    pct = t["solved_pct"]
    lines += [
        "",
        f"solved  {pct['before']:.1f}% -> {pct['after']:.1f}% ({pct['delta']:+.1f} points;"
        f" {t['solved']['before']}/{t['tasks']['before']} -> "
        f"{t['solved']['after']}/{t['tasks']['after']})",
        f"tokens  {t['tokens_in']['before']:,}/{t['tokens_out']['before']:,} -> "
        f"{t['tokens_in']['after']:,}/{t['tokens_out']['after']:,} "
        f"({t['tokens_in']['delta']:+,}/{t['tokens_out']['delta']:+,})",
        f"cost    {format_cost(t['cost_usd']['before'], exact=exact)} -> "
        f"{format_cost(t['cost_usd']['after'], exact=exact)} "
        f"({_signed_cost(t['cost_usd']['delta'], exact)})",
    ]
    return "\n".join(lines)


def _signed_cost(delta: float | None, exact: bool) -> str:
    if delta is None:
        return format_cost(None)
    mark = "" if exact else "~"
    return f"{mark}{'-' if delta < 0 else '+'}{format_cost(abs(delta))}"
