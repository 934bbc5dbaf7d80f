"""The wire protocols: chat completions (plain HTTP, :mod:`.chat_http`), Azure OpenAI and
Anthropic's messages (each through its official SDK).

A provider turns a :class:`Request` into a :class:`Completion`, calling ``on_token`` for each
streamed piece. It never retries (the SDKs' own retries are switched off: :mod:`.client` retries
with one policy for every provider) and it reports every failure as a :class:`ProviderFailure`
that says whether trying again could help. The SDKs are imported when a provider is created,
never at module import, so ``git gpte --help`` does not pay for them.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import closing, contextmanager, suppress
from dataclasses import dataclass, field
from typing import Any, Protocol

from .images import Image
from .kinds import kind_of
from .models import AZURE, COMPATIBLE, ModelInfo
from .retry import RETRYABLE_STATUS, parse_retry_after

OnToken = Callable[[str], None]


_OFFICIAL = ("api.openai.com", "api.anthropic.com")


def provider_label(info: ModelInfo) -> str:
    """Who answered, as errors name it: the provider, or the server at a custom base URL (an
    error from a proxy or a local server is not OpenAI's or Anthropic's)."""
    base = (info.base_url or "").rstrip("/")
    label = kind_of(info.provider).label
    vendor = kind_of(info.provider).base_url
    if info.provider == AZURE or not base or base == vendor or any(h in base for h in _OFFICIAL):
        return label
    if info.provider == COMPATIBLE:
        return f"the model server at {base}"
    return f"the {label}-compatible server at {base}"


@dataclass
class Request:
    model: str
    messages: list[dict[str, Any]]
    images: list[Image] = field(default_factory=list)
    temperature: float | None = None
    max_tokens: int | None = None
    stream: bool = True


@dataclass
class Completion:
    text: str
    finish_reason: str | None  # stop | length | content_filter | tool_calls | ...
    tokens_in: int | None = None
    tokens_out: int | None = None


class ProviderFailure(Exception):
    """A failed call, classified: ``retryable`` and the server's requested wait. ``kind``:
    status (an HTTP error), cut (the reply stopped mid-way, no reason given), event (an error
    event in the stream), timeout, refused, or error."""

    def __init__(
        self,
        message: str,
        *,
        retryable: bool,
        status: int | None = None,
        retry_after: float | None = None,
        partial: str = "",
        kind: str = "error",
    ) -> None:
        super().__init__(message)
        self.message = message
        self.retryable = retryable
        self.status = status
        self.retry_after = retry_after
        self.partial = partial
        self.kind = kind  # status | connection | timeout | cut


_FINISH = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "stop": "stop",
    "max_tokens": "length",
    "length": "length",
    "refusal": "content_filter",
    "content_filter": "content_filter",
    "tool_use": "tool_calls",
    "pause_turn": "pause",
}


def normalise_finish(reason: str | None) -> str | None:
    return None if reason is None else _FINISH.get(reason, reason)


def _body_message(body: Any) -> str | None:
    """The human-readable message inside an OpenAI or Anthropic error body."""
    if isinstance(body, Mapping):
        error = body.get("error", body)
        if isinstance(error, Mapping) and error.get("message"):
            return str(error["message"])
        if body.get("message"):
            return str(body["message"])
    if isinstance(body, str) and body.strip():
        return body.strip()
    return None


def _body_code(body: Any) -> str | None:
    if isinstance(body, Mapping):
        error = body.get("error", body)
        if isinstance(error, Mapping):
            for key in ("code", "type"):
                if error.get(key):
                    return str(error[key])
    return None


def status_failure(exc: Any, label: str) -> ProviderFailure:
    """Classify an SDK ``APIStatusError`` (works for both SDKs)."""
    response = getattr(exc, "response", None)
    headers: Mapping[str, str] = dict(response.headers) if response is not None else {}
    body = getattr(exc, "body", None)
    fallback = str(getattr(exc, "message", "") or exc)
    status = int(getattr(exc, "status_code", 0) or 0)
    return status_failure_of(status, body, headers, label, fallback)


def status_failure_of(
    status: int, body: Any, headers: Mapping[str, str] | None, label: str, fallback: str = ""
) -> ProviderFailure:
    """Classify an HTTP error status with its body (JSON or text) and headers."""
    message = _body_message(body) or fallback or f"HTTP {status}"
    code = _body_code(body)
    # Out of credit is a 429 that no amount of waiting fixes.
    retryable = status in RETRYABLE_STATUS and code != "insufficient_quota"
    return ProviderFailure(
        f"{label} error {status}: {_one_line(message, 400)}",
        retryable=retryable,
        status=status,
        retry_after=parse_retry_after(dict(headers or {})),
        kind="status",
    )


def mid_reply_error(label: str, body: Any, partial: str) -> ProviderFailure:
    """An error event inside a stream (an overloaded server, for one): worth another try."""
    message = _body_message(body) or str(body)
    return ProviderFailure(
        f"{label} reported an error mid-reply: {_one_line(message)}",
        retryable=True,
        partial=partial,
        kind="event",
    )


def _transport_error(exc: BaseException) -> bool:
    """A network-level failure (connection refused/reset, timeout, incomplete body)."""
    module = type(exc).__module__ or ""
    return isinstance(exc, OSError) or module.startswith(("httpx", "httpcore", "h11"))


def _describe_transport(exc: BaseException) -> str:
    """The most specific message in the exception chain ("[Errno 111] Connection refused")."""
    generic = ("Connection error.", "Request timed out.")
    current: BaseException | None = exc
    for _ in range(8):
        if current is None:
            break
        text = str(current).strip()
        if text and text not in generic:
            return text
        current = current.__cause__ or current.__context__
    return "timed out" if "timed out" in str(exc) else (str(exc) or type(exc).__name__)


def cut_off(label: str, partial: str, cause: BaseException | None = None) -> ProviderFailure:
    """A reply that stopped mid-stream: retryable, and never used as if it were whole."""
    why = f" ({_describe_transport(cause)})" if cause is not None else ""
    return ProviderFailure(
        f"the reply from {label} was cut off mid-stream after {len(partial)} characters{why}",
        retryable=True,
        partial=partial,
        kind="cut",
    )


def _refused(exc: BaseException) -> bool:
    """Whether the connection was refused (nothing listens at that address)."""
    current: BaseException | None = exc
    for _ in range(8):
        if current is None:
            return False
        if isinstance(current, ConnectionRefusedError):
            return True
        current = current.__cause__ or current.__context__
    return False


def transport_failure(label: str, where: str, exc: BaseException, partial: str) -> ProviderFailure:
    """The connection failed: a cut-off reply when some text had arrived, else unreachable
    (``refused`` when nothing listens there: a server that is not running)."""
    if partial:
        return cut_off(label, partial, exc)
    kind = "refused" if _refused(exc) else "connection"
    return ProviderFailure(
        f"cannot reach {where}: {_describe_transport(exc)}", retryable=True, kind=kind
    )


@contextmanager
def sdk_failures(
    sdk: Any, label: str, where: str, text: list[str], timeout: float | None = None
) -> Iterator[None]:
    """Translate an SDK's exceptions into :class:`ProviderFailure` (both SDKs share the shape).

    ``text`` is the reply received so far: a connection lost after some of it arrived is a
    cut-off reply, not an unreachable server.
    """
    try:
        yield
    except sdk.APIStatusError as exc:
        raise status_failure(exc, label) from None
    except sdk.APITimeoutError as exc:
        if text:
            raise cut_off(label, "".join(text), exc) from None
        wait = f" within {timeout:g}s" if timeout else ""
        raise ProviderFailure(
            f"no answer from {where}{wait}", retryable=True, kind="timeout"
        ) from None
    except sdk.APIConnectionError as exc:
        raise transport_failure(label, where, exc, "".join(text)) from None
    except sdk.APIError as exc:
        body = getattr(exc, "body", None)
        body = body if body is not None else str(exc)
        raise mid_reply_error(label, body, "".join(text)) from None
    except ProviderFailure:
        raise
    except ValueError as exc:  # json.JSONDecodeError: a body or a stream event cut short
        raise invalid_json(label, exc, "".join(text)) from None
    except Exception as exc:
        if _transport_error(exc):
            raise transport_failure(label, where, exc, "".join(text)) from None
        raise


def invalid_json(label: str, exc: ValueError, partial: str) -> ProviderFailure:
    """A JSON body or stream event cut short: retryable, like a dropped connection."""
    return ProviderFailure(
        f"{label} sent a reply that is not valid JSON ({_one_line(str(exc))})"
        + (f" after {len(partial):,} characters" if partial else ""),
        retryable=True,
        partial=partial,
        kind="cut",
    )


def _one_line(text: str, limit: int = 200) -> str:
    """A server's message on one line (blank lines and all), shortened."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def not_json(label: str, body: Any, content_type: str | None) -> ProviderFailure:
    """HTTP 200 whose body is not the JSON the API sends (an HTML page, a proxy's notice)."""
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else str(body)
    kind = f" ({content_type})" if content_type else ""
    return ProviderFailure(
        f"{label} answered with something that is not an API reply{kind}: {_one_line(text, 120)}",
        retryable=False,
        kind="status",
    )


def plain_body(stream: Any, label: str) -> Mapping[str, Any] | None:
    """The whole reply, when a server answered a streaming request with one plain JSON body
    (some OpenAI/Anthropic-compatible proxies do); None for a real event stream."""
    response = getattr(stream, "response", None)
    if response is None:
        return None
    content_type = str(response.headers.get("content-type", ""))
    if "event-stream" in content_type:
        return None
    try:
        raw = response.read()
    finally:
        with suppress(Exception):
            stream.close()
    try:
        data = json.loads(raw)
    except ValueError:
        raise not_json(label, raw, content_type) from None
    if not isinstance(data, Mapping):
        raise not_json(label, raw, content_type)
    return data


def _error_in(data: Mapping[str, Any], label: str) -> None:
    """A JSON body that is an error rather than a reply (sent with status 200)."""
    if data.get("type") == "error" or ("error" in data and "choices" not in data):
        message = _body_message(data) or "unknown error"
        raise ProviderFailure(f"{label} error: {_one_line(message)}", retryable=False)


def _with_images(
    messages: list[dict[str, Any]],
    images: list[Image],
    block: Callable[[Image], Any],
    text_block: Callable[[str], Any],
    images_first: bool,
) -> list[dict[str, Any]]:
    """Attach the images to the last user message as content blocks."""
    if not images:
        return messages
    out = [dict(m) for m in messages]
    for message in reversed(out):
        if message.get("role") == "user":
            content = message.get("content", "")
            text = [text_block(content)] if isinstance(content, str) else list(content)
            pictures = [block(image) for image in images]
            message["content"] = pictures + text if images_first else text + pictures
            return out
    out.append({"role": "user", "content": [block(image) for image in images]})
    return out


def chat_params(info: ModelInfo, request: Request) -> dict[str, Any]:
    """The body of a chat-completions call (the stream switches are the caller's)."""
    messages = _with_images(
        request.messages,
        request.images,
        lambda image: {"type": "image_url", "image_url": {"url": image.data_url}},
        lambda text: {"type": "text", "text": text},
        images_first=False,
    )
    params: dict[str, Any] = {"model": request.model, "messages": messages}
    if request.temperature is not None and info.temperature:
        params["temperature"] = request.temperature
    if request.max_tokens:
        key = "max_tokens" if info.temperature else "max_completion_tokens"
        params[key] = request.max_tokens
    return params


def chat_completion_body(
    data: Mapping[str, Any], label: str, on_token: OnToken | None
) -> Completion:
    """A chat completion sent as one JSON body (``on_token`` is told its text, when given)."""
    _error_in(data, label)
    choices = data.get("choices") or []
    if not choices or not isinstance(choices[0], Mapping):
        raise ProviderFailure(f"{label} returned no choices", retryable=True)
    choice = choices[0]
    message = choice.get("message") or choice.get("delta") or {}
    content = str(message.get("content") or "") if isinstance(message, Mapping) else ""
    if content and on_token is not None:
        on_token(content)
    raw_usage = data.get("usage")
    usage: Mapping[str, Any] = raw_usage if isinstance(raw_usage, Mapping) else {}
    return Completion(
        text=content,
        finish_reason=normalise_finish(choice.get("finish_reason")),
        tokens_in=usage.get("prompt_tokens"),
        tokens_out=usage.get("completion_tokens"),
    )


class OpenAIProvider:
    """Azure OpenAI, through the openai SDK (its deployments, API versions and credentials).

    OpenAI itself and compatible servers are spoken to directly (:mod:`.chat_http`)."""

    def __init__(self, info: ModelInfo, api_key: str, timeout: float) -> None:
        import openai

        self.info = info
        self.timeout = timeout
        self.label = provider_label(info)
        self._openai = openai
        if info.provider == AZURE:
            self.client: Any = openai.AzureOpenAI(
                azure_endpoint=info.base_url or "",
                api_version=info.api_version,
                api_key=api_key,
                max_retries=0,
                timeout=timeout,
            )
        else:
            self.client = openai.OpenAI(
                base_url=info.base_url or None, api_key=api_key, max_retries=0, timeout=timeout
            )

    def complete(self, request: Request, on_token: OnToken) -> Completion:
        openai = self._openai
        params = chat_params(self.info, request)
        text: list[str] = []
        where = self.info.base_url or "api.openai.com"
        with sdk_failures(openai, self.label, where, text, self.timeout):
            if not request.stream:
                response = self.client.chat.completions.create(**params)
                if not hasattr(response, "choices"):  # the SDK hands back a non-JSON body as is
                    raise not_json(self.label, response, None)
                if not response.choices:
                    raise ProviderFailure(f"{self.label} returned no choices", retryable=True)
                choice = response.choices[0]
                content = choice.message.content or ""
                usage = response.usage
                return Completion(
                    text=content,
                    finish_reason=normalise_finish(choice.finish_reason),
                    tokens_in=usage.prompt_tokens if usage else None,
                    tokens_out=usage.completion_tokens if usage else None,
                )
            stream = self.client.chat.completions.create(
                **params, stream=True, stream_options={"include_usage": True}
            )
            whole = plain_body(stream, self.label)
            if whole is not None:
                return chat_completion_body(whole, self.label, on_token)
            finish: str | None = None
            tokens_in = tokens_out = None
            # Closed however the loop ends: a reply stopped by ``on_token`` (one repeating
            # itself) must stop the server's work too.
            with closing(stream):
                for chunk in stream:
                    if chunk.usage is not None:
                        tokens_in = chunk.usage.prompt_tokens
                        tokens_out = chunk.usage.completion_tokens
                    for choice in chunk.choices or ():
                        piece = choice.delta.content if choice.delta else None
                        if piece:
                            text.append(piece)
                            on_token(piece)
                        if choice.finish_reason:
                            finish = choice.finish_reason
            if finish is None:
                raise cut_off(self.label, "".join(text))
            return Completion("".join(text), normalise_finish(finish), tokens_in, tokens_out)


def anthropic_messages(messages: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """Split out the system prompt and merge consecutive same-role turns (Anthropic's rules)."""
    system: list[str] = []
    turns: list[dict[str, Any]] = []
    for message in messages:
        role = message.get("role")
        content = message.get("content", "")
        if role == "system":
            system.append(content if isinstance(content, str) else str(content))
            continue
        role = "assistant" if role == "assistant" else "user"
        if (
            turns
            and turns[-1]["role"] == role
            and isinstance(content, str)
            and isinstance(turns[-1]["content"], str)
        ):
            turns[-1]["content"] += "\n\n" + content
        else:
            turns.append({"role": role, "content": content})
    if not turns or turns[0]["role"] != "user":
        turns.insert(0, {"role": "user", "content": "(see the system prompt)"})
    return "\n\n".join(system), turns


class AnthropicProvider:
    """Anthropic's messages API."""

    # Beyond this the SDK refuses non-streaming calls (it expects them to take > 10 minutes).
    NON_STREAMING_MAX_TOKENS = 16_384

    def __init__(self, info: ModelInfo, api_key: str, timeout: float) -> None:
        import anthropic

        self.info = info
        self.timeout = timeout
        self.label = provider_label(info)
        self._anthropic = anthropic
        self.client: Any = anthropic.Anthropic(
            api_key=api_key, base_url=info.base_url or None, max_retries=0, timeout=timeout
        )

    def _params(self, request: Request) -> dict[str, Any]:
        system, turns = anthropic_messages(request.messages)
        turns = _with_images(
            turns,
            request.images,
            lambda image: {
                "type": "image",
                "source": {"type": "base64", "media_type": image.media_type, "data": image.base64},
            },
            lambda text: {"type": "text", "text": text},
            images_first=True,
        )
        max_tokens = request.max_tokens or min(
            self.info.max_output_tokens or 8192, self.NON_STREAMING_MAX_TOKENS
        )
        params: dict[str, Any] = {
            "model": request.model,
            "messages": turns,
            "max_tokens": max_tokens,
        }
        if system:
            params["system"] = system
        # No temperature: the current SDK (and recent Claude models) no longer take one.
        return params

    def complete(self, request: Request, on_token: OnToken) -> Completion:
        anthropic = self._anthropic
        params = self._params(request)
        text: list[str] = []
        where = self.info.base_url or "api.anthropic.com"
        with sdk_failures(anthropic, self.label, where, text, self.timeout):
            if not request.stream:
                response = self.client.messages.create(**params)
                if not hasattr(response, "content"):  # the SDK hands back a non-JSON body as is
                    raise not_json(self.label, response, None)
                content = "".join(
                    block.text for block in response.content if getattr(block, "type", "") == "text"
                )
                usage = response.usage
                return Completion(
                    text=content,
                    finish_reason=normalise_finish(response.stop_reason),
                    tokens_in=_anthropic_input(usage),
                    tokens_out=usage.output_tokens if usage else None,
                )
            finish: str | None = None
            tokens_in = tokens_out = None
            stopped = False
            events = self.client.messages.create(**params, stream=True)
            whole = plain_body(events, self.label)
            if whole is not None:
                return _anthropic_body(whole, self.label, on_token)
            with closing(events):
                for event in events:
                    kind = event.type
                    if kind == "message_start":
                        tokens_in = _anthropic_input(event.message.usage)
                        tokens_out = event.message.usage.output_tokens
                    elif kind == "content_block_delta":
                        piece = getattr(event.delta, "text", None)
                        if piece:
                            text.append(piece)
                            on_token(piece)
                    elif kind == "message_delta":
                        finish = event.delta.stop_reason or finish
                        if event.usage is not None:
                            tokens_out = event.usage.output_tokens
                            later_in = _anthropic_input(event.usage)
                            tokens_in = later_in or tokens_in
                    elif kind == "message_stop":
                        stopped = True
            if finish is None or not stopped:
                raise cut_off(self.label, "".join(text))
            return Completion("".join(text), normalise_finish(finish), tokens_in, tokens_out)


def _anthropic_body(data: Mapping[str, Any], label: str, on_token: OnToken) -> Completion:
    """A message sent as one JSON body."""
    _error_in(data, label)
    blocks = data.get("content")
    if not isinstance(blocks, list):
        raise ProviderFailure(f"{label} returned a reply without content", retryable=True)
    content = "".join(
        str(block.get("text") or "")
        for block in blocks
        if isinstance(block, Mapping) and block.get("type") == "text"
    )
    if content:
        on_token(content)
    raw_usage = data.get("usage")
    usage: Mapping[str, Any] | None = raw_usage if isinstance(raw_usage, Mapping) else None
    tokens_in = None
    if usage:
        parts = [
            usage.get(name)
            for name in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
        ]
        known = [int(p) for p in parts if isinstance(p, int)]
        tokens_in = sum(known) if known else None
    return Completion(
        text=content,
        finish_reason=normalise_finish(data.get("stop_reason")),
        tokens_in=tokens_in,
        tokens_out=usage.get("output_tokens") if usage else None,
    )


def _anthropic_input(usage: Any) -> int | None:
    """Input tokens including prompt-cache reads and writes (all billed as input)."""
    if usage is None:
        return None
    total = 0
    seen = False
    for name in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"):
        value = getattr(usage, name, None)
        if value:
            total += int(value)
            seen = True
    return total if seen else None


class Provider(Protocol):
    """Turns a request into a completion, streaming its text to ``on_token``."""

    label: str

    def complete(self, request: Request, on_token: OnToken) -> Completion: ...


def _chat_http(info: ModelInfo, api_key: str, timeout: float) -> Provider:
    from .chat_http import ChatCompletionsProvider

    return ChatCompletionsProvider(info, api_key, timeout)


# protocol (a provider kind's column) -> (the SDK module it imports or None, its factory)
PROTOCOLS: dict[str, tuple[str | None, Callable[[ModelInfo, str, float], Provider]]] = {
    "chat-completions": (None, _chat_http),
    "azure-openai": ("openai", OpenAIProvider),
    "anthropic": ("anthropic", AnthropicProvider),
}


def prefetch(info: ModelInfo) -> None:
    """Start importing the SDK ``info``'s provider needs, in the background: the import then
    overlaps the planning, which mostly waits on git. The provider's own import waits for it
    to finish (Python's import lock)."""
    import importlib
    import threading

    name = PROTOCOLS[kind_of(info.provider).protocol][0]
    if name is None or name in sys.modules:
        return
    threading.Thread(
        target=importlib.import_module, args=(name,), name=f"import-{name}", daemon=True
    ).start()


def make_provider(info: ModelInfo, api_key: str, timeout: float) -> Provider:
    return PROTOCOLS[kind_of(info.provider).protocol][1](info, api_key, timeout)
