"""How much context to select for a request, resolved with the usual precedence: flag >
environment > ``git config gpte.*`` > TOML > default.

Apart from what the model is shown (shown.py) so that ``git gpte context`` resolves its budget
without importing the edit engine and the prompts (a fifth of its start-up).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..config import Settings
from ..context import DEFAULT_BUDGET
from ..errors import ConfigError

if TYPE_CHECKING:
    from ..llm import ModelInfo

DEFAULT_ROUNDS = 2
MAX_ROUNDS = 10


@dataclass(frozen=True)
class ContextChoice:
    """How the context is chosen: everything (``all``) or a selection within ``tokens``.

    ``rounds``: how many times the model may ask for more. ``pins``: (path, line) places that
    are shown whatever the ranking says (heal's failing output names them). ``ranked_by``: the
    text the selection is ranked by when it is not the prompt (the Action ranks by the issue's
    own words, not by the wrapping that tells the model how to treat them).
    """

    all: bool = False
    tokens: int | None = None  # None: what suits the model (see budget_for)
    rounds: int | None = None  # None: what suits the model (see rounds_for)
    pins: tuple[tuple[str, int], ...] = ()
    ranked_by: str | None = None

    def budget_for(self, info: ModelInfo | None) -> int:
        """The budget asked for, else the one the model's kind reads in reasonable time (a
        small local model: 4k; a hosted one: 16k)."""
        if self.tokens is not None:
            return self.tokens
        return info.defaults.context_tokens if info is not None else DEFAULT_BUDGET

    def rounds_for(self, info: ModelInfo | None) -> int:
        """The rounds asked for, else the model's kind's (a small local model: none)."""
        if self.rounds is not None:
            return self.rounds
        return info.defaults.context_rounds if info is not None else DEFAULT_ROUNDS


def resolve_context(
    settings: Settings,
    *,
    mode: str | None = None,
    tokens: int | None = None,
    rounds: int | None = None,
    pins: Sequence[tuple[str, int]] = (),
    ranked_by: str | None = None,
) -> ContextChoice:
    """The choice from the flags given (None: not given) and the configuration."""
    value = settings.get(
        flag=mode, env=("GPTE_CONTEXT",), git="gpte.context", toml=("context", "mode")
    )
    chosen = str(value or "auto").strip().lower()
    if chosen not in ("auto", "all"):
        raise ConfigError(f"gpte.context must be 'auto' or 'all', got {value!r}")
    budget = _whole(settings, "gpte.contextTokens", tokens, "GPTE_CONTEXT_TOKENS", "tokens", 0)
    if budget < 0 or (budget == 0 and _given(settings, tokens)):
        raise ConfigError(f"gpte.contextTokens must be a positive number, got {budget}")
    asks: int | None = None
    if _configured(settings, rounds, "GPTE_CONTEXT_ROUNDS", "gpte.contextRounds", "rounds"):
        asks = _whole(
            settings, "gpte.contextRounds", rounds, "GPTE_CONTEXT_ROUNDS", "rounds", DEFAULT_ROUNDS
        )
        if not 0 <= asks <= MAX_ROUNDS:
            raise ConfigError(f"gpte.contextRounds must be 0 to {MAX_ROUNDS}, got {asks}")
    return ContextChoice(chosen == "all", budget or None, asks, tuple(pins), ranked_by)


def _given(settings: Settings, flag: int | None) -> bool:
    return _configured(settings, flag, "GPTE_CONTEXT_TOKENS", "gpte.contextTokens", "tokens")


def _configured(settings: Settings, flag: int | None, env: str, key: str, toml: str) -> bool:
    """Whether the flag or any configuration gives the setting (else the model's default)."""
    value = settings.get(flag=flag, env=(env,), git=key, toml=("context", toml))
    return value is not None


def _whole(
    settings: Settings, key: str, flag: int | None, env: str, toml: str, default: int
) -> int:
    try:
        return settings.get_int(
            flag=flag, env=(env,), git=key, toml=("context", toml), default=default
        )
    except ConfigError:
        value = settings.get(flag=flag, env=(env,), git=key, toml=("context", toml))
        raise ConfigError(f"{key} ({env}) must be a whole number, got {value!r}") from None
