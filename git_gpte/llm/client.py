"""``LLM.ask``: one model call, streamed, retried, cached, counted and logged.

The one place that knows the order of things: check images, estimate, look in the cache, call
the provider (retrying what can be retried), turn usage into cost, record the exchange in the run,
add to the totals. Failures become :class:`~git_gpte.errors.LLMError` with the provider's own
message; Ctrl-C is recorded (the exchange so far, the run as interrupted) and re-raised.
"""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

from ..config import Settings
from ..errors import (
    ConfigError,
    GpteError,
    LLMError,
    ReplyTruncated,
    UsageError,
    WindowExceeded,
)
from ..ui import Console
from .cache import CachedReply, ResponseCache, cache_key
from .images import Image, load_image
from .kinds import kind_of
from .models import ANTHROPIC, COMPATIBLE, OPENAI, ModelInfo, output_cap, request_timeout
from .providers import Completion, Provider, ProviderFailure, Request, make_provider
from .repetition import STEP, LoopWatch, loop_start
from .retry import RetryClock, RetryPolicy
from .runlog import Exchange, Run
from .tokens import IMAGE_TOKENS, count_text, estimate_tokens, format_tokens
from .usage import ZERO, Usage

_T = TypeVar("_T")

DEFAULT_TEMPERATURE = 0.1  # gpt-engineer's: low, for code


# How providers and local servers say a request is longer than the window (OpenAI's code
# context_length_exceeded, llama.cpp's "exceeds the available context size", vLLM's
# "maximum context length", llama-cpp-python's "exceed context window").
_TOO_LONG = re.compile(
    r"context[_ ]length[_ ]exceeded|maximum context length|exceeds? (?:the )?(?:available )?"
    r"context (?:size|window)|context window of",
    re.IGNORECASE,
)


# A caller's judgement that a streaming reply has said all it needs to: where to cut it and
# what to tell the user, or None to go on (see ``LLM.ask``'s ``enough``).
Enough = Callable[[str], "tuple[int, str] | None"]


class _Enough(Exception):
    """Raised from the token callback when the caller's ``enough`` says the reply is done."""

    def __init__(self, cut: int, note: str) -> None:
        super().__init__(cut)
        self.cut = cut
        self.note = note


class _Looping(Exception):
    """Raised from the token callback to stop a reply that repeats itself; ``cut`` is where the
    loop starts in the text received."""

    def __init__(self, cut: int) -> None:
        super().__init__(cut)
        self.cut = cut


@dataclass(frozen=True)
class Reply:
    """A complete reply and what it cost."""

    text: str
    tokens_in: int
    tokens_out: int
    cost_usd: float | None  # None when the model's price is unknown; 0.0 for a cache hit
    finish_reason: str | None
    cached: bool = False
    usage_exact: bool = True  # False when the API sent no usage and tokens were estimated
    attempts: int = 1
    elapsed: float = 0.0
    # Why the reply was cut short by the caller's ``enough`` (see LLM.ask), "" when it was not.
    stopped: str = ""

    @property
    def usage(self) -> Usage:
        """What this call spent (nothing for a cache hit)."""
        if self.cached:
            return ZERO
        return Usage(self.tokens_in, self.tokens_out, self.cost_usd, self.usage_exact)


def key_variables(info: ModelInfo) -> tuple[str, ...]:
    """The variables that may hold the key for ``info``'s provider, the usual one first."""
    return kind_of(info.provider).key_variables


def api_key(info: ModelInfo, settings: Settings) -> str:
    """The key for ``info``'s provider; a local or compatible server does not need one."""
    names = key_variables(info)
    key = settings.get(env=names)
    if key:
        return str(key)
    if not kind_of(info.provider).needs_key or info.local:
        return "not-needed"
    hint = f"export {names[0]}=..."
    if info.provider == ANTHROPIC:
        if settings.get(env=("AZURE_OPENAI_ENDPOINT",), git="gpte.azureEndpoint"):
            hint += "; claude-* models go to Anthropic, not to the Azure endpoint"
    elif info.provider == OPENAI:
        hint += "; for a local server set OPENAI_BASE_URL=... and LOCAL_MODEL=1"
    raise ConfigError(f"{names[0]} is not set; {info.describe()} needs an API key", hint=hint)


def _number(settings: Settings, default: float, env: str, git: str) -> float:
    return settings.get_float(env=(env,), git=git, default=default, what=env)


class LLM:
    """A configured model: ``LLM(info, settings, console=..., run=...).ask(messages)``."""

    def __init__(
        self,
        info: ModelInfo,
        settings: Settings,
        *,
        console: Console | None = None,
        cache: bool | None = None,
        state_dir: Path | str | None = None,
        run: Run | None = None,
        stream: bool | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.info = info
        self.settings = settings
        self.console = console or Console(quiet=True)
        self.run = run
        self.key = api_key(info, settings)  # fail before any work is done
        self.policy = RetryPolicy.from_settings(settings)
        self.timeout = request_timeout(info, settings)
        self.temperature = (
            temperature
            if temperature is not None
            else _number(settings, DEFAULT_TEMPERATURE, "GPTE_TEMPERATURE", "gpte.temperature")
        )
        self.max_tokens = max_tokens or output_cap(info, settings)
        self.stream = (
            stream
            if stream is not None
            else settings.get_bool(env=("GPTE_STREAM",), git="gpte.stream", default=True)
        )
        # ``cache`` is the --cache flag: True turns the cache on; not given (None, or the False
        # of an unset flag) leaves it to GPTE_CACHE / gpte.cache.
        use_cache = settings.get_bool(
            flag=True if cache else None, env=("GPTE_CACHE",), git="gpte.cache", default=False
        )
        if use_cache and state_dir is None:
            raise UsageError("the response cache needs a repository (it lives in .git/gpte/)")
        self.cache = ResponseCache(state_dir) if use_cache and state_dir is not None else None
        self.usage: Usage = ZERO  # every call so far, summed (cache hits add nothing)
        self.calls = 0
        self.cached_calls = 0
        self._sleep = sleep
        self._provider: Provider | None = None

    @property
    def provider(self) -> Provider:
        if self._provider is None:
            self._provider = make_provider(self.info, self.key, self.timeout)
        return self._provider

    # ------------------------------------------------------------------ the call
    def ask(
        self,
        messages: Sequence[Mapping[str, Any]],
        images: Sequence[str | Path] = (),
        *,
        temperature: float | None = None,
        enough: Enough | None = None,
    ) -> Reply:
        """One call. ``temperature`` overrides the configured one for this call (a retry of a
        small model that gave the same answer twice is asked to vary it). ``enough`` looks at
        the text received so far, every few hundred characters: when it gives a cut point, the
        reply ends there as if the model had stopped (a small model that starts writing out
        again a file it already wrote costs minutes for nothing), and its note is shown."""
        call = self._prepare(messages, images, temperature)
        key = self._cache_key(call)
        if key is not None:
            hit = self._cache_call(lambda cache: cache.get(key))
            if hit is not None:
                return self._cached(call.sent, call.loaded, hit)
        self.console.info(f"asking {self.info.name} ({format_tokens(call.estimate, call.exact)})")
        streaming = _Streaming(self.console, enough)
        completion = self._complete(call, streaming)
        stopped = streaming.stopped
        if completion.finish_reason != "loop" and not stopped:
            completion, stopped = _judged(completion, enough)  # a reply that was not streamed
        reply = self._reply(completion, call.sent, streaming.attempts, call.started)
        if stopped:
            reply = replace(reply, stopped=stopped)
        self.console.end_stream(
            f"received {len(reply.text):,} characters: {reply.usage.describe()}"
        )
        if stopped:
            self.console.info(stopped)
        self._count(reply)
        error = _FINISH_ERRORS.get(reply.finish_reason or "")
        self._log(call.sent, call.loaded, reply.text, reply, call.started, streaming.attempts,
                  error=error)  # fmt: skip
        self._refuse_unfinished(reply)
        if key is not None:
            self._store(key, reply)
        return reply

    def _prepare(
        self,
        messages: Sequence[Mapping[str, Any]],
        images: Sequence[str | Path],
        temperature: float | None,
    ) -> _Call:
        """The call as it will be sent: messages, images, temperature, the size estimate (with
        a warning when it is over the model's window)."""
        info = self.info
        sent = [dict(m) for m in messages]
        loaded = self._images(images)
        estimate, exact = estimate_tokens(sent, info.name)
        if loaded:
            estimate, exact = estimate + IMAGE_TOKENS * len(loaded), False
        if info.context_tokens and estimate > info.context_tokens:
            self.console.warn(
                f"the request is {format_tokens(estimate, exact)}, more than {info.name}'s "
                f"context of {info.context_tokens:,}"
            )
        heat = self.temperature if temperature is None else temperature
        request = Request(
            model=info.name,
            messages=sent,
            images=loaded,
            temperature=heat,
            max_tokens=self.max_tokens,
            stream=self.stream,
        )
        return _Call(sent, loaded, estimate, exact, heat, request, time.monotonic())

    def _cache_key(self, call: _Call) -> str | None:
        """The response cache's key for this call (None: no cache)."""
        if self.cache is None:
            return None
        info = self.info
        params = {
            "temperature": call.heat if info.temperature else None,
            "max_tokens": self.max_tokens,
        }
        return cache_key(
            provider=info.provider,
            base_url=info.base_url,
            model=info.name,
            messages=[*call.sent, {"images": [i.reference() for i in call.loaded]}],
            params=params,
        )

    def _complete(self, call: _Call, streaming: _Streaming) -> Completion:
        """The provider's completion, retried on the failures worth retrying, within the retry
        policy; a reply that loops or is judged complete ends early. Ctrl-C records what the
        interrupted call used, then goes on up."""
        clock = RetryClock(self.policy)
        request = call.request
        try:
            while True:
                streaming.attempts += 1
                streaming.partial.clear()
                tried = time.monotonic()
                try:
                    streaming.in_call = True
                    with self.console.waiting(self.info.name):
                        return self.provider.complete(request, streaming.on_token)
                except _Looping as looping:
                    return Completion(streaming.text[: looping.cut], "loop", None, None)
                except _Enough as done:
                    streaming.stopped = done.note
                    return Completion(streaming.text[: done.cut], "stop", None, None)
                except ProviderFailure as failure:
                    self._wait_to_retry(failure, call, streaming, clock, tried)
                    if request.stream and failure.kind == "cut" and not failure.partial:
                        # A stream that dies before its first character: some servers (seen:
                        # llama-cpp-python, for a request over its window) fail after sending
                        # their headers, and only a plain request gets their reason back.
                        request = replace(request, stream=False)
        except KeyboardInterrupt:
            self._interrupted(call, streaming)
            raise

    def _wait_to_retry(
        self,
        failure: ProviderFailure,
        call: _Call,
        streaming: _Streaming,
        clock: RetryClock,
        tried: float,
    ) -> None:
        """Sleep before the next try, or raise the failure when it is not worth another."""
        streaming.in_call = False
        if streaming.partial:
            self.console.end_stream()
        else:
            clock.spend(time.monotonic() - tried)
        # A local server that is not running will not start by waiting.
        retry = failure.retryable and not (failure.kind == "refused" and self.info.local)
        delay = clock.next_delay(failure.retry_after) if retry else None
        if delay is None:
            raise self._give_up(
                call.sent, call.loaded, failure, streaming.attempts, call.started, clock.why
            ) from None
        self.console.warn(
            f"{' '.join(failure.message.split())}; retrying in {delay:.1f}s "
            f"(try {streaming.attempts + 1} of {self.policy.max_retries + 1})"
        )
        self._sleep(delay)

    def _interrupted(self, call: _Call, streaming: _Streaming) -> None:
        """A request stopped while it was being answered is billed: record an estimate of what
        it used (marked as one) rather than a cost of zero."""
        self.console.end_stream()
        spent = None
        if streaming.in_call:
            spent = self._reply(
                Completion(streaming.text, None, None, None),
                call.sent,
                streaming.attempts,
                call.started,
                call.estimate,
            )
        self._log(call.sent, call.loaded, streaming.text, spent, call.started, streaming.attempts,
                  error="interrupted")  # fmt: skip
        if spent is not None:
            self._count(spent)

    def _refuse_unfinished(self, reply: Reply) -> None:
        """A reply cut at the output limit, stopped for repeating itself or filtered is never
        used as an answer."""
        name = self.info.name
        if reply.finish_reason == "length":
            raise ReplyTruncated(
                f"the reply from {name} stopped at the output token limit "
                f"after {reply.tokens_out:,} tokens",
                partial=reply.text,
                hint="ask for a smaller change, or raise GPTE_MAX_TOKENS",
                tokens_out=reply.tokens_out,
            )
        if reply.finish_reason == "loop":
            self.console.warn(
                f"{name} started repeating itself after ~{reply.tokens_out:,} tokens; stopped it"
            )
            raise ReplyTruncated(
                f"the reply from {name} was stopped: it kept repeating the same lines",
                partial=reply.text,
                looped=True,
                tokens_out=reply.tokens_out,
            )
        if reply.finish_reason == "content_filter":
            raise LLMError(f"{name} refused to answer (content filter)")

    def _store(self, key: str, reply: Reply) -> None:
        entry = CachedReply(
            reply.text, reply.tokens_in, reply.tokens_out, reply.usage_exact, reply.finish_reason
        )
        info = self.info
        self._cache_call(lambda cache: cache.put(key, info.provider, info.name, entry))

    # ------------------------------------------------------------------ helpers
    def _cache_call(self, use: Callable[[ResponseCache], _T]) -> _T | None:
        """Use the response cache; a broken one never fails a run: warn, go on without it."""
        if self.cache is None:
            return None
        try:
            return use(self.cache)
        except (GpteError, sqlite3.Error) as exc:
            text = exc.render() if isinstance(exc, GpteError) else f"{self.cache.path}: {exc}"
            self.console.warn(f"the response cache is not used: {text}")
            self.cache.close()
            self.cache = None
            return None

    def _count(self, reply: Reply) -> None:
        self.calls += 1
        self.cached_calls += int(reply.cached)
        self.usage = self.usage + reply.usage

    def _images(self, paths: Sequence[str | Path]) -> list[Image]:
        if not paths:
            return []
        if self.info.supports_images is False:
            raise UsageError(
                f"model {self.info.name!r} does not accept images",
                hint="use a model that does, e.g. gpt-4o or claude-sonnet-4-5",
            )
        return [load_image(path) for path in paths]

    def _reply(
        self,
        completion: Completion,
        sent: list[dict[str, Any]],
        attempts: int,
        started: float,
        estimated_in: int | None = None,
    ) -> Reply:
        exact = True
        tokens_in = completion.tokens_in
        tokens_out = completion.tokens_out
        if tokens_in is None:
            tokens_in = estimated_in or estimate_tokens(sent, self.info.name)[0]
            exact = False
        if tokens_out is None:
            tokens_out, _ = count_text(completion.text, self.info.name)
            exact = False
        return Reply(
            text=completion.text,
            tokens_in=tokens_in,
            tokens_out=tokens_out,
            cost_usd=self.info.estimate_cost(tokens_in, tokens_out),
            finish_reason=completion.finish_reason,
            usage_exact=exact,
            attempts=attempts,
            elapsed=time.monotonic() - started,
        )

    def _cached(self, sent: list[dict[str, Any]], loaded: list[Image], hit: CachedReply) -> Reply:
        self.console.info(f"using the cached reply from {self.info.name}")
        self.console.token(hit.text)
        self.console.end_stream(f"cached reply: {len(hit.text):,} characters")
        reply = Reply(
            text=hit.text,
            tokens_in=hit.tokens_in,
            tokens_out=hit.tokens_out,
            cost_usd=0.0,
            finish_reason=hit.finish_reason,
            cached=True,
            usage_exact=hit.usage_exact,
            attempts=0,
        )
        self._count(reply)
        self._log(sent, loaded, hit.text, reply, time.monotonic(), 0)
        return reply

    def _give_up(
        self,
        sent: list[dict[str, Any]],
        loaded: list[Image],
        failure: ProviderFailure,
        attempts: int,
        started: float,
        why: str = "",
    ) -> LLMError:
        message = failure.message
        hint = None
        if failure.kind == "refused" and self.info.local:
            message = f"nothing is listening at {self.info.base_url}: is the server running?"
            hint = "start it (ollama serve, llama-server, ...) or point OPENAI_BASE_URL at it"
        elif failure.retryable:
            tries = "1 try" if attempts == 1 else f"{attempts} tries"
            message += f" (gave up after {tries}, {time.monotonic() - started:.1f}s"
            message += f": {why})" if why else ")"
            hint = "GPTE_MAX_RETRIES and GPTE_MAX_RETRY_SECONDS set how long to keep trying"
            if failure.kind == "timeout":
                hint += ", GPTE_REQUEST_TIMEOUT how long one try waits for an answer"
        elif failure.status == 400 and _TOO_LONG.search(failure.message):
            self._log(sent, loaded, failure.partial, None, started, attempts, error=message)
            return WindowExceeded(
                message,
                hint="the request is longer than the model's context window: lower "
                "--context-tokens (or GPTE_CONTEXT_TOKENS), narrow the files with pathspecs, or "
                "lower GPTE_MAX_TOKENS (the room kept for the reply)",
            )
        elif failure.status in (401, 403):
            hint = f"check {key_variables(self.info)[0]}"
        elif failure.status == 404:
            hint = f"is {self.info.name!r} a model or Azure deployment this endpoint serves?"
            base = self.info.base_url or ""
            if self.info.provider in (OPENAI, COMPATIBLE) and base and not base.endswith("/v1"):
                hint += f" OpenAI-compatible servers usually need /v1 at the end: {base}/v1"
        self._log(sent, loaded, failure.partial, None, started, attempts, error=message)
        return LLMError(message, hint=hint)

    def _log(
        self,
        sent: list[dict[str, Any]],
        loaded: list[Image],
        text: str,
        reply: Reply | None,
        started: float,
        attempts: int,
        error: str | None = None,
    ) -> None:
        if self.run is None:
            return
        self.run.record(
            Exchange(
                messages=sent,
                reply=text,
                model=self.info.name,
                provider=self.info.provider,
                tokens_in=reply.tokens_in if reply else 0,
                tokens_out=reply.tokens_out if reply else 0,
                usage_exact=reply.usage_exact if reply else False,
                cost_usd=reply.cost_usd if reply else None,
                finish_reason=reply.finish_reason if reply else None,
                cached=reply.cached if reply else False,
                elapsed=reply.elapsed if reply else time.monotonic() - started,
                attempts=attempts,
                error=error,
                stopped=reply.stopped if reply else "",
                images=[image.reference() for image in loaded],
            )
        )


# What each way a reply can end early is called in the run log.
_FINISH_ERRORS = {
    "length": "reply cut off at the output token limit",
    "loop": "reply stopped: it was repeating itself",
    "content_filter": "the provider refused to answer (content filter)",
}


@dataclass(frozen=True)
class _Call:
    """One call as it is sent: the messages and images, their size, the request."""

    sent: list[dict[str, Any]]
    loaded: list[Image]
    estimate: int
    exact: bool
    heat: float | None
    request: Request
    started: float


class _Streaming:
    """What one call has received so far, across its tries: each piece is shown, watched for a
    loop and, every few hundred characters, offered to ``enough``."""

    def __init__(self, console: Console, enough: Enough | None) -> None:
        self.console = console
        self.enough = enough
        self.partial: list[str] = []
        self.watch = LoopWatch()
        self.looked_at = 0
        self.attempts = 0
        self.in_call = False
        self.stopped = ""

    @property
    def text(self) -> str:
        return "".join(self.partial)

    def on_token(self, piece: str) -> None:
        self.partial.append(piece)
        self.console.token(piece)
        cut = self.watch.feed(piece)
        if cut is not None:
            raise _Looping(cut)
        if self.enough is not None and self.watch.size >= self.looked_at + STEP:
            self.looked_at = self.watch.size
            done = self.enough(self.text)
            if done is not None:
                raise _Enough(*done)


def _judged(completion: Completion, enough: Enough | None) -> tuple[Completion, str]:
    """A whole reply (not streamed) looked at as a streamed one is: cut where it loops, or
    where ``enough`` says it has said all it needs to (with the note to show)."""
    used = (completion.tokens_in, completion.tokens_out)
    cut = loop_start(completion.text)
    if cut is not None:
        return Completion(completion.text[:cut], "loop", *used), ""
    done = enough(completion.text) if enough is not None else None
    if done is not None:
        return Completion(completion.text[: done[0]], completion.finish_reason, *used), done[1]
    return completion, ""
