"""Chat completions over plain HTTP: OpenAI and every OpenAI-compatible server.

One call is one POST to ``{base}/chat/completions`` and, when streamed, a server-sent event
stream of JSON chunks. The openai SDK does that too, but importing it costs about 0.6 s of CPU
(its thousand generated types) on every run, more than everything else improve does outside
the model call (``bench/improve_overhead.py``). The SDK's other services are not needed here:
its retries are off (:mod:`.client` retries with one policy for every provider), its typed
errors are mapped to :class:`ProviderFailure` anyway. The standard library's ``urllib`` keeps
what a user of the SDK relies on: HTTPS with the system's certificates, ``HTTPS_PROXY`` and
``NO_PROXY``, and one timeout per connect and per read. Azure OpenAI, with its deployments, API
versions and credentials, stays with the SDK (:class:`.providers.OpenAIProvider`).
"""

from __future__ import annotations

import http.client
import json
import os
import urllib.error
import urllib.request
from collections.abc import Iterable, Iterator, Mapping
from contextlib import closing
from typing import Any

from .. import __version__
from .models import OPENAI, ModelInfo
from .providers import (
    Completion,
    OnToken,
    ProviderFailure,
    Request,
    chat_completion_body,
    chat_params,
    cut_off,
    invalid_json,
    mid_reply_error,
    normalise_finish,
    not_json,
    provider_label,
    status_failure_of,
    transport_failure,
)

DEFAULT_BASE_URL = "https://api.openai.com/v1"


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirected POST would be replayed as a GET without its body: report the status."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def _opener() -> urllib.request.OpenerDirector:
    return urllib.request.build_opener(_NoRedirect)


def server_events(lines: Iterable[bytes]) -> Iterator[str]:
    """The data of each server-sent event (``data:`` lines joined), up to ``[DONE]``."""
    data: list[str] = []
    for raw in lines:
        line = raw.decode("utf-8", "replace").rstrip("\r\n")
        if line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
        elif not line and data:
            event = "\n".join(data)
            data = []
            if event.strip() == "[DONE]":
                return
            yield event
    if data and "\n".join(data).strip() != "[DONE]":
        yield "\n".join(data)


class ChatCompletionsProvider:
    """OpenAI and OpenAI-compatible servers, spoken to directly."""

    def __init__(self, info: ModelInfo, api_key: str, timeout: float) -> None:
        self.info = info
        self.timeout = timeout
        self.label = provider_label(info)
        self.url = (info.base_url or DEFAULT_BASE_URL).rstrip("/") + "/chat/completions"
        self.where = info.base_url or "api.openai.com"
        self.headers = {
            "Content-Type": "application/json",
            "User-Agent": f"git-gpte/{__version__}",
        }
        if api_key:
            self.headers["Authorization"] = f"Bearer {api_key}"
        self.headers.update(_account_headers(info))

    def complete(self, request: Request, on_token: OnToken) -> Completion:
        params = chat_params(self.info, request)
        if request.stream:
            params.update(stream=True, stream_options={"include_usage": True})
        text: list[str] = []
        try:
            with closing(self._post(params)) as response:
                content_type = str(response.headers.get("Content-Type", ""))
                if "event-stream" not in content_type:
                    return self._whole(response.read(), content_type, on_token, request.stream)
                return self._streamed(response, text, on_token)
        except urllib.error.HTTPError as exc:
            with closing(exc):
                body = _error_body(exc)
            headers = dict(exc.headers.items())
            raise status_failure_of(exc.code, body, headers, self.label) from None
        except TimeoutError as exc:
            raise self._timed_out(exc, "".join(text)) from None
        except urllib.error.URLError as exc:
            cause = exc.reason if isinstance(exc.reason, BaseException) else exc
            if isinstance(cause, TimeoutError):  # the connection itself timed out
                raise self._timed_out(cause, "".join(text)) from None
            raise transport_failure(self.label, self.where, cause, "".join(text)) from None
        except (OSError, http.client.HTTPException) as exc:
            raise transport_failure(self.label, self.where, exc, "".join(text)) from None

    def _timed_out(self, exc: BaseException, partial: str) -> ProviderFailure:
        if partial:
            return cut_off(self.label, partial, exc)
        return ProviderFailure(
            f"no answer from {self.where} within {self.timeout:g}s", retryable=True, kind="timeout"
        )

    def _post(self, params: dict[str, Any]) -> http.client.HTTPResponse:
        body = json.dumps(params).encode("utf-8")
        post = urllib.request.Request(self.url, data=body, headers=self.headers, method="POST")
        response: http.client.HTTPResponse = _opener().open(post, timeout=self.timeout)
        return response

    def _whole(
        self, raw: bytes, content_type: str, on_token: OnToken, streamed: bool
    ) -> Completion:
        """One JSON body: a reply not streamed, or a server that ignored ``stream``."""
        try:
            data = json.loads(raw)
        except ValueError as exc:
            if "json" in content_type:  # a JSON body cut short
                raise invalid_json(self.label, exc, "") from None
            raise not_json(self.label, raw, content_type) from None
        if not isinstance(data, Mapping):
            raise not_json(self.label, raw, content_type)
        return chat_completion_body(data, self.label, on_token if streamed else None)

    def _streamed(
        self, response: http.client.HTTPResponse, text: list[str], on_token: OnToken
    ) -> Completion:
        finish: str | None = None
        tokens_in = tokens_out = None
        for event in server_events(response):
            try:
                chunk = json.loads(event)
            except ValueError as exc:
                raise invalid_json(self.label, exc, "".join(text)) from None
            if not isinstance(chunk, Mapping):
                continue
            if chunk.get("error"):
                raise mid_reply_error(self.label, chunk, "".join(text))
            usage = chunk.get("usage")
            if isinstance(usage, Mapping):
                tokens_in = usage.get("prompt_tokens", tokens_in)
                tokens_out = usage.get("completion_tokens", tokens_out)
            for choice in chunk.get("choices") or ():
                if not isinstance(choice, Mapping):
                    continue
                delta = choice.get("delta")
                piece = delta.get("content") if isinstance(delta, Mapping) else None
                if piece:
                    text.append(str(piece))
                    on_token(str(piece))
                finish = choice.get("finish_reason") or finish
        if finish is None:
            raise cut_off(self.label, "".join(text))
        return Completion("".join(text), normalise_finish(finish), tokens_in, tokens_out)


# The variables the openai SDK reads for an organisation or project key's account: honoured the
# same way, and only for OpenAI itself (a compatible server has no use for them).
ACCOUNT_VARIABLES = {"OPENAI_ORG_ID": "OpenAI-Organization", "OPENAI_PROJECT_ID": "OpenAI-Project"}


def _account_headers(info: ModelInfo) -> dict[str, str]:
    if info.provider != OPENAI:
        return {}
    return {
        header: os.environ[name].strip()
        for name, header in ACCOUNT_VARIABLES.items()
        if os.environ.get(name, "").strip()
    }


def _error_body(exc: urllib.error.HTTPError) -> Any:
    """An error response's body: its JSON when it is JSON, else its text."""
    try:
        raw = exc.read()
    except (OSError, http.client.HTTPException):
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return raw.decode("utf-8", "replace")
