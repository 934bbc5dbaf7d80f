"""The first step of every edit: what to send, to which model, on which base. No model call.

``plan`` reads the repository (the files at the base, the work tree's state for a warning) and
writes nothing: the same call is what ``improve --dry-run`` shows and what a real run sends.
Branches, run logs and commits are the caller's; a plan is only data.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from ..config import Settings
from ..edit.apply import DEFINITIONS
from ..edit.formats import EDIT_FORMATS
from ..errors import ConfigError, UsageError
from ..git import Repository
from ..prompts.context import context_user_message
from ..prompts.messages import Part, check_prompt, improve_user_message, kept_note
from .context_choice import ContextChoice
from .selection import DEFAULT_MAX_FILE_BYTES, Selection, select_files
from .shown import (
    STRAY_SHARE,
    Shown,
    add_pins,
    in_rank_order,
    shown_from_selection,
    whole_only,
)

if TYPE_CHECKING:
    from ..llm import ModelInfo

# Room kept free in the context window for the model's answer.
REPLY_RESERVE_TOKENS = 4096
# Selections tried when the rendered request overshoots the window (each scaled down by the
# overshoot); the last one is what the plan reports as over the budget if it still is.
SELECT_TRIES = 3
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
    # What the model is shown (with --context all: every file whole, ``shown.everything``).
    shown: Shown = field(default_factory=Shown)
    # How many times the model may ask for more, and the hard cap on a request's tokens (the
    # model's window minus the reply reserve; None when the window is unknown).
    rounds: int = 0
    token_cap: int | None = None
    # The selection's budget after the cap (what ``git gpte context --tokens`` would be given).
    context_budget: int | None = None
    pathspecs: tuple[str, ...] = ()
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    # The edit format the model is asked for, and why it is not the one configured (a file too
    # long to be written out whole at this model's output cap), or "".
    edit_format: str = "diff"
    format_note: str = ""
    # Files the model is told to leave as they are, and whose edits are dropped: the tests the
    # user's --check runs, when the request does not ask to change tests.
    kept: frozenset[str] = frozenset()
    # For whole-file answers: the system prompt in the definitions format, for a retry that
    # shows only the definitions the request names (see edit_loop's focused retry).
    definitions_system: str = ""

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
    kind: str = "improve",
    edit_format: str | None = None,
    pathspecs: Sequence[str] = (),
    model: str | None = None,
    images: tuple[str, ...] = (),
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    context: ContextChoice | None = None,
    request: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    kept: frozenset[str] = frozenset(),
) -> Plan:
    """Choose what of ``base`` (a commit id) to send, resolve the model and its edit format,
    build the messages (the system prompt of ``kind``: improve or heal) and estimate their tokens.

    ``context`` says how: a selection within a token budget (whole files, excerpts, a map; the
    default) or every file (``ContextChoice(all=True)``). ``request`` is the text the selection
    ranks by (default: the instruction). ``edit_format`` is the --edit-format flag (None: as
    configured, else the model's own). A request over the model's window is recorded in
    ``over_budget`` (see :meth:`Plan.check`). ``kept``: files the model is told to leave as
    they are (see :attr:`Plan.kept`)."""
    from ..llm import count_text, estimate_tokens, resolve_model
    from ..prompts import system_prompt

    check_prompt(instruction)
    info = resolve_model(model, settings)
    choice = context or ContextChoice()
    choice = replace(choice, rounds=choice.rounds_for(info))
    if images and info.supports_images is False:
        raise UsageError(f"model {info.name!r} does not accept images (--image)")
    fmt = choose_edit_format(edit_format, settings, info)
    cap = info.context_tokens - REPLY_RESERVE_TOKENS if info.context_tokens else None
    if choice.all:
        selection = select_files(repo, base, pathspecs, max_bytes=max_file_bytes)
        shown = Shown(
            {p: Part(p, t) for p, t in selection.files.items()},
            skipped=dict(selection.skipped),
            everything=True,
        )
        budget = None
    else:
        system = system_prompt(kind, repo.root, edit_format=fmt)
        shown, budget = _select(
            repo, info, choice, instruction=instruction, request=request or instruction,
            base=base, system=system, pathspecs=pathspecs, max_file_bytes=max_file_bytes,
            progress=progress,
        )  # fmt: skip
        files_reply = EDIT_FORMATS[fmt].reader == "files"
        shown = in_rank_order(shown, STRAY_SHARE if files_reply else 0.0)
        if EDIT_FORMATS[fmt].whole_files:
            shown = whole_only(shown, budget, lambda text: count_text(text, info.name)[0])
        selection = Selection(files=shown.texts, skipped=dict(shown.skipped))
    parts = list(shown.parts.values())
    note = ""
    if EDIT_FORMATS[fmt].whole_files:
        note = too_long_to_rewrite(
            parts, info, settings, chosen=bool(_format_given(edit_format, settings))
        )
        if note:
            fmt = whole_fallback(parts[0].path)
    checked = kept & set(selection.files)
    if kind == "improve" and EDIT_FORMATS[fmt].reader == "files":
        kept = kept | unasked_tests(instruction, selection.files)
    asked = instruction + kept_note(kept & set(selection.files), checked=bool(checked))
    messages = build_messages(
        repo, kind, fmt, asked, shown, selection.files, can_ask=_can_ask(choice, shown)
    )
    tokens, exact = estimate_tokens(messages, info.name)
    over_budget = _over_budget(tokens, cap, info, selection.files, choice)
    dirty = _dirty(repo, base, selection.files)
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
        rounds=_rounds(choice, shown),
        token_cap=cap,
        context_budget=budget,
        pathspecs=tuple(pathspecs),
        max_file_bytes=max_file_bytes,
        edit_format=fmt,
        format_note=note,
        kept=kept,
        definitions_system=(
            system_prompt(kind, repo.root, edit_format=DEFINITIONS)
            if kind == "improve" and EDIT_FORMATS[fmt].whole_files
            else ""
        ),
    )


def unasked_tests(instruction: str, paths: Iterable[str]) -> frozenset[str]:
    """The test files among ``paths`` an answer in file blocks (whole files, definitions) leaves
    as they are, unless the request asks to change tests: a small model writes every file it was
    shown back out, and copies a test file with its literals changed (seen: ``Circle(ORIGIN, 1)``
    became ``-1`` beside the requested change), breaking tests nobody asked it to touch; asked
    for definitions, it wrote a test file back unchanged and was asked to redo it (minimark)."""
    from ..context.languages import is_test
    from ..edit.intent import asks_to_change_tests

    if asks_to_change_tests(instruction):
        return frozenset()
    return frozenset(p for p in paths if is_test(p))


# What a model asked for whole files gets instead when the file to change is too long to be
# written out whole within its output cap: the functions it changes, whole, for Python (what
# such a model writes best, and few tokens); diffs for other languages.
WHOLE_FALLBACK = "diff"
PYTHON_FALLBACK = "definitions"


def whole_fallback(path: str) -> str:
    """The format asked for instead of whole files when ``path`` is too long to rewrite."""
    return PYTHON_FALLBACK if path.endswith(".py") else WHOLE_FALLBACK


# A whole file written back costs about its own tokens plus this share (the change, the
# explanation around the block), and this many tokens of explanation at least.
REWRITE_MARGIN = 1.15
REWRITE_EXTRA = 200


def choose_edit_format(flag: str | None, settings: Settings, info: ModelInfo) -> str:
    """--edit-format, else GPTE_EDIT_FORMAT / gpte.editFormat / TOML ``edit_format``, else the
    format that measures best for the model's kind (whole files for a small local model)."""
    value = _format_given(flag, settings)
    name = str(value).strip().lower() if value else info.defaults.edit_format
    if name not in EDIT_FORMATS:
        raise ConfigError(
            f"unknown edit format {value!r}; expected one of {', '.join(EDIT_FORMATS)}"
        )
    return name


def _format_given(flag: str | None, settings: Settings) -> object:
    """The edit format the user chose (flag, environment, git config or TOML), or None."""
    return settings.get(
        flag=flag, env=("GPTE_EDIT_FORMAT",), git="gpte.editFormat", toml=("edit_format",)
    )


def too_long_to_rewrite(
    parts: Sequence[Part], info: ModelInfo, settings: Settings, *, chosen: bool = False
) -> str:
    """Why the whole-file format cannot serve this request, or "": the file most likely to
    change (the first shown) is shown only in part, is longer than the model can write back
    within its output cap, or (``chosen`` False: the format is the model's default) longer
    than the model copies faithfully (``Defaults.whole_file_tokens``)."""
    from ..llm import count_text, output_cap

    if not parts:
        return ""
    first = parts[0]
    if not first.whole:
        return f"{first.path} is shown only in part, so it cannot be written out whole"
    tokens, _ = count_text(first.text, info.name)
    faithful = info.defaults.whole_file_tokens
    if not chosen and faithful and tokens > faithful:
        return (
            f"{first.path} is ~{tokens:,} tokens; {info.name} is asked to write out whole only "
            f"files of up to {faithful:,} (--edit-format whole to insist)"
        )
    limit = output_cap(info, settings) or info.max_output_tokens
    if not limit:
        return ""
    needed = int(tokens * REWRITE_MARGIN) + REWRITE_EXTRA
    if needed <= limit:
        return ""
    return (
        f"{first.path} is ~{tokens:,} tokens; written out whole it would not fit {info.name}'s "
        f"output cap of {limit:,} tokens (GPTE_MAX_TOKENS)"
    )


def _dirty(repo: Repository, base: str, files: Mapping[str, str]) -> list[str]:
    """Files sent whose work-tree copy differs from the base (only when the base is HEAD)."""
    if base != repo.resolve_commit("HEAD"):
        return []
    return sorted(repo.dirty_paths() & set(files))


def _over_budget(
    tokens: int, cap: int | None, info: ModelInfo, texts: Mapping[str, str], choice: ContextChoice
) -> UsageError | None:
    """The refusal a real run would give for a request over the model's window (None: it
    fits), naming the largest files and what to lower."""
    if cap is None or tokens <= cap:
        return None
    largest = sorted(texts, key=lambda p: -len(texts[p]))[:5]
    sizes = ", ".join(f"{p} ({len(texts[p]):,} chars)" for p in largest)
    hint = "narrow it with pathspecs, e.g. git gpte improve PROMPT src/"
    if not choice.all:
        hint = "lower --context-tokens, or narrow it with pathspecs"
    return UsageError(
        f"the selection is ~{tokens:,} tokens, over {info.name}'s budget of {cap:,}",
        hint=f"largest: {sizes}; {hint}",
    )


def _can_ask(choice: ContextChoice, shown: Shown) -> bool:
    """Whether the model may ask for more: rounds allowed, and something left to give (a map
    of further files, or a file shown only in part)."""
    if shown.everything or not choice.rounds:
        return False
    return bool(shown.map_text.strip()) or any(not p.whole for p in shown.parts.values())


def _rounds(choice: ContextChoice, shown: Shown) -> int:
    return choice.rounds or 0 if _can_ask(choice, shown) else 0


def build_messages(
    repo: Repository,
    kind: str,
    fmt: str,
    instruction: str,
    shown: Shown,
    files: Mapping[str, str],
    *,
    can_ask: bool,
) -> list[dict[str, str]]:
    """The system prompt of ``kind`` in format ``fmt`` and the user message: every file whole
    (``shown.everything``), or the selection with, when the model may ask for more, how to ask."""
    from ..prompts import load, system_prompt

    system = system_prompt(kind, repo.root, edit_format=fmt)
    numbers = not EDIT_FORMATS[fmt].whole_files
    if shown.everything:
        user = improve_user_message(files, instruction, numbers=numbers)
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]
    parts: list[Part] = list(shown.parts.values())
    if shown.map_text.strip() or any(not p.whole for p in parts):
        # Only what was shown needs explaining: excerpts and a map, not whole files alone.
        system = system.rstrip() + "\n\n" + load("context", repo.root).strip() + "\n"
    if can_ask:
        system += "\n" + load("context_ask", repo.root).strip() + "\n"
    text = context_user_message(
        parts, shown.map_text, instruction, can_ask=can_ask, numbers=numbers
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": text}]


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
) -> tuple[Shown, int]:
    """The selection within the budget (capped by the window).

    The budget covers the files; what the system prompt and the request take is subtracted from
    the window first. The selection's own token figures leave out the line numbers, so when the
    rendered request still exceeds the window it is selected once more with a budget scaled down
    by the overshoot."""
    from ..context import candidates, select
    from ..context.weights import WEIGHTS
    from ..llm import estimate_tokens
    from ..prompts import load

    # Places pinned (the lines a failing output or a review comment names) are sent whatever
    # the ranking says: the ranking does not read them in the request again.
    weights = replace(WEIGHTS, place=0.0, chunk_place=0.0) if choice.pins else WEIGHTS

    system = system.rstrip() + "\n\n" + load("context", repo.root).strip() + "\n"
    if choice.rounds:
        system += "\n" + load("context_ask", repo.root).strip() + "\n"

    def messages_for(shown: Shown) -> list[dict[str, str]]:
        parts: list[Part] = list(shown.parts.values())
        text = context_user_message(parts, shown.map_text, instruction, can_ask=bool(choice.rounds))
        return [{"role": "system", "content": system}, {"role": "user", "content": text}]

    overhead, _ = estimate_tokens(messages_for(Shown()), info.name)
    cap = info.context_tokens - REPLY_RESERVE_TOKENS if info.context_tokens else None
    wanted = choice.budget_for(info)
    budget = wanted if cap is None else min(wanted, cap - overhead)
    if budget < MIN_CONTEXT_TOKENS:
        raise UsageError(
            f"the prompt takes ~{overhead:,} tokens, which leaves no room for files in "
            f"{info.name}'s window of {info.context_tokens:,}",
            hint="shorten the prompt",
        )
    for attempt in range(SELECT_TRIES):
        selection = select(
            repo,
            base,
            request,
            budget,
            pathspecs,
            max_file_bytes=max_file_bytes,
            progress=progress if attempt == 0 else None,
            weights=weights,
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
        tokens, _ = estimate_tokens(messages_for(shown), info.name)
        if cap is None or tokens <= cap or attempt == SELECT_TRIES - 1:
            break
        budget = max(
            MIN_CONTEXT_TOKENS, int(budget * (cap - overhead) / (tokens - overhead) * 0.95)
        )
    return shown, budget


def dirty_warning(plan: Plan, remedy: str) -> str | None:
    """The warning for files sent whose uncommitted changes the edit does not include."""
    if not plan.dirty:
        return None
    shown = ", ".join(plan.dirty[:5]) + (" …" if len(plan.dirty) > 5 else "")
    return (
        f"{len(plan.dirty)} file(s) sent have uncommitted changes ({shown}); the edit is based "
        f"on {plan.base[:12]} and does not include them ({remedy})"
    )
