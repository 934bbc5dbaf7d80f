"""A scripted LLM server on 127.0.0.1 speaking the real wire protocols.

The official ``openai`` and ``anthropic`` SDKs talk to it through their base-URL settings, so tests
exercise the same HTTP, JSON and SSE parsing a user's machine does. It answers:

* ``POST /v1/chat/completions`` — OpenAI and OpenAI-compatible servers (JSON, or SSE when
  ``stream`` is true; a final usage chunk when ``stream_options.include_usage`` is set);
* ``POST /openai/deployments/{deployment}/chat/completions`` — Azure OpenAI (same payloads);
* ``POST /v1/messages`` — Anthropic (JSON, or the SSE event stream ``message_start`` …
  ``message_stop``).

Replies are scripted with :meth:`LLMServer.queue`; each request takes the next item:

* a string — a complete reply with that text;
* :class:`Reply` — text plus a chosen finish reason and/or usage;
* :class:`Fault` — an HTTP error in the provider's error shape (``Fault(429, headers={"retry-after":
  "1"})``);
* :class:`Cut` — the reply starts (``text_so_far`` is sent) and the connection drops mid-body;
* :class:`Garbage` — HTTP 200 whose body is not JSON (an HTML error page from a proxy);
* :class:`BrokenStream` — a streamed reply with one event whose JSON is cut short, after
  ``text_so_far`` (for a non-streaming request: a JSON body cut short, complete otherwise);
* :class:`Plain` — a complete reply sent as one plain JSON body even when the request asked
  for a stream, as some OpenAI/Anthropic-compatible proxies do.

With nothing queued the server answers 500 "no scripted reply", so a test that makes more calls
than it scripted fails loudly. Every request is recorded in :attr:`LLMServer.requests`.

Standalone (for CI jobs that run the CLI against it)::

    python -m tests.helpers.llm_server --port 8123 --replies replies.json [--record requests.jsonl]

where ``replies.json`` is a list of items: ``"text"``, ``{"status": 429, "headers": {...}}``,
``{"cut": "partial text"}``, ``{"garbage": "<html>..."}``, ``{"broken": "partial text"}``,
``{"plain": "text"}`` or ``{"text": "...", "finish_reason": "length", "usage": [IN, OUT],
"delay": SECONDS_BETWEEN_PIECES}``.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import math
import os
import re
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit


@dataclass(frozen=True)
class Reply:
    """A complete reply.

    ``finish_reason`` uses OpenAI's words (``stop``, ``length``, ``content_filter``) and is
    translated for Anthropic (``end_turn``, ``max_tokens``, ``refusal``).
    """

    text: str
    finish_reason: str = "stop"
    usage: tuple[int, int] | None = None  # (input tokens, output tokens); computed when None
    delay: float = 0.0  # seconds between streamed pieces (a slow model, for Ctrl-C tests)
    think: float = 0.0  # seconds before anything is sent (a model reading a long prompt)


@dataclass(frozen=True)
class Fault:
    """An HTTP error answer in the provider's own error format."""

    status: int = 500
    headers: dict[str, str] = field(default_factory=dict)
    message: str | None = None
    code: str | None = None


@dataclass(frozen=True)
class Cut:
    """Start the reply, send ``text_so_far``, then drop the connection mid-body."""

    text_so_far: str = ""


@dataclass(frozen=True)
class Garbage:
    """HTTP 200 with a body that is not JSON."""

    body: str = "<html><body>502 Bad Gateway</body></html>"
    content_type: str = "text/html"


@dataclass(frozen=True)
class BrokenStream:
    """Start the reply, send ``text_so_far``, then an event whose JSON is cut short, then end
    the stream normally."""

    text_so_far: str = ""


@dataclass(frozen=True)
class ErrorEvent:
    """Start a chat-completions stream, send ``text_so_far``, then an error event (what an
    overloaded OpenAI-compatible server sends mid-reply), then end the stream."""

    text_so_far: str = ""
    message: str = "the server is overloaded"


@dataclass(frozen=True)
class Plain:
    """A complete reply as a plain JSON body, whatever the request asked for."""

    text: str
    finish_reason: str = "stop"


Item = str | Reply | Fault | Cut | Garbage | BrokenStream | ErrorEvent | Plain


@dataclass
class RecordedRequest:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any
    provider: str  # "openai", "azure" or "anthropic"

    @property
    def model(self) -> str | None:
        if self.provider == "azure":
            match = re.search(r"/deployments/([^/]+)/", self.path)
            return match.group(1) if match else None
        return self.body.get("model") if isinstance(self.body, dict) else None


def count_tokens(text: str) -> int:
    """The server's deterministic stand-in for a tokenizer: one token per four characters."""
    return max(1, math.ceil(len(text) / 4))


def _prompt_text(body: dict[str, Any]) -> str:
    parts: list[str] = []
    system = body.get("system")
    if isinstance(system, str):
        parts.append(system)
    elif isinstance(system, list):
        parts.extend(str(block.get("text", "")) for block in system if isinstance(block, dict))
    for message in body.get("messages", []):
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts.extend(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return "\n".join(parts)


def _pieces(text: str, size: int = 7) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


_ANTHROPIC_STOP = {"stop": "end_turn", "length": "max_tokens", "content_filter": "refusal"}
_ANTHROPIC_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # quiet test output
        pass

    # ------------------------------------------------------------------ routing
    def do_POST(self) -> None:
        parts = urlsplit(self.path)
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body: Any = json.loads(raw or b"{}")
        except ValueError:
            body = {"_unparsed": raw.decode("utf-8", "replace")}
        path = parts.path
        # Exact paths, as the real services have: a client that doubles or drops the /v1 of
        # its base URL gets the 404 it would get in production.
        if re.fullmatch(r"/openai/deployments/[^/]+/chat/completions", path):
            provider = "azure"
        elif path == "/v1/chat/completions":
            provider = "openai"
        elif path == "/v1/messages":
            provider = "anthropic"
        else:
            self._json(404, {"error": {"message": f"no such endpoint: {path}"}})
            return
        self.server.owner._record(
            RecordedRequest(
                method="POST",
                path=path,
                query=parse_qs(parts.query),
                headers={k.lower(): v for k, v in self.headers.items()},
                body=body,
                provider=provider,
            )
        )
        if self.server.owner.on_request is not None:
            self.server.owner.on_request()
        item = self.server.owner._next()
        if item is None:
            item = Fault(
                500, message="no scripted reply (the test queued fewer replies than calls)"
            )
        if isinstance(item, str):
            item = Reply(item)
        model = (
            self.server.owner.requests[-1].model or "unknown"
            if isinstance(body, dict)
            else "unknown"
        )
        stream = isinstance(body, dict) and bool(body.get("stream"))
        if isinstance(item, Plain):
            item, stream = Reply(item.text, item.finish_reason), False
        if isinstance(item, Fault):
            self._fault(item, provider)
        elif isinstance(item, Garbage):
            data = item.body.encode()
            self.send_response(200)
            self.send_header("content-type", item.content_type)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        elif isinstance(item, BrokenStream) and not stream:
            data = b'{"id": "x", "choices": [{"message": {"content": "' + item.text_so_far.encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        elif isinstance(item, ErrorEvent) and (provider == "anthropic" or not stream):
            self._fault(Fault(500, message=item.message), provider)  # scripted for OpenAI streams
        elif provider == "anthropic":
            self._anthropic(item, body, model, stream)
        else:
            self._openai(item, body, model, stream)

    def do_GET(self) -> None:
        self._json(404, {"error": {"message": f"no such endpoint: {self.path}"}})

    # ------------------------------------------------------------------ plumbing
    def _json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def _start_sse(self) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()

    def _chunk(self, text: str) -> None:
        data = text.encode()
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _end_chunks(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _drop(self) -> None:
        """Close the socket without finishing the body: what a dropped connection looks like."""
        self.wfile.flush()
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)

    def _fault(self, fault: Fault, provider: str) -> None:
        message = fault.message or f"scripted error {fault.status}"
        if provider == "anthropic":
            kind = _ANTHROPIC_ERROR_TYPES.get(fault.status, "api_error")
            payload: dict[str, Any] = {"type": "error", "error": {"type": kind, "message": message}}
        else:
            payload = {
                "error": {
                    "message": message,
                    "type": "invalid_request_error" if fault.status < 500 else "server_error",
                    "param": None,
                    "code": fault.code,
                }
            }
        self._json(fault.status, payload, fault.headers)

    # ------------------------------------------------------------------ OpenAI / Azure
    def _openai(
        self,
        item: Reply | Cut | BrokenStream | ErrorEvent,
        body: dict[str, Any],
        model: str,
        stream: bool,
    ) -> None:
        ident = f"chatcmpl-{next(self.server.owner._ids)}"
        created = int(time.time())
        if isinstance(item, Reply) and item.think:
            time.sleep(item.think)
        tokens_in = count_tokens(_prompt_text(body))
        text = item.text if isinstance(item, Reply) else item.text_so_far
        usage_in, usage_out = (
            item.usage
            if isinstance(item, Reply) and item.usage
            else (tokens_in, count_tokens(text))
        )
        usage = {
            "prompt_tokens": usage_in,
            "completion_tokens": usage_out,
            "total_tokens": usage_in + usage_out,
        }
        if not stream:
            if isinstance(item, Cut):
                data = json.dumps({"id": ident, "choices": [{"message": {"content": text}}]})
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data) + 500))
                self.end_headers()
                self.wfile.write(data.encode()[: len(data) // 2])
                self._drop()
                return
            self._json(
                200,
                {
                    "id": ident,
                    "object": "chat.completion",
                    "created": created,
                    "model": model,
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": text},
                            "finish_reason": item.finish_reason,
                            "logprobs": None,
                        }
                    ],
                    "usage": usage,
                },
            )
            return

        def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
            payload = {
                "id": ident,
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "choices": [
                    {"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}
                ],
            }
            return f"data: {json.dumps(payload)}\n\n"

        self._start_sse()
        self._chunk(chunk({"role": "assistant", "content": ""}))
        for piece in _pieces(text):
            if isinstance(item, Reply) and item.delay:
                time.sleep(item.delay)
            self._chunk(chunk({"content": piece}))
        if isinstance(item, Cut):
            self._drop()
            return
        if isinstance(item, ErrorEvent):
            error = {"error": {"message": item.message, "type": "server_error", "code": None}}
            self._chunk(f"data: {json.dumps(error)}\n\n")
            self._end_chunks()
            return
        if isinstance(item, BrokenStream):
            self._chunk(chunk({"content": "more"})[:40] + "\n\n")
            self._chunk("data: [DONE]\n\n")
            self._end_chunks()
            return
        self._chunk(chunk({}, item.finish_reason))
        options = body.get("stream_options") or {}
        if options.get("include_usage"):
            final = {
                "id": ident,
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "choices": [],
                "usage": usage,
            }
            self._chunk(f"data: {json.dumps(final)}\n\n")
        self._chunk("data: [DONE]\n\n")
        self._end_chunks()

    # ------------------------------------------------------------------ Anthropic
    def _anthropic(
        self, item: Reply | Cut | BrokenStream, body: dict[str, Any], model: str, stream: bool
    ) -> None:
        ident = f"msg_{next(self.server.owner._ids)}"
        text = item.text if isinstance(item, Reply) else item.text_so_far
        usage_in, usage_out = (
            item.usage
            if isinstance(item, Reply) and item.usage
            else (count_tokens(_prompt_text(body)), count_tokens(text))
        )
        stop = (
            _ANTHROPIC_STOP.get(item.finish_reason, item.finish_reason)
            if isinstance(item, Reply)
            else None
        )
        if not stream:
            if isinstance(item, Cut):
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", "100000")
                self.end_headers()
                self.wfile.write(b'{"id": "' + ident.encode() + b'", "content": [')
                self._drop()
                return
            self._json(
                200,
                {
                    "id": ident,
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [{"type": "text", "text": text}],
                    "stop_reason": stop,
                    "stop_sequence": None,
                    "usage": {"input_tokens": usage_in, "output_tokens": usage_out},
                },
            )
            return

        def event(name: str, payload: dict[str, Any]) -> str:
            return f"event: {name}\ndata: {json.dumps(payload)}\n\n"

        self._start_sse()
        self._chunk(
            event(
                "message_start",
                {
                    "type": "message_start",
                    "message": {
                        "id": ident,
                        "type": "message",
                        "role": "assistant",
                        "model": model,
                        "content": [],
                        "stop_reason": None,
                        "stop_sequence": None,
                        "usage": {"input_tokens": usage_in, "output_tokens": 1},
                    },
                },
            )
        )
        self._chunk(
            event(
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "text", "text": ""},
                },
            )
        )
        self._chunk(event("ping", {"type": "ping"}))
        for piece in _pieces(text):
            self._chunk(
                event(
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": 0,
                        "delta": {"type": "text_delta", "text": piece},
                    },
                )
            )
        if isinstance(item, Cut):
            self._drop()
            return
        if isinstance(item, BrokenStream):
            broken = event("content_block_delta", {"type": "content_block_delta", "index": 0})
            self._chunk(broken[: broken.index("data: ") + 20] + "\n\n")
            self._chunk(event("message_stop", {"type": "message_stop"}))
            self._end_chunks()
            return
        self._chunk(event("content_block_stop", {"type": "content_block_stop", "index": 0}))
        self._chunk(
            event(
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": stop, "stop_sequence": None},
                    "usage": {"output_tokens": usage_out},
                },
            )
        )
        self._chunk(event("message_stop", {"type": "message_stop"}))
        self._end_chunks()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    owner: LLMServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Clients that hang up (a cut stream, an interrupted test) are expected here.
        import sys

        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


class LLMServer:
    """``with LLMServer() as srv: srv.queue("reply"); ... srv.openai_base_url``."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, record: str | None = None) -> None:
        self._httpd = _Server((host, port), _Handler)
        self._record_path = record
        self._httpd.owner = self
        self._lock = threading.Lock()
        self._items: deque[Item] = deque()
        self._ids = itertools.count(1)
        self.requests: list[RecordedRequest] = []
        # Called before each answer: lets a test change the world while the model "thinks"
        # (someone pushes to the branch being worked on, say).
        self.on_request: Callable[[], None] | None = None
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ addresses
    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_base_url(self) -> str:
        return f"{self.url}/v1"

    @property
    def anthropic_base_url(self) -> str:
        return self.url

    @property
    def azure_endpoint(self) -> str:
        return self.url

    # ------------------------------------------------------------------ script
    def queue(self, *items: Item) -> None:
        with self._lock:
            self._items.extend(items)

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._items)

    def _next(self) -> Item | None:
        with self._lock:
            return self._items.popleft() if self._items else None

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)
            if self._record_path:
                line = {
                    "path": request.path,
                    "query": request.query,
                    "headers": request.headers,
                    "provider": request.provider,
                    "body": request.body,
                }
                with open(self._record_path, "a", encoding="utf-8") as handle:
                    handle.write(json.dumps(line) + "\n")

    # ------------------------------------------------------------------ lifetime
    def start(self) -> LLMServer:
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> LLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def items_from_json(data: Iterable[Any]) -> Iterator[Item]:
    """Replies-file entries as queue items (see the module docstring for the shapes)."""
    for entry in data:
        if isinstance(entry, str):
            yield entry
        elif "status" in entry:
            yield Fault(
                status=int(entry["status"]),
                headers=dict(entry.get("headers", {})),
                message=entry.get("message"),
                code=entry.get("code"),
            )
        elif "cut" in entry:
            yield Cut(str(entry["cut"]))
        elif "garbage" in entry:
            yield Garbage(str(entry["garbage"]))
        elif "broken" in entry:
            yield BrokenStream(str(entry["broken"]))
        elif "plain" in entry:
            yield Plain(str(entry["plain"]))
        else:
            usage = entry.get("usage")
            yield Reply(
                text=str(entry["text"]),
                finish_reason=str(entry.get("finish_reason", "stop")),
                usage=(int(usage[0]), int(usage[1])) if usage else None,
                delay=float(entry.get("delay", 0.0)),
                think=float(entry.get("think", 0.0)),
            )


def self_hosted_env(server: LLMServer, **extra: str) -> dict[str, str]:
    """The environment of a model served from this machine (a self-hosted model's defaults:
    ``--check auto``, the probe), with this interpreter, which has pytest, first on ``PATH``,
    as in an activated virtual environment."""
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    return {
        "OPENAI_BASE_URL": server.openai_base_url,
        "MODEL_NAME": "local-model",
        "PATH": path,
        **extra,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Scripted OpenAI/Azure/Anthropic test server")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--replies", help="JSON file: a list of scripted replies")
    parser.add_argument(
        "--record", metavar="FILE", help="append each request (path, headers, body) as a JSON line"
    )
    args = parser.parse_args(argv)
    server = LLMServer(port=args.port, record=args.record)
    if args.replies:
        with open(args.replies, encoding="utf-8") as handle:
            server.queue(*items_from_json(json.load(handle)))
    print(f"OPENAI_BASE_URL={server.openai_base_url}", flush=True)
    print(f"ANTHROPIC_BASE_URL={server.anthropic_base_url}", flush=True)
    print(f"AZURE_OPENAI_ENDPOINT={server.azure_endpoint}", flush=True)
    try:
        server._httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server._httpd.server_close()


if __name__ == "__main__":
    main()
