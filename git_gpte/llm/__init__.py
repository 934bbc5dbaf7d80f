"""The LLM layer: which model, how to reach it, what it said, what it cost, and the record.

Public API (everything a pipeline needs; importing this package does not import any SDK)::

    from git_gpte.llm import resolve_model, estimate_tokens
    from git_gpte.llm.session import Session

    info = resolve_model(flag_or_None, settings)   # ModelInfo; ConfigError for an unknown model
    n, exact = estimate_tokens(messages, info.name) # exact=False: a character-based estimate
    with Session(repo.state_dir(), "improve", settings=settings, console=console,
                 prompt=p, base=sha, model=info) as session:   # opens the run-log row
        llm = session.client(info)                  # an LLM recording into this run
        reply = llm.ask([{"role": "system", "content": s}, {"role": "user", "content": u}],
                        images=["shot.png"])
        reply.text, reply.usage, reply.finish_reason
        session.finish("ok", branch="gpte/x", commit=sha, detail="...")
    session.usage  # Usage(tokens_in, tokens_out, cost_usd, exact): its calls and its children's

Every command that calls a model does it inside one :class:`~.session.Session`, which closes
the run on every way out (see its module). ``Usage`` (:mod:`.usage`) is the one value for what
calls spent: ``+`` adds, ``ZERO`` is nothing, ``describe()`` is how every command shows it.

- ``ModelInfo``: ``name``, ``provider`` (openai | azure | anthropic | openai-compatible),
  ``supports_images`` (None = unknown), ``context_tokens``, ``max_output_tokens``, ``price``
  (:class:`Price` or None), ``base_url``, ``api_version``, ``known``, ``local``,
  ``estimate_cost(tokens_in, tokens_out)``, ``describe()``.
- ``LLM(info, settings, *, console=None, cache=None, state_dir=None, run=None, stream=None,
  temperature=None, max_tokens=None)``: raises ConfigError naming the key variable when it is
  missing (not for local/compatible servers). ``cache=True`` is the ``--cache`` flag; otherwise
  ``GPTE_CACHE`` / ``gpte.cache`` decide. ``stream`` defaults to ``GPTE_STREAM``.
- ``LLM.ask(messages, images=()) -> Reply(text, tokens_in, tokens_out, cost_usd, finish_reason,
  cached, usage_exact, attempts, elapsed)``. Raises ``LLMError`` (network, exhausted retries,
  4xx with the provider's message, content filter), ``ReplyTruncated`` (an LLMError with
  ``.partial``) when the reply hit the output limit, ``UsageError`` for unusable images.
  KeyboardInterrupt propagates after the exchange is logged and ``run`` is finished as
  ``interrupted``.
- ``Session(state_dir, command, *, settings, console, prompt, base, model, meta, cache)``:
  ``client(info)``, ``child(command, ...)``, ``update(**fields)``, ``finish(outcome, ...)``,
  ``usage``, ``own_usage``, ``id``.
- ``RunLog(state_dir)``: ``start(command, *, prompt, model, provider, base, meta) -> Run``;
  ``list(limit=None)``; ``get(id_or_prefix) -> RunRecord`` (with ``exchanges``); ``latest()``.
- ``Run``: ``id`` (12 hex), ``update(**fields)``, ``record(Exchange)``, ``finish(outcome, *,
  branch, commit, detail)`` (first call wins), ``interrupted()``; as a context manager it finishes
  ``ok`` / ``interrupted`` / ``llm-error`` / ``config-error`` / ``error`` by how the block ended.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .models import (
    DEFAULT_MODEL,
    KNOWN_MODELS,
    ModelInfo,
    Price,
    configured_model,
    output_cap,
    resolve_model,
)
from .tokens import count_text, estimate_tokens, format_tokens
from .usage import ZERO, Usage, format_cost, total

if TYPE_CHECKING:
    from .client import LLM, Reply, api_key
    from .runlog import Exchange, Run, RunLog, RunRecord, outcome_for

# Imported when first used: the client (with its providers, retries and cache) and the run
# log are a quarter of a start-up, and ``git gpte context`` needs neither.
_LAZY = {
    "LLM": "client",
    "Reply": "client",
    "api_key": "client",
    "Exchange": "runlog",
    "Run": "runlog",
    "RunLog": "runlog",
    "RunRecord": "runlog",
    "outcome_for": "runlog",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


__all__ = [
    "DEFAULT_MODEL",
    "KNOWN_MODELS",
    "LLM",
    "ZERO",
    "Exchange",
    "ModelInfo",
    "Price",
    "Reply",
    "Run",
    "RunLog",
    "RunRecord",
    "Usage",
    "api_key",
    "configured_model",
    "count_text",
    "estimate_tokens",
    "format_cost",
    "format_tokens",
    "outcome_for",
    "output_cap",
    "resolve_model",
    "total",
]
