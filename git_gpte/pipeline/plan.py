"""The first step of every edit: what to send, to which model, on which base. No model call.

``plan`` reads the repository (the files at the base, the work tree's state for a warning) and
writes nothing: the same call is what ``improve --dry-run`` shows and what a real run sends.
Branches, run logs and commits are the caller's; a plan is only data.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..config import Settings
from ..errors import UsageError
from ..git import Repository
from ..prompts.messages import check_prompt, improve_user_message
from .selection import DEFAULT_MAX_FILE_BYTES, Selection, select_files

if TYPE_CHECKING:
    from ..llm import ModelInfo

# Room kept free in the context window for the model's answer.
REPLY_RESERVE_TOKENS = 4096


@dataclass
class Plan:
    """Everything decided before the first LLM call (what ``--dry-run`` shows)."""

    base: str
    instruction: str
    selection: Selection
    messages: list[dict[str, str]]
    model: ModelInfo
    tokens_estimate: int
    tokens_exact: bool
    cost_estimate: float | None
    images: tuple[str, ...] = ()
    # The selection a real run would refuse, and why (a dry run shows it; ``check`` raises it).
    over_budget: UsageError | None = None
    # Files sent whose work-tree copy differs from the base (only when the base is HEAD).
    dirty: list[str] = field(default_factory=list)

    def check(self) -> None:
        """Raise what makes this plan unusable for a real run."""
        if self.over_budget is not None:
            raise self.over_budget


def plan(
    repo: Repository,
    settings: Settings,
    *,
    instruction: str,
    base: str,
    system: str,
    pathspecs: Sequence[str] = (),
    model: str | None = None,
    images: tuple[str, ...] = (),
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
) -> Plan:
    """Select the files of ``base`` (a commit id), resolve the model, build the messages and
    estimate their tokens. A selection over the model's context budget is recorded in
    ``over_budget`` (see :meth:`Plan.check`)."""
    from ..llm import estimate_tokens, resolve_model

    check_prompt(instruction)
    selection = select_files(repo, base, pathspecs, max_bytes=max_file_bytes)
    info = resolve_model(model, settings)
    if images and info.supports_images is False:
        raise UsageError(f"model {info.name!r} does not accept images (--image)")
    messages = [
        {"role": "system", "content": system},
        {"role": "user", "content": improve_user_message(selection.files, instruction)},
    ]
    tokens, exact = estimate_tokens(messages, info.name)
    budget = (info.context_tokens or 0) - REPLY_RESERVE_TOKENS
    over_budget = None
    if info.context_tokens and tokens > budget:
        largest = sorted(selection.files, key=lambda p: -len(selection.files[p]))[:5]
        sizes = ", ".join(f"{p} ({len(selection.files[p]):,} chars)" for p in largest)
        over_budget = UsageError(
            f"the selection is ~{tokens:,} tokens, over {info.name}'s budget of {budget:,}",
            hint=f"largest: {sizes}; narrow it with pathspecs, e.g. git gpte improve PROMPT src/",
        )
    dirty: list[str] = []
    if base == repo.resolve_commit("HEAD"):
        dirty = sorted(repo.dirty_paths() & set(selection.files))
    return Plan(
        base=base,
        instruction=instruction,
        selection=selection,
        messages=messages,
        model=info,
        tokens_estimate=tokens,
        tokens_exact=exact,
        cost_estimate=info.estimate_cost(tokens, 0),
        images=images,
        over_budget=over_budget,
        dirty=dirty,
    )


def dirty_warning(plan: Plan, remedy: str) -> str | None:
    """The warning for files sent whose uncommitted changes the edit does not include."""
    if not plan.dirty:
        return None
    shown = ", ".join(plan.dirty[:5]) + (" …" if len(plan.dirty) > 5 else "")
    return (
        f"{len(plan.dirty)} file(s) sent have uncommitted changes ({shown}); the edit is based "
        f"on {plan.base[:12]} and does not include them ({remedy})"
    )
