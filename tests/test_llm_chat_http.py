"""Chat completions over plain HTTP: the event stream, the failures the SDK used to classify,
and that a call to OpenAI or a compatible server never pays for importing the SDK."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from git_gpte.config import Settings
from git_gpte.errors import LLMError
from git_gpte.llm import LLM, resolve_model
from git_gpte.llm.chat_http import server_events
from git_gpte.ui import Console
from tests.helpers.llm_server import ErrorEvent, Fault, LLMServer, Reply

MESSAGES = [{"role": "user", "content": "hi"}]


def ask(srv: LLMServer, **env: str) -> tuple[str, str]:
    settings = Settings(
        environ={
            "OPENAI_BASE_URL": srv.openai_base_url,
            "OPENAI_API_KEY": "test",
            "GPTE_MAX_RETRY_SECONDS": "5",
            **env,
        }
    )
    out = io.StringIO()
    llm = LLM(resolve_model(None, settings), settings, console=Console(stream=out, live=True),
              sleep=lambda _s: None)  # fmt: skip
    return llm.ask(MESSAGES).text, out.getvalue()


def test_events_join_data_lines_and_skip_comments_and_names() -> None:
    lines = [
        b": a comment the server sends to keep the connection open\n",
        b"event: message\r\n",
        b'data: {"a":\n',
        b"data: 1}\n",
        b"\n",
        b"data:2\n",
        b"\n",
        b"data: [DONE]\n",
        b"\n",
        b"data: never read\n",
        b"\n",
    ]
    assert list(server_events(lines)) == ['{"a":\n1}', "2"]


def test_an_event_without_its_blank_line_at_the_end_still_counts() -> None:
    assert list(server_events([b"data: 1\n", b"\n", b"data: 2"])) == ["1", "2"]


def test_an_error_event_mid_stream_is_retried_and_the_next_reply_used(
    llm_server: LLMServer,
) -> None:
    llm_server.queue(ErrorEvent("half of it", message="slots busy"), "the whole reply")
    text, shown = ask(llm_server)
    assert text == "the whole reply"
    assert "reported an error mid-reply: slots busy" in shown


def test_an_error_event_every_time_ends_in_a_clear_error(llm_server: LLMServer) -> None:
    llm_server.queue(*[ErrorEvent(message="slots busy")] * 3)
    with pytest.raises(LLMError, match="mid-reply: slots busy"):
        ask(llm_server, GPTE_MAX_RETRIES="2")


def test_a_redirect_is_reported_not_replayed_as_a_get(llm_server: LLMServer) -> None:
    llm_server.queue(Fault(307, headers={"Location": "http://127.0.0.1:9/v1/chat/completions"}))
    with pytest.raises(LLMError, match="error 307"):
        ask(llm_server)
    assert [r.method for r in llm_server.requests] == ["POST"]


def test_the_request_carries_the_key_the_model_and_asks_for_usage(llm_server: LLMServer) -> None:
    llm_server.queue(Reply("ok", usage=(7, 1)))
    assert ask(llm_server)[0] == "ok"
    (request,) = llm_server.requests
    assert request.headers["authorization"] == "Bearer test"
    assert request.headers["user-agent"].startswith("git-gpte/")
    assert request.body["stream"] is True
    assert request.body["stream_options"] == {"include_usage": True}


def test_an_openai_account_and_project_are_sent_as_the_sdk_sends_them(
    llm_server: LLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_ORG_ID", "org-123")
    monkeypatch.setenv("OPENAI_PROJECT_ID", "proj_9")
    llm_server.queue("ok")
    ask(llm_server)
    headers = llm_server.requests[-1].headers
    assert (headers["openai-organization"], headers["openai-project"]) == ("org-123", "proj_9")


def test_a_call_to_an_openai_compatible_server_never_imports_the_sdk(
    llm_server: LLMServer,
) -> None:
    """The SDK's import is most of improve's fixed cost: the plain path must not pay it."""
    llm_server.queue("ok")
    code = (
        "import io, json, sys\n"
        "from git_gpte.config import Settings\n"
        "from git_gpte.llm import LLM, resolve_model\n"
        "from git_gpte.ui import Console\n"
        f"s = Settings(environ={{'OPENAI_BASE_URL': {llm_server.openai_base_url!r},"
        " 'OPENAI_API_KEY': 'k'})\n"
        "text = LLM(resolve_model(None, s), s, console=Console(stream=io.StringIO()))"
        ".ask([{'role': 'user', 'content': 'hi'}]).text\n"
        "print(json.dumps([text, 'openai' in sys.modules, 'httpx' in sys.modules]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == ["ok", False, False]
