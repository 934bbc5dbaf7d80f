"""The one place the action calls the heal pipeline, so its interface is adapted here only.

Returns None when this installation has no heal pipeline; the caller says so and goes on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..config import Settings
from ..git import Repository
from ..ui import Console


@dataclass
class Healed:
    success: bool
    attempts: int
    commit: str | None
    tokens_in: int
    tokens_out: int
    cost_usd: float | None
    last_output_tail: str


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
) -> Healed | None:
    import importlib

    try:
        module: Any = importlib.import_module("git_gpte.pipeline.heal")
    except ImportError:
        return None
    HealRequest, run_heal = module.HealRequest, module.run_heal
    from ..git import unique_branch

    request = HealRequest(
        command=command,
        attempts=attempts,
        base=base,
        branch=unique_branch(repo, "gpte/heal"),
        prompt=prompt,
        timeout=timeout,
        model=model,
        identity=identity,
    )
    result = run_heal(repo, settings, request, console)
    return Healed(
        success=bool(result.success),
        attempts=int(result.attempts),
        commit=result.commit or None,
        tokens_in=int(result.tokens_in),
        tokens_out=int(result.tokens_out),
        cost_usd=result.cost_usd,
        last_output_tail=result.last_output_tail or "",
    )
