"""The one place the action calls the heal pipeline, so its interface is adapted here only."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..config import Settings
from ..git import Repository
from ..ui import Console


@dataclass
class Healed:
    success: bool
    attempts: int
    commit: str | None  # the last heal commit; None when nothing was committed
    tokens_in: int
    tokens_out: int
    cost_usd: float | None
    last_output_tail: str
    stop_reason: str


def heal(
    repo: Repository,
    settings: Settings,
    console: Console,
    *,
    command: str,
    attempts: int,
    base: str,
    prompt: str,
    timeout: int,
    model: str | None,
    identity: tuple[str, str],
    docker: bool = False,
    on_attempt: Callable[[int], None] | None = None,
) -> Healed:
    """Run ``command`` on ``base`` and heal failures, up to ``attempts`` fixes.

    ``on_attempt(k)`` is called before run k (0 is the base) — the status comment's progress.
    """
    from ..pipeline.heal import HealRequest, run_heal

    def before_run(_preview: str, attempt: int) -> None:
        # The action runs without asking (CI; the gate already decided who may trigger it).
        if on_attempt is not None:
            on_attempt(attempt)

    request = HealRequest(
        command=command,
        attempts=attempts,
        base=base,
        branch=None,  # heal picks a fresh gpte/heal-... name; the action pushes the commit
        prompt=prompt,
        timeout=timeout,
        model=model,
        identity=identity,
        docker=docker,
    )
    result = run_heal(repo, settings, request, console, confirm=before_run)
    return Healed(
        success=bool(result.success),
        attempts=int(result.attempts),
        commit=result.commit or None,
        tokens_in=int(result.tokens_in),
        tokens_out=int(result.tokens_out),
        cost_usd=result.cost_usd,
        last_output_tail=result.last_output_tail or "",
        stop_reason=str(getattr(result, "stop_reason", "") or ""),
    )
