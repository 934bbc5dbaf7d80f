"""The bench report: totals, and a plain-text table that lines up in a terminal or a CI log."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import __version__
from ..llm.usage import format_cost, total
from .runner import BenchConfig, TaskResult


def summarize(results: Sequence[TaskResult], *, model: str) -> dict[str, Any]:
    solved = sum(1 for r in results if r.status == "solved")
    usage = total(r.usage for r in results)
    return {
        "model": model,
        "tasks": len(results),
        "solved": solved,
        "failed": sum(1 for r in results if r.status == "failed"),
        "errors": sum(1 for r in results if r.status == "error"),
        "solved_pct": round(100.0 * solved / len(results), 1) if results else 0.0,
        **usage.to_json(),
        "seconds": round(sum(r.seconds for r in results), 2),
    }


def render_table(results: Sequence[TaskResult], summary: dict[str, Any]) -> str:
    header = ("task", "result", "tokens in/out", "cost", "time", "reason")
    rows = [
        (
            r.name,
            r.status,
            f"{r.usage.tokens_in:,}/{r.usage.tokens_out:,}",
            r.usage.cost_text(),
            f"{r.seconds:.1f}s",
            r.reason,
        )
        for r in results
    ]
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(5)]
    lines = []
    for row in [header, *rows]:
        cells = [str(cell).ljust(widths[i]) for i, cell in enumerate(row[:5])]
        lines.append("  ".join([*cells, str(row[5])]).rstrip())
    lines.append("")
    lines.append(
        f"solved {summary['solved']}/{summary['tasks']} ({summary['solved_pct']:.1f}%)"
        f"  failed {summary['failed']}  errors {summary['errors']}"
        f"  tokens {summary['tokens_in']:,}/{summary['tokens_out']:,}"
        f"  cost {format_cost(summary['cost_usd'], exact=summary['usage_exact'])}"
        f"  time {summary['seconds']:.1f}s"
        f"  model {summary['model']}"
    )
    return "\n".join(lines)


def run_options(
    config: BenchConfig, *, fmt: str, only: Sequence[str], limit: int | None
) -> dict[str, Any]:
    """The options that change a run's results: shard reports made with different ones measure
    different things and are not merged."""
    return {
        "format": fmt,
        "heal": config.heal,
        "attempts": config.attempts if config.heal else 0,
        "timeout": config.timeout,
        "max_retries": config.max_retries,
        "docker": config.docker,
        "only": sorted(only),
        "limit": limit,
    }


def run_block(
    *, task_file: str, sha256: str, options: dict[str, Any], wall_seconds: float
) -> dict[str, Any]:
    """The ``"run"`` member of a report: what it was made from and how long it took."""
    return {
        "git_gpte": __version__,
        "task_file": task_file,
        "task_file_sha256": sha256,
        "options": options,
        "wall_seconds": round(wall_seconds, 2),
    }
