"""The first step of every edit: what to send, to which model, on which base. No model call.

``plan`` reads the repository (the files at the base, the work tree's state for a warning) and
writes nothing: the same call is what ``improve --dry-run`` shows and what a real run sends.
Branches, run logs and commits are the caller's; a plan is only data.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..config import Settings
from ..errors import UsageError
from ..git import Repository
from ..prompts.context import context_user_message
from ..prompts.messages import Part, check_prompt, improve_user_message
from .selection import DEFAULT_MAX_FILE_BYTES, Selection, select_files
from .shown import ContextChoice, Shown, add_pins, shown_from_selection

if TYPE_CHECKING:
    from ..llm import ModelInfo

# Room kept free in the context window for the model's answer.
REPLY_RESERVE_TOKENS = 4096
# A budget below this leaves no useful room for files: the request itself is too long.
MIN_CONTEXT_TOKENS = 256


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
    # The selected context (None with --context all: every file is sent whole).
    shown: Shown | None = None
    # How many times the model may ask for more, and the hard cap on a request's tokens (the
    # model's window minus the reply reserve; None when the window is unknown).
    rounds: int = 0
    token_cap: int | None = None
    # The selection's budget after the cap (what ``git gpte context --tokens`` would be given).
    context_budget: int | None = None
    pathspecs: tuple[str, ...] = ()
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES

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
    context: ContextChoice | None = None,
    request: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Plan:
    """Choose what of ``base`` (a commit id) to send, resolve the model, build the messages and
    estimate their tokens.

    ``context`` says how: a selection within a token budget (whole files, excerpts, a map; the
    default) or every file (``ContextChoice(all=True)``). ``request`` is the text the selection
    ranks by (default: the instruction). A request over the model's window is recorded in
    ``over_budget`` (see :meth:`Plan.check`)."""
    from ..llm import estimate_tokens, resolve_model

    check_prompt(instruction)
    choice = context or ContextChoice()
    info = resolve_model(model, settings)
    if images and info.supports_images is False:
        raise UsageError(f"model {info.name!r} does not accept images (--image)")
    cap = info.context_tokens - REPLY_RESERVE_TOKENS if info.context_tokens else None
    if choice.all:
        selection = select_files(repo, base, pathspecs, max_bytes=max_file_bytes)
        shown = None
        messages = [
            {"role": "system", "content": system},
            {"role": "user", "content": improve_user_message(selection.files, instruction)},
        ]
        budget = None
    else:
        shown, messages, budget = _select(
            repo,
            info,
            choice,
            instruction=instruction,
            request=request or instruction,
            base=base,
            system=system,
            pathspecs=pathspecs,
            max_file_bytes=max_file_bytes,
            progress=progress,
        )
        selection = Selection(files=shown.texts, skipped=dict(shown.skipped))
    tokens, exact = estimate_tokens(messages, info.name)
    over_budget = None
    if cap is not None and tokens > cap:
        texts = selection.files
        largest = sorted(texts, key=lambda p: -len(texts[p]))[:5]
        sizes = ", ".join(f"{p} ({len(texts[p]):,} chars)" for p in largest)
        hint = "narrow it with pathspecs, e.g. git gpte improve PROMPT src/"
        if not choice.all:
            hint = "lower --context-tokens, or narrow it with pathspecs"
        over_budget = UsageError(
            f"the selection is ~{tokens:,} tokens, over {info.name}'s budget of {cap:,}",
            hint=f"largest: {sizes}; {hint}",
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
        shown=shown,
        rounds=0 if choice.all else choice.rounds,
        token_cap=cap,
        context_budget=budget,
        pathspecs=tuple(pathspecs),
        max_file_bytes=max_file_bytes,
    )


def _select(
    repo: Repository,
    info: ModelInfo,
    choice: ContextChoice,
    *,
    instruction: str,
    request: str,
    base: str,
    system: str,
    pathspecs: Sequence[str],
    max_file_bytes: int,
    progress: Callable[[int, int], None] | None,
) -> tuple[Shown, list[dict[str, str]], int]:
    """The selection within the budget (capped by the window), shown as messages.

    The budget covers the files; what the system prompt and the request take is subtracted from
    the window first. The selection's own token figures leave out the line numbers, so when the
    rendered request still exceeds the window it is selected once more with a budget scaled down
    by the overshoot."""
    from ..context import candidates, select
    from ..llm import estimate_tokens
    from ..prompts import load

    system = system.rstrip() + "\n\n" + load("context", repo.root).strip() + "\n"

    def messages_for(shown: Shown) -> list[dict[str, str]]:
        parts: list[Part] = list(shown.parts.values())
        text = context_user_message(parts, shown.map_text, instruction, can_ask=choice.rounds > 0)
        return [{"role": "system", "content": system}, {"role": "user", "content": text}]

    overhead, _ = estimate_tokens(messages_for(Shown()), info.name)
    cap = info.context_tokens - REPLY_RESERVE_TOKENS if info.context_tokens else None
    budget = choice.tokens if cap is None else min(choice.tokens, cap - overhead)
    if budget < MIN_CONTEXT_TOKENS:
        raise UsageError(
            f"the prompt takes ~{overhead:,} tokens, which leaves no room for files in "
            f"{info.name}'s window of {info.context_tokens:,}",
            hint="shorten the prompt",
        )
    for attempt in range(2):
        selection = select(
            repo,
            base,
            request,
            budget,
            pathspecs,
            max_file_bytes=max_file_bytes,
            progress=progress if attempt == 0 else None,
        )
        shown = shown_from_selection(repo, selection, pathspecs)
        if choice.pins:
            allowed, _ = candidates(repo, base, max_file_bytes=max_file_bytes)
            add_pins(repo, base, shown, choice.pins, allowed)
        if not shown.parts:
            reasons = "; ".join(f"{p}: {r}" for p, r in list(shown.skipped.items())[:5])
            raise UsageError(
                "no file left to send" + (f" ({reasons})" if reasons else ": nothing to select")
            )
        messages = messages_for(shown)
        tokens, _ = estimate_tokens(messages, info.name)
        if cap is None or tokens <= cap or attempt:
            break
        budget = max(
            MIN_CONTEXT_TOKENS, int(budget * (cap - overhead) / (tokens - overhead) * 0.95)
        )
    return shown, messages, budget


def dirty_warning(plan: Plan, remedy: str) -> str | None:
    """The warning for files sent whose uncommitted changes the edit does not include."""
    if not plan.dirty:
        return None
    shown = ", ".join(plan.dirty[:5]) + (" …" if len(plan.dirty) > 5 else "")
    return (
        f"{len(plan.dirty)} file(s) sent have uncommitted changes ({shown}); the edit is based "
        f"on {plan.base[:12]} and does not include them ({remedy})"
    )
