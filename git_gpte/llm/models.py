"""The model registry: a model name decides its provider and capabilities by table, not substring.

``resolve_model`` turns what the user configured (``--model``, ``MODEL_NAME``, ``git config
gpte.model``, TOML) plus the endpoint variables into a :class:`ModelInfo`. Known models carry their
context size, output limit, image support and price; dated variants (``gpt-4o-2024-08-06``,
``claude-sonnet-4-20250514``) inherit from their family. Any other name is served by an
OpenAI-compatible server when a base URL is configured, and is an error otherwise.

Prices are USD per million tokens as published by the providers (2025); override them with
``GPTE_PRICE`` / ``git config gpte.price`` ("input/output", e.g. ``2.5/10``).
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, replace
from urllib.parse import urlsplit

from ..config import Settings
from ..errors import ConfigError
from .kinds import ANTHROPIC as ANTHROPIC
from .kinds import AZURE as AZURE
from .kinds import COMPATIBLE as COMPATIBLE
from .kinds import OPENAI as OPENAI
from .kinds import PROVIDER_KINDS, provider_for_name

DEFAULT_MODEL = "gpt-4o"
DEFAULT_AZURE_API_VERSION = "2024-10-21"


@dataclass(frozen=True)
class Price:
    """USD per million input and output tokens."""

    input_per_million: float
    output_per_million: float

    def cost(self, tokens_in: int, tokens_out: int) -> float:
        return (tokens_in * self.input_per_million + tokens_out * self.output_per_million) / 1e6


@dataclass(frozen=True)
class Defaults:
    """What a model's speed and window make sensible, where the user has not said otherwise.

    Measured with a 1.5B code model on a 2-core machine (``bench/solve.py``): such a model
    reads ~70 tokens/s and writes ~20; it answers whole files right where its diffs and
    SEARCH/REPLACE blocks are mostly malformed; a 16k-token request takes ~4 minutes to read
    (longer than a hosted model's timeout) and a reply can run on without end.
    """

    edit_format: str  # diff | search-replace | whole | definitions
    context_tokens: int  # the selection's budget
    output_tokens: int | None  # cap on the reply (None: the provider's own)
    request_timeout: float  # seconds one read may wait (the first token comes after reading)
    # Times the model may ask for more context. A small model asks instead of editing: for a
    # test line it had no use for, then copying the test file back as its answer; twice for a
    # module that does not exist (bench/solve.py: settings/bool-case, ledger/statement-end-date).
    context_rounds: int = 2
    # The longest file the model is asked to write out whole when the edit format is its
    # default (None: as long as its output cap allows). Copying 3,250 tokens, a small model
    # changed a line nobody asked about and not the one asked for (settings/bool-case); files
    # of up to ~2,000 tokens it wrote back right (textstats, todo). Longer Python files are
    # asked for the functions changed instead.
    whole_file_tokens: int | None = None
    # With no check configured, the project's own tests check the result, failing it only on
    # tests it breaks (``--check auto``). A small model's wrong results mostly compile and
    # define every name: only running code tells (bench/solve.py, the closing table of
    # docs/benchmarks.md). Hosted models are left to the user's choice.
    test_check: bool = False
    # A result that passes the check is probed too: a script of asserts the model writes from
    # the request must fail on the base and pass on the result (pipeline/probe.py).
    probe: bool = False


HOSTED = Defaults(edit_format="diff", context_tokens=16384, output_tokens=None, request_timeout=120)
SELF_HOSTED = Defaults(
    edit_format="whole",
    context_tokens=4096,
    output_tokens=4096,
    request_timeout=600,
    context_rounds=0,
    whole_file_tokens=2500,
    test_check=True,
    probe=True,
)


@dataclass(frozen=True)
class ModelInfo:
    """What the rest of the tool needs to know about the model it talks to."""

    name: str  # sent to the API (the Azure deployment name for Azure)
    provider: str  # openai | azure | anthropic | openai-compatible
    supports_images: bool | None  # None: unknown (a compatible server decides)
    context_tokens: int | None
    max_output_tokens: int | None
    price: Price | None
    temperature: bool = True  # False for reasoning models that reject the parameter
    base_url: str | None = None
    api_version: str | None = None  # Azure only
    family: str | None = None  # the registry entry it matched, None for unknown models

    @property
    def known(self) -> bool:
        return self.family is not None

    self_hosted: bool = False  # LOCAL_MODEL, or an unknown model on a local-network server

    @property
    def local(self) -> bool:
        """Served from this machine (a key is then optional)."""
        return is_loopback(self.base_url)

    @property
    def defaults(self) -> Defaults:
        """Edit format, budget, output cap, timeout and context rounds for this kind of model."""
        return SELF_HOSTED if self.self_hosted else HOSTED

    def estimate_cost(self, tokens_in: int, tokens_out: int) -> float | None:
        """USD for that many tokens, or None when the price is unknown."""
        return self.price.cost(tokens_in, tokens_out) if self.price else None

    def describe(self) -> str:
        where = f" at {self.base_url}" if self.base_url else ""
        return f"{self.name} ({self.provider}{where})"


@dataclass(frozen=True)
class _Entry:
    provider: str
    context: int
    max_output: int
    images: bool
    price: tuple[float, float]
    temperature: bool = True


_O = OPENAI
_A = ANTHROPIC
# name -> capabilities. Dated or suffixed variants match their longest listed prefix.
KNOWN_MODELS: dict[str, _Entry] = {
    "gpt-5": _Entry(_O, 400_000, 128_000, True, (1.25, 10.0), temperature=False),
    "gpt-5-mini": _Entry(_O, 400_000, 128_000, True, (0.25, 2.0), temperature=False),
    "gpt-5-nano": _Entry(_O, 400_000, 128_000, True, (0.05, 0.40), temperature=False),
    "gpt-4.1": _Entry(_O, 1_047_576, 32_768, True, (2.0, 8.0)),
    "gpt-4.1-mini": _Entry(_O, 1_047_576, 32_768, True, (0.40, 1.60)),
    "gpt-4.1-nano": _Entry(_O, 1_047_576, 32_768, True, (0.10, 0.40)),
    "gpt-4o": _Entry(_O, 128_000, 16_384, True, (2.50, 10.0)),
    "gpt-4o-mini": _Entry(_O, 128_000, 16_384, True, (0.15, 0.60)),
    "chatgpt-4o-latest": _Entry(_O, 128_000, 16_384, True, (5.0, 15.0)),
    "gpt-4-turbo": _Entry(_O, 128_000, 4_096, True, (10.0, 30.0)),
    "gpt-4": _Entry(_O, 8_192, 8_192, False, (30.0, 60.0)),
    "gpt-4-32k": _Entry(_O, 32_768, 32_768, False, (60.0, 120.0)),
    "gpt-3.5-turbo": _Entry(_O, 16_385, 4_096, False, (0.50, 1.50)),
    "o1": _Entry(_O, 200_000, 100_000, True, (15.0, 60.0), temperature=False),
    "o1-mini": _Entry(_O, 128_000, 65_536, False, (1.10, 4.40), temperature=False),
    "o3": _Entry(_O, 200_000, 100_000, True, (2.0, 8.0), temperature=False),
    "o3-mini": _Entry(_O, 200_000, 100_000, False, (1.10, 4.40), temperature=False),
    "o4-mini": _Entry(_O, 200_000, 100_000, True, (1.10, 4.40), temperature=False),
    "claude-opus-4-5": _Entry(_A, 200_000, 64_000, True, (5.0, 25.0)),
    "claude-opus-4-1": _Entry(_A, 200_000, 32_000, True, (15.0, 75.0)),
    "claude-opus-4": _Entry(_A, 200_000, 32_000, True, (15.0, 75.0)),
    "claude-sonnet-4-5": _Entry(_A, 200_000, 64_000, True, (3.0, 15.0)),
    "claude-sonnet-4": _Entry(_A, 200_000, 64_000, True, (3.0, 15.0)),
    "claude-haiku-4-5": _Entry(_A, 200_000, 64_000, True, (1.0, 5.0)),
    "claude-3-7-sonnet": _Entry(_A, 200_000, 64_000, True, (3.0, 15.0)),
    "claude-3-5-sonnet": _Entry(_A, 200_000, 8_192, True, (3.0, 15.0)),
    "claude-3-5-haiku": _Entry(_A, 200_000, 8_192, True, (0.80, 4.0)),
    "claude-3-opus": _Entry(_A, 200_000, 4_096, True, (15.0, 75.0)),
    "claude-3-haiku": _Entry(_A, 200_000, 4_096, True, (0.25, 1.25)),
}

# Short names people type; the API receives the full name.
ALIASES: dict[str, str] = {
    "4o": "gpt-4o",
    "4o-mini": "gpt-4o-mini",
    "gpt4": "gpt-4",
    "gpt-4o-latest": "chatgpt-4o-latest",
    "sonnet": "claude-sonnet-4-5",
    "opus": "claude-opus-4-1",
    "haiku": "claude-haiku-4-5",
}


def is_loopback(url: str | None) -> bool:
    if not url:
        return False
    host = (urlsplit(url).hostname or "").lower()
    return host in ("localhost", "127.0.0.1", "::1", "0.0.0.0") or host.startswith("127.")


def is_local_network(url: str | None) -> bool:
    """This machine or the local network: a server people run themselves (Ollama on a desktop,
    llama.cpp on a box in the office), as opposed to a hosted API."""
    if is_loopback(url):
        return True
    host = (urlsplit(url or "").hostname or "").lower()
    if host.endswith((".local", ".lan", ".internal", ".home.arpa")) or "." not in host:
        return bool(host)
    try:
        return ipaddress.ip_address(host).is_private
    except ValueError:
        return False


# A suffix that starts with a small number is a newer version ("claude-opus-4" + "-5"), not a
# dated snapshot of the family ("-20250514", "-0613", "-2024-08-06"): it must not inherit the
# family's price or limits.
_VERSION_SUFFIX = re.compile(r"-\d{1,2}(?:-|$)")


def lookup(name: str) -> tuple[str, _Entry] | None:
    """The registry entry for ``name``: exact, else the longest listed family it is a dated or
    suffixed variant of (``gpt-4o-2024-08-06`` → ``gpt-4o``; ``claude-opus-4-6`` → none)."""
    if name in KNOWN_MODELS:
        return name, KNOWN_MODELS[name]
    best: str | None = None
    for family in KNOWN_MODELS:
        suffix = name[len(family) :]
        if (
            name.startswith(family + "-")
            and not _VERSION_SUFFIX.match(suffix)
            and (best is None or len(family) > len(best))
        ):
            best = family
    return (best, KNOWN_MODELS[best]) if best else None


def parse_price(text: str) -> Price:
    """``"2.5/10"`` (or ``"2.5,10"``): USD per million input / output tokens."""
    parts = re.split(r"[/,\s]+", str(text).strip())
    try:
        if len(parts) != 2:
            raise ValueError
        return Price(float(parts[0]), float(parts[1]))
    except ValueError:
        raise ConfigError(
            f"cannot read price {text!r}",
            hint="GPTE_PRICE / gpte.price is 'input/output' in USD per million tokens, e.g. 2.5/10",
        ) from None


def configured_model(settings: Settings, flag: str | None = None) -> str:
    name = settings.get(flag=flag or None, env=("MODEL_NAME",), git="gpte.model", toml=("model",))
    return str(name).strip() if name else DEFAULT_MODEL


def openai_base_url(settings: Settings) -> str | None:
    value = settings.get(
        env=("OPENAI_BASE_URL", "OPENAI_API_BASE"), git="gpte.baseUrl", toml=("base_url",)
    )
    return str(value).rstrip("/") if value else None


def anthropic_base_url(value: object) -> str | None:
    """``ANTHROPIC_BASE_URL`` as the SDK wants it: the host, without the ``/v1`` it appends itself.

    People write it both ways (``https://api.anthropic.com`` and ``https://api.anthropic.com/v1``,
    the form OpenAI's variable takes); with the ``/v1`` the SDK would post to ``/v1/v1/messages``.
    """
    if not value:
        return None
    url = str(value).strip().rstrip("/")
    if url.endswith("/v1"):
        url = url[: -len("/v1")]
    return url or None


def output_cap(info: ModelInfo, settings: Settings) -> int | None:
    """The most tokens one reply may have: ``GPTE_MAX_TOKENS`` / ``gpte.maxTokens``, else the
    cap of the model's kind (a local model's reply is capped, so a runaway reply ends), else
    None (the provider's own limit)."""
    configured = settings.get_int(env=("GPTE_MAX_TOKENS",), git="gpte.maxTokens", default=0)
    return configured or info.defaults.output_tokens


def request_timeout(info: ModelInfo, settings: Settings) -> float:
    """Seconds one network read may wait: ``GPTE_REQUEST_TIMEOUT`` / ``gpte.requestTimeout``,
    else what suits the model's kind (a local model reads the whole prompt before its first
    token: minutes for a few thousand tokens on a small machine)."""
    return settings.get_float(
        env=("GPTE_REQUEST_TIMEOUT",),
        git="gpte.requestTimeout",
        default=info.defaults.request_timeout,
        what="GPTE_REQUEST_TIMEOUT",
        positive=True,
    )


def closest_model(name: str) -> str | None:
    """The known model (or alias) a mistyped ``name`` most likely meant, or None."""
    import difflib

    found = difflib.get_close_matches(name.lower(), [*KNOWN_MODELS, *ALIASES], n=1, cutoff=0.75)
    return ALIASES.get(found[0], found[0]) if found else None


def known_models_text() -> str:
    return ", ".join(sorted(KNOWN_MODELS))


def resolve_model(name: str | None, settings: Settings) -> ModelInfo:
    """The model to use and where it lives; ``name`` is the ``--model`` flag (or None).

    Order of decision: ``claude-*`` → Anthropic; an Azure endpoint → Azure (deployment = name);
    ``LOCAL_MODEL`` → the OpenAI-compatible server at the base URL; OpenAI names → OpenAI (through
    the base URL when one is set, e.g. a proxy); any other name with a base URL →
    OpenAI-compatible; otherwise a :class:`ConfigError` listing what is known.
    """
    model = configured_model(settings, name)
    model = ALIASES.get(model, model)
    found = lookup(model)
    family, entry = found if found else (None, None)
    provider_hint = entry.provider if entry else provider_for_name(model)

    base_url = openai_base_url(settings)
    azure_endpoint = settings.get(env=("AZURE_OPENAI_ENDPOINT",), git="gpte.azureEndpoint")
    local = settings.get_bool(env=("LOCAL_MODEL",), git="gpte.localModel", default=False)

    info = ModelInfo(
        name=model,
        provider=provider_hint or COMPATIBLE,
        supports_images=entry.images if entry else None,
        context_tokens=entry.context if entry else None,
        max_output_tokens=entry.max_output if entry else None,
        price=Price(*entry.price) if entry else None,
        # Newer OpenAI models are reasoning models that reject a temperature: send none.
        temperature=entry.temperature if entry else provider_hint != OPENAI,
        family=family,
    )
    vendor = PROVIDER_KINDS.get(provider_hint or "")
    if provider_hint == ANTHROPIC:
        # Claude models always go to Anthropic's messages API, even with an Azure endpoint set.
        anthropic_url = settings.get(env=("ANTHROPIC_BASE_URL",), git="gpte.anthropicBaseUrl")
        info = replace(info, base_url=anthropic_base_url(anthropic_url))
    elif vendor is not None and provider_hint not in (OPENAI, AZURE, COMPATIBLE):
        # A vendor of its own (a row of the provider table): its address, its key.
        own = settings.get(env=vendor.base_url_variables) if vendor.base_url_variables else None
        address = str(own).rstrip("/") if own else vendor.base_url
        info = replace(info, provider=vendor.name, base_url=address)
    elif azure_endpoint:
        version = settings.get(
            env=("OPENAI_API_VERSION",),
            git="gpte.azureApiVersion",
            default=DEFAULT_AZURE_API_VERSION,
        )
        info = replace(
            info, provider=AZURE, base_url=str(azure_endpoint).rstrip("/"), api_version=str(version)
        )
    elif local:
        if not base_url:
            raise ConfigError(
                "LOCAL_MODEL is set but no server address is configured",
                hint="set OPENAI_BASE_URL (or OPENAI_API_BASE), e.g. http://localhost:11434/v1",
            )
        info = replace(info, provider=COMPATIBLE, base_url=base_url, self_hosted=True)
    elif provider_hint == OPENAI:
        info = replace(info, base_url=base_url)
    elif base_url:
        info = replace(
            info,
            provider=COMPATIBLE,
            base_url=base_url,
            self_hosted=family is None and is_local_network(base_url),
        )
    else:
        close = closest_model(model)
        raise ConfigError(
            f"unknown model {model!r}"
            + (f": did you mean {close!r}?" if close else f"; known models: {known_models_text()}"),
            hint="for a local or OpenAI-compatible server (Ollama, llama.cpp, vLLM) set "
            "OPENAI_BASE_URL (or git config gpte.baseUrl) to its address",
        )

    price = settings.get(env=("GPTE_PRICE",), git="gpte.price", toml=("price",))
    if price:
        info = replace(info, price=parse_price(str(price)))
    window = _window(settings)
    if window:
        info = replace(info, context_tokens=window)
    return info


# The smallest window a context window setting may give: a request needs room for its reply
# (4,096 tokens are kept for it) and for the selection and the prompt beside it.
MIN_WINDOW = 8192


def _window(settings: Settings) -> int | None:
    """The model's window as the user gives it (``GPTE_CONTEXT_WINDOW``): a self-hosted
    server's is its own setting (llama.cpp's ``--ctx-size``, Ollama's ``num_ctx``), which no
    OpenAI-compatible API reports, so retries and selections are fitted to it only when said."""
    window = settings.get_int(
        env=("GPTE_CONTEXT_WINDOW",), git="gpte.contextWindow", toml=("context_window",), default=0
    )
    if window and window < MIN_WINDOW:
        raise ConfigError(
            f"GPTE_CONTEXT_WINDOW must be at least {MIN_WINDOW:,} tokens, got {window:,}",
            hint="4,096 are kept for the reply; give the server a larger window",
        )
    return window or None
