"""The bench report: totals, and a plain-text table that lines up in a terminal or a CI log."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .runner import TaskResult


def summarize(results: Sequence[TaskResult], *, model: str) -> dict[str, Any]:
    solved = sum(1 for r in results if r.status == "solved")
    costs = [r.cost_usd for r in results]
    return {
        "model": model,
        "tasks": len(results),
        "solved": solved,
        "failed": sum(1 for r in results if r.status == "failed"),
        "errors": sum(1 for r in results if r.status == "error"),
        "solved_pct": round(100.0 * solved / len(results), 1) if results else 0.0,
        "tokens_in": sum(r.tokens_in for r in results),
        "tokens_out": sum(r.tokens_out for r in results),
        "cost_usd": None
        if any(c is None for c in costs)
        else round(sum(c for c in costs if c is not None), 6),
        "seconds": round(sum(r.seconds for r in results), 2),
    }


def _cost(value: float | None) -> str:
    return "unknown" if value is None else f"${value:.4f}"


def render_table(results: Sequence[TaskResult], summary: dict[str, Any]) -> str:
    header = ("task", "result", "tokens in/out", "cost", "time", "reason")
    rows = [
        (
            r.name,
            r.status,
            f"{r.tokens_in:,}/{r.tokens_out:,}",
            _cost(r.cost_usd),
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
        f"  cost {_cost(summary['cost_usd'])}  time {summary['seconds']:.1f}s"
        f"  model {summary['model']}"
    )
    return "\n".join(lines)
