"""The LLM layer against a local server speaking the real protocols, through the real SDKs."""

from __future__ import annotations

import io
import socket
from pathlib import Path
from typing import Any

import pytest

from git_gpte.config import Settings
from git_gpte.errors import ConfigError, LLMError, ReplyTruncated, UsageError
from git_gpte.llm import LLM, RunLog, resolve_model
from git_gpte.ui import Console
from tests.helpers.llm_server import Cut, Fault, LLMServer, Reply

MESSAGES = [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": "Say hello."},
]
PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 32


def settings(**env: str) -> Settings:
    base = {"GPTE_MAX_RETRY_SECONDS": "5", "GPTE_MAX_RETRIES": "3"}
    base.update(env)
    return Settings(environ=base)


def openai_env(srv: LLMServer, **extra: str) -> dict[str, str]:
    return {"OPENAI_BASE_URL": srv.openai_base_url, "OPENAI_API_KEY": "test", **extra}


def anthropic_env(srv: LLMServer, **extra: str) -> dict[str, str]:
    return {"ANTHROPIC_BASE_URL": srv.anthropic_base_url, "ANTHROPIC_API_KEY": "akey", **extra}


class Sleeps:
    """Records the waits instead of sleeping, so retry tests are fast and exact."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


def make(
    srv_env: dict[str, str], model: str | None = None, **kwargs: Any
) -> tuple[LLM, Sleeps, io.StringIO]:
    s = settings(**srv_env)
    out = io.StringIO()
    sleeps = Sleeps()
    kwargs.setdefault("console", Console(stream=out, live=True))
    llm = LLM(resolve_model(model, s), s, sleep=sleeps, **kwargs)
    return llm, sleeps, out


# ---------------------------------------------------------------------- happy paths
@pytest.mark.parametrize("stream", [True, False])
def test_openai_reply_usage_and_cost(llm_server: LLMServer, stream: bool) -> None:
    llm_server.queue(Reply("Hello there, friend.", usage=(1000, 200)))
    llm, _, out = make(openai_env(llm_server), stream=stream)
    reply = llm.ask(MESSAGES)
    assert reply.text == "Hello there, friend."
    assert (reply.tokens_in, reply.tokens_out, reply.usage_exact) == (1000, 200, True)
    assert reply.cost_usd == pytest.approx((1000 * 2.5 + 200 * 10.0) / 1e6)  # gpt-4o price
    assert reply.finish_reason == "stop" and not reply.cached
    (request,) = llm_server.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer test"
    assert request.body["model"] == "gpt-4o"
    assert request.body["messages"] == MESSAGES
    assert request.body["temperature"] == 0.1
    assert bool(request.body.get("stream")) is stream
    if stream:
        assert request.body["stream_options"] == {"include_usage": True}
        assert "Hello there, friend." in out.getvalue()  # streamed live to the console


def test_streamed_tokens_arrive_in_pieces(llm_server: LLMServer) -> None:
    pieces: list[str] = []

    class Recorder(Console):
        def token(self, text: str) -> None:
            pieces.append(text)

    llm_server.queue("one two three four five six seven")
    llm, _, _ = make(openai_env(llm_server), console=Recorder(quiet=True))
    llm.ask(MESSAGES)
    assert len(pieces) > 3 and "".join(pieces) == "one two three four five six seven"


def test_ci_console_prints_a_progress_line_not_tokens(llm_server: LLMServer) -> None:
    llm_server.queue("a reply that should not be echoed token by token")
    out = io.StringIO()
    llm, _, _ = make(openai_env(llm_server), console=Console(stream=out, live=False))
    llm.ask(MESSAGES)
    text = out.getvalue()
    assert "should not be echoed" not in text
    assert "received 48 characters" in text


def test_totals_sum_each_call_not_cumulative(llm_server: LLMServer) -> None:
    llm_server.queue(Reply("a", usage=(100, 10)), Reply("b", usage=(300, 30)))
    llm, _, _ = make(openai_env(llm_server))
    llm.ask(MESSAGES)
    llm.ask([*MESSAGES, {"role": "assistant", "content": "a"}, {"role": "user", "content": "more"}])
    assert (llm.usage.tokens_in, llm.usage.tokens_out, llm.calls) == (400, 40, 2)
    assert llm.usage.cost_usd == pytest.approx((400 * 2.5 + 40 * 10.0) / 1e6)


@pytest.mark.parametrize("stream", [True, False])
def test_azure_uses_deployment_path_version_and_key(llm_server: LLMServer, stream: bool) -> None:
    env = {
        "AZURE_OPENAI_ENDPOINT": llm_server.azure_endpoint,
        "OPENAI_API_VERSION": "2024-10-21",
        "AZURE_OPENAI_API_KEY": "azkey",
        "MODEL_NAME": "my-gpt4o-deployment",
    }
    llm_server.queue(Reply("from azure", usage=(10, 3)))
    llm, _, _ = make(env, stream=stream)
    assert llm.info.provider == "azure"
    reply = llm.ask(MESSAGES)
    assert reply.text == "from azure" and reply.tokens_in == 10
    assert reply.cost_usd is None  # a deployment name says nothing about the price
    (request,) = llm_server.requests
    assert request.path == "/openai/deployments/my-gpt4o-deployment/chat/completions"
    assert request.query["api-version"] == ["2024-10-21"]
    assert request.headers["api-key"] == "azkey"


def test_azure_deployment_named_like_a_model_keeps_its_price(llm_server: LLMServer) -> None:
    env = {
        "AZURE_OPENAI_ENDPOINT": llm_server.azure_endpoint,
        "OPENAI_API_KEY": "fallback-key",
    }
    llm_server.queue(Reply("ok", usage=(1_000_000, 0)))
    llm, _, _ = make(env, model="gpt-4o-mini")
    reply = llm.ask(MESSAGES)
    assert reply.cost_usd == pytest.approx(0.15)
    assert llm_server.requests[0].headers["api-key"] == "fallback-key"
    assert llm_server.requests[0].query["api-version"] == ["2024-10-21"]  # the default


@pytest.mark.parametrize("stream", [True, False])
def test_anthropic_messages_system_usage_cost(llm_server: LLMServer, stream: bool) -> None:
    llm_server.queue(Reply("Hello from Claude.", usage=(2000, 100)))
    llm, _, out = make(anthropic_env(llm_server), model="claude-sonnet-4-5", stream=stream)
    reply = llm.ask(MESSAGES)
    assert reply.text == "Hello from Claude."
    assert (reply.tokens_in, reply.tokens_out) == (2000, 100)
    assert reply.cost_usd == pytest.approx((2000 * 3 + 100 * 15) / 1e6)
    (request,) = llm_server.requests
    assert request.path == "/v1/messages"
    # The SDK sends the key as x-api-key or (newer versions) as a bearer token.
    assert "akey" in (
        request.headers.get("x-api-key", ""),
        request.headers.get("authorization", ""),
    ) or (request.headers.get("authorization") == "Bearer akey")
    assert request.body["system"] == "You are terse."
    assert request.body["messages"] == [{"role": "user", "content": "Say hello."}]
    assert request.body["max_tokens"] > 0
    if stream:
        assert "Hello from Claude." in out.getvalue()


def test_openai_compatible_local_model_needs_no_key(llm_server: LLMServer) -> None:
    env = {"OPENAI_BASE_URL": llm_server.openai_base_url, "MODEL_NAME": "llama3.1:8b"}
    llm_server.queue(Reply("local answer", usage=(50, 5)))
    llm, _, _ = make(env)
    assert llm.info.provider == "openai-compatible" and llm.info.local
    reply = llm.ask(MESSAGES)
    assert reply.text == "local answer"
    assert reply.cost_usd is None  # unknown price: tokens only
    assert llm_server.requests[0].body["model"] == "llama3.1:8b"


def test_local_model_flag_routes_an_openai_name_to_the_local_server(llm_server: LLMServer) -> None:
    env = {
        "OPENAI_API_BASE": llm_server.openai_base_url,
        "LOCAL_MODEL": "true",
        "MODEL_NAME": "gpt-4o",
    }
    llm_server.queue("local gpt")
    llm, _, _ = make(env)
    assert llm.info.provider == "openai-compatible"
    assert llm.ask(MESSAGES).text == "local gpt"


def test_git_config_price_applies_to_a_local_model(llm_server: LLMServer) -> None:
    s = Settings(
        environ={"OPENAI_BASE_URL": llm_server.openai_base_url},
        git={"gpte.model": "qwen2.5-coder", "gpte.price": "1/2"},
    )
    llm_server.queue(Reply("x", usage=(1_000_000, 1_000_000)))
    llm = LLM(resolve_model(None, s), s)
    assert llm.ask(MESSAGES).cost_usd == pytest.approx(3.0)


def test_missing_usage_is_estimated_and_marked(llm_server: LLMServer) -> None:
    # A server that sends no usage at all: tokens are estimated and flagged as such.
    llm_server.queue("twelve chars")
    llm, _, _ = make(openai_env(llm_server), stream=True)
    original = llm.provider.complete

    def without_usage(request: Any, on_token: Any) -> Any:
        completion = original(request, on_token)
        completion.tokens_in = completion.tokens_out = None
        return completion

    llm.provider.complete = without_usage  # type: ignore[method-assign]
    reply = llm.ask(MESSAGES)
    assert reply.usage_exact is False and reply.tokens_in > 0 and reply.tokens_out > 0
    assert llm.usage.exact is False
    assert llm.usage.describe().startswith("~")


# ---------------------------------------------------------------------- configuration errors
def test_missing_openai_key_names_the_variable() -> None:
    s = settings()
    with pytest.raises(ConfigError) as info:
        LLM(resolve_model("gpt-4o", s), s)
    assert "OPENAI_API_KEY" in info.value.render()
    assert info.value.exit_code == 4


def test_missing_anthropic_key_names_the_variable() -> None:
    s = settings()
    with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY"):
        LLM(resolve_model("claude-sonnet-4-5", s), s)


def test_missing_azure_key_names_the_variable() -> None:
    s = settings(AZURE_OPENAI_ENDPOINT="https://x.openai.azure.com")
    with pytest.raises(ConfigError, match="AZURE_OPENAI_API_KEY"):
        LLM(resolve_model("gpt-4o", s), s)


def test_unknown_model_lists_known_models_and_how_to_add_a_server() -> None:
    with pytest.raises(ConfigError) as info:
        resolve_model("mistral-large", settings())
    text = info.value.render()
    assert "unknown model 'mistral-large'" in text
    assert "gpt-4o" in text and "claude-sonnet-4-5" in text
    assert "OPENAI_BASE_URL" in text and "gpte.baseUrl" in text


def test_local_model_without_base_url_is_a_clear_error() -> None:
    with pytest.raises(ConfigError) as info:
        resolve_model("llama3", settings(LOCAL_MODEL="1"))
    assert "LOCAL_MODEL" in info.value.render() and "OPENAI_BASE_URL" in info.value.render()


# ---------------------------------------------------------------------- retries
def test_429_with_retry_after_is_honoured_then_succeeds(llm_server: LLMServer) -> None:
    llm_server.queue(Fault(429, headers={"retry-after": "2"}, message="Rate limit reached"), "ok")
    llm, sleeps, out = make(openai_env(llm_server))
    reply = llm.ask(MESSAGES)
    assert reply.text == "ok" and reply.attempts == 2
    assert len(sleeps.delays) == 1 and 2.0 <= sleeps.delays[0] <= 2.3
    assert "Rate limit reached" in out.getvalue() and "retrying" in out.getvalue()
    assert len(llm_server.requests) == 2


def test_retry_after_ms_is_honoured(llm_server: LLMServer) -> None:
    llm_server.queue(Fault(429, headers={"retry-after-ms": "250"}), "ok")
    llm, sleeps, _ = make(openai_env(llm_server))
    llm.ask(MESSAGES)
    assert 0.25 <= sleeps.delays[0] <= 0.3


def test_real_wait_is_bounded_by_the_time_budget(llm_server: LLMServer) -> None:
    # The server asks for 10 minutes; the budget is 5 s: fail at once instead of hanging.
    llm_server.queue(Fault(429, headers={"retry-after": "600"}))
    llm, sleeps, _ = make(openai_env(llm_server))
    with pytest.raises(LLMError) as info:
        llm.ask(MESSAGES)
    assert sleeps.delays == [] and len(llm_server.requests) == 1
    assert "429" in info.value.render() and "GPTE_MAX_RETRY_SECONDS" in info.value.render()


def test_rate_limit_retries_are_bounded_in_tries(llm_server: LLMServer) -> None:
    llm_server.queue(*[Fault(429, message="slow down")] * 5)
    llm, sleeps, _ = make(openai_env(llm_server, GPTE_MAX_RETRIES="2"))
    with pytest.raises(LLMError) as info:
        llm.ask(MESSAGES)
    assert len(llm_server.requests) == 3 and len(sleeps.delays) == 2
    assert "gave up after 3 tries" in info.value.render()
    assert "slow down" in info.value.render()
    assert info.value.exit_code == 5


def test_backoff_grows_with_jitter(llm_server: LLMServer) -> None:
    llm_server.queue(Fault(503), Fault(503), Fault(503), "ok")
    llm, sleeps, _ = make(openai_env(llm_server, GPTE_MAX_RETRY_SECONDS="100"))
    llm.ask(MESSAGES)
    assert len(sleeps.delays) == 3
    assert 0.5 <= sleeps.delays[0] <= 1.0 and 1.0 <= sleeps.delays[1] <= 2.0
    assert 2.0 <= sleeps.delays[2] <= 4.0


def test_500_then_success_with_real_sleep(llm_server: LLMServer) -> None:
    llm_server.queue(Fault(500, message="upstream exploded"), "recovered")
    s = settings(**openai_env(llm_server), GPTE_MAX_RETRY_SECONDS="0.3")
    llm = LLM(resolve_model(None, s), s)
    assert llm.ask(MESSAGES).text == "recovered"
    assert len(llm_server.requests) == 2


def test_anthropic_overloaded_529_is_retried(llm_server: LLMServer) -> None:
    llm_server.queue(Fault(529, message="Overloaded"), "fine")
    llm, sleeps, _ = make(anthropic_env(llm_server), model="claude-haiku-4-5")
    assert llm.ask(MESSAGES).text == "fine" and len(sleeps.delays) == 1


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_401_fails_at_once_with_the_providers_message(llm_server: LLMServer, provider: str) -> None:
    llm_server.queue(Fault(401, message="Incorrect API key provided: sk-wrong"))
    if provider == "openai":
        llm, sleeps, _ = make(openai_env(llm_server))
        variable = "OPENAI_API_KEY"
    else:
        llm, sleeps, _ = make(anthropic_env(llm_server), model="claude-sonnet-4-5")
        variable = "ANTHROPIC_API_KEY"
    with pytest.raises(LLMError) as info:
        llm.ask(MESSAGES)
    text = info.value.render()
    assert "401" in text and "Incorrect API key provided" in text and variable in text
    assert sleeps.delays == [] and len(llm_server.requests) == 1


def test_400_fails_at_once(llm_server: LLMServer) -> None:
    llm_server.queue(Fault(400, message="context_length_exceeded: too many tokens"))
    llm, sleeps, _ = make(openai_env(llm_server))
    with pytest.raises(LLMError, match="context_length_exceeded"):
        llm.ask(MESSAGES)
    assert sleeps.delays == []


def test_insufficient_quota_is_not_retried(llm_server: LLMServer) -> None:
    llm_server.queue(
        Fault(429, message="You exceeded your current quota", code="insufficient_quota")
    )
    llm, sleeps, _ = make(openai_env(llm_server))
    with pytest.raises(LLMError, match="exceeded your current quota"):
        llm.ask(MESSAGES)
    assert sleeps.delays == [] and len(llm_server.requests) == 1


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_refused_connection_on_this_machine_is_not_retried() -> None:
    # A server on this machine that refuses the connection is not running: waiting does not
    # start it (a remote one that refuses may be restarting: that is retried).
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    llm, sleeps, _ = make({"OPENAI_BASE_URL": url, "OPENAI_API_KEY": "k", "GPTE_MAX_RETRIES": "2"})
    with pytest.raises(LLMError) as info:
        llm.ask(MESSAGES)
    text = info.value.render()
    assert f"nothing is listening at {url}: is the server running?" in text
    assert sleeps.delays == []


# ---------------------------------------------------------------------- truncation
@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_cut_stream_is_retried_not_used(llm_server: LLMServer, provider: str) -> None:
    llm_server.queue(Cut("--- a.py\n+++ a.py\n@@ -1,3"), "complete reply")
    env = openai_env(llm_server) if provider == "openai" else anthropic_env(llm_server)
    llm, _sleeps, out = make(env, model=None if provider == "openai" else "claude-sonnet-4-5")
    reply = llm.ask(MESSAGES)
    assert reply.text == "complete reply" and reply.attempts == 2
    assert "cut off mid-stream" in out.getvalue()


def test_cut_stream_every_time_is_an_error(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.queue(Cut("partial"), Cut("partial"), Cut("partial"))
    log = RunLog(tmp_path)
    run = log.start("improve", prompt="p")
    llm, _, _ = make(openai_env(llm_server, GPTE_MAX_RETRIES="2"), run=run)
    with pytest.raises(LLMError, match="cut off mid-stream"):
        llm.ask(MESSAGES)
    (exchange,) = log.get(run.id).exchanges
    assert exchange.reply == "partial" and "cut off" in (exchange.error or "")


def test_cut_json_body_is_an_error_too(llm_server: LLMServer) -> None:
    llm_server.queue(Cut("x"), Cut("x"))
    llm, _, _ = make(openai_env(llm_server, GPTE_MAX_RETRIES="1"), stream=False)
    with pytest.raises(LLMError):
        llm.ask(MESSAGES)


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_output_limit_is_reported_with_the_partial_reply(
    llm_server: LLMServer, provider: str, tmp_path: Path
) -> None:
    llm_server.queue(Reply("--- a.py\n+++ a.py\n@@ -1", finish_reason="length", usage=(10, 4096)))
    env = openai_env(llm_server) if provider == "openai" else anthropic_env(llm_server)
    log = RunLog(tmp_path)
    run = log.start("improve")
    llm, _, _ = make(env, model=None if provider == "openai" else "claude-sonnet-4-5", run=run)
    with pytest.raises(ReplyTruncated) as info:
        llm.ask(MESSAGES)
    assert info.value.partial.startswith("--- a.py") and "output token limit" in info.value.render()
    assert llm.usage.tokens_out == 4096  # it was paid for
    assert log.get(run.id).tokens_out == 4096


def test_content_filter_is_an_error(llm_server: LLMServer) -> None:
    llm_server.queue(Reply("", finish_reason="content_filter"))
    llm, _, _ = make(openai_env(llm_server))
    with pytest.raises(LLMError, match="content filter"):
        llm.ask(MESSAGES)


# ---------------------------------------------------------------------- cache
def test_cache_hit_on_second_identical_call(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.queue(Reply("cached answer", usage=(100, 10)))
    log = RunLog(tmp_path)
    run = log.start("improve")
    llm, _, _ = make(openai_env(llm_server), cache=True, state_dir=tmp_path, run=run)
    first = llm.ask(MESSAGES)
    second = llm.ask(MESSAGES)
    assert len(llm_server.requests) == 1
    assert not first.cached and second.cached and second.text == "cached answer"
    assert second.cost_usd == 0.0
    assert (llm.usage.tokens_in, llm.calls, llm.cached_calls) == (100, 2, 1)
    assert (tmp_path / "cache.sqlite").is_file()
    record = log.get(run.id)
    assert [e.cached for e in record.exchanges] == [False, True]
    assert record.tokens_in == 100  # the cache hit cost nothing
    # A new process (a new LLM object) hits the same cache; different messages do not.
    llm2, _, _ = make(openai_env(llm_server), cache=True, state_dir=tmp_path)
    assert llm2.ask(MESSAGES).cached
    llm_server.queue("fresh")
    assert llm2.ask([*MESSAGES[:1], {"role": "user", "content": "Say bye."}]).text == "fresh"


def test_cache_is_off_by_default(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.queue("one", "two")
    llm, _, _ = make(openai_env(llm_server), state_dir=tmp_path)
    assert [llm.ask(MESSAGES).text, llm.ask(MESSAGES).text] == ["one", "two"]


def test_truncated_replies_are_not_cached(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.queue(Reply("half", finish_reason="length"), "whole")
    llm, _, _ = make(openai_env(llm_server), cache=True, state_dir=tmp_path)
    with pytest.raises(ReplyTruncated):
        llm.ask(MESSAGES)
    assert llm.ask(MESSAGES).text == "whole"


# ---------------------------------------------------------------------- images
def test_images_go_to_openai_as_data_urls(llm_server: LLMServer, tmp_path: Path) -> None:
    image = tmp_path / "shot.png"
    image.write_bytes(PNG)
    log = RunLog(tmp_path)
    run = log.start("improve")
    llm_server.queue("I see a picture")
    llm, _, _ = make(openai_env(llm_server), run=run)
    llm.ask(MESSAGES, images=[image])
    content = llm_server.requests[0].body["messages"][-1]["content"]
    assert content[0] == {"type": "text", "text": "Say hello."}
    assert content[1]["image_url"]["url"].startswith("data:image/png;base64,")
    (exchange,) = log.get(run.id).exchanges
    assert exchange.images[0]["media_type"] == "image/png" and "sha256" in exchange.images[0]
    assert "base64" not in str(exchange.messages)  # never inlined in the log


def test_images_go_to_anthropic_as_base64_blocks(llm_server: LLMServer, tmp_path: Path) -> None:
    image = tmp_path / "shot.png"
    image.write_bytes(PNG)
    llm_server.queue("seen")
    llm, _, _ = make(anthropic_env(llm_server), model="claude-sonnet-4-5")
    llm.ask(MESSAGES, images=[str(image)])
    content = llm_server.requests[0].body["messages"][-1]["content"]
    assert content[0]["type"] == "image" and content[0]["source"]["media_type"] == "image/png"
    assert content[1] == {"type": "text", "text": "Say hello."}


def test_images_refused_for_a_text_only_model(llm_server: LLMServer, tmp_path: Path) -> None:
    image = tmp_path / "shot.png"
    image.write_bytes(PNG)
    llm, _, _ = make(openai_env(llm_server), model="gpt-3.5-turbo")
    with pytest.raises(UsageError, match="does not accept images"):
        llm.ask(MESSAGES, images=[image])
    assert llm_server.requests == []


def test_not_an_image_is_a_usage_error(llm_server: LLMServer, tmp_path: Path) -> None:
    fake = tmp_path / "notes.png"
    fake.write_text("not an image")
    llm, _, _ = make(openai_env(llm_server))
    with pytest.raises(UsageError, match="not a PNG, JPEG, GIF or WebP"):
        llm.ask(MESSAGES, images=[fake])
    with pytest.raises(UsageError, match="does not exist"):
        llm.ask(MESSAGES, images=[tmp_path / "missing.png"])


# ---------------------------------------------------------------------- Ctrl-C
def test_ctrl_c_records_the_interrupted_call_and_leaves_the_run_to_its_session(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    class Impatient(Console):
        def token(self, text: str) -> None:
            raise KeyboardInterrupt

    llm_server.queue("a long reply that the user does not wait for")
    log = RunLog(tmp_path)
    run = log.start("improve", prompt="p")
    llm, _, _ = make(openai_env(llm_server), console=Impatient(quiet=True), run=run)
    with pytest.raises(KeyboardInterrupt):
        llm.ask(MESSAGES)
    record = log.get(run.id)
    assert record.outcome == "running"  # the session owning the run ends it (test_session_cli)
    assert record.exchanges[0].error == "interrupted"
    # The request was sent and being answered: it is billed, so it is logged as an estimate,
    # not as free.
    exchange = record.exchanges[0]
    assert exchange.tokens_in > 0 and not exchange.usage_exact
    assert exchange.cost_usd is not None and exchange.cost_usd > 0
    assert record.tokens_in == exchange.tokens_in and record.cost_usd == exchange.cost_usd


# ---------------------------------------------------------------------- acceptance findings
@pytest.mark.parametrize("suffix", ["", "/", "/v1", "/v1/"])
def test_anthropic_base_url_with_or_without_v1(llm_server: LLMServer, suffix: str) -> None:
    # Users write ANTHROPIC_BASE_URL both ways; the SDK appends /v1/messages itself.
    llm_server.queue("hi")
    env = anthropic_env(llm_server, ANTHROPIC_BASE_URL=llm_server.anthropic_base_url + suffix)
    llm, _, _ = make(env, model="claude-haiku-4-5")
    assert llm.ask(MESSAGES).text == "hi"
    assert llm_server.requests[0].path == "/v1/messages"


def _silent_server() -> tuple[socket.socket, str]:
    """A server that accepts connections and never answers (a black hole behind a proxy)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    return sock, f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


def test_a_server_that_never_answers_is_bounded_by_the_retry_budget() -> None:
    # Each try waits out the read timeout; those tries count against GPTE_MAX_RETRY_SECONDS,
    # so five retries of a silent server do not add up to many minutes in CI.
    sock, url = _silent_server()
    with sock:
        env = {"OPENAI_BASE_URL": url, "OPENAI_API_KEY": "k", "GPTE_REQUEST_TIMEOUT": "0.4"}
        llm, sleeps, out = make(env | {"GPTE_MAX_RETRIES": "5", "GPTE_MAX_RETRY_SECONDS": "1"})
        with pytest.raises(LLMError) as info:
            llm.ask(MESSAGES)
    text = info.value.render()
    assert "no answer from" in text and "0.4s" in text and "GPTE_REQUEST_TIMEOUT" in text
    assert "retry budget" in text
    assert len(sleeps.delays) <= 2  # not the five the try count alone would allow
    assert "retrying" in out.getvalue()  # a line per retry


def test_a_long_retry_after_says_why_it_is_not_waited_for(llm_server: LLMServer) -> None:
    llm_server.queue(Fault(429, headers={"retry-after": "600"}))
    llm, _, _ = make(openai_env(llm_server))
    with pytest.raises(LLMError) as info:
        llm.ask(MESSAGES)
    text = info.value.render()
    assert "gave up after 1 try," in text and "asks to wait 600s" in text


def test_404_from_a_base_url_without_v1_suggests_adding_it(llm_server: LLMServer) -> None:
    llm, _, _ = make(openai_env(llm_server, OPENAI_BASE_URL=llm_server.url), model="llama3")
    with pytest.raises(LLMError) as info:
        llm.ask(MESSAGES)
    assert "404" in info.value.render() and f"{llm_server.url}/v1" in info.value.render()


def test_cache_setting_applies_when_the_flag_is_not_given(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    # Commands pass their --cache flag as cache=False when it is absent: GPTE_CACHE still counts.
    llm_server.queue("cached answer")
    for _ in range(2):
        env = openai_env(llm_server, GPTE_CACHE="1")
        llm, _, _ = make(env, cache=False, state_dir=tmp_path)
        assert llm.ask(MESSAGES).text == "cached answer"
    assert len(llm_server.requests) == 1


def test_missing_anthropic_key_with_azure_configured_says_where_claude_goes() -> None:
    s = settings(AZURE_OPENAI_ENDPOINT="https://x.openai.azure.com", AZURE_OPENAI_API_KEY="az")
    with pytest.raises(ConfigError) as info:
        LLM(resolve_model("claude-sonnet-4-5", s), s)
    text = info.value.render()
    assert text.startswith("ANTHROPIC_API_KEY is not set")
    assert "not to the Azure endpoint" in text and "\n" not in text
    assert text.count("(") == text.count(")") <= 2  # no hint nested inside another


@pytest.mark.parametrize(
    ("model", "variable"),
    [("gpt-4o", "OPENAI_API_KEY"), ("opus", "ANTHROPIC_API_KEY"), ("dep", "AZURE_OPENAI_API_KEY")],
)
def test_missing_key_is_one_line_naming_the_variable(model: str, variable: str) -> None:
    env = {"AZURE_OPENAI_ENDPOINT": "https://x.openai.azure.com"} if model == "dep" else {}
    s = settings(**env)
    with pytest.raises(ConfigError) as info:
        LLM(resolve_model(model, s), s)
    text = info.value.render()
    assert text.startswith(f"{variable} is not set") and "\n" not in text
    assert info.value.exit_code == 4


def test_a_new_provider_is_one_row_of_the_table(
    llm_server: LLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An OpenAI-compatible vendor with its own model names, address and key variable: one
    row of the provider table, and models, keys, sysinfo and the Action's masking follow."""
    import json
    import re

    from git_gpte.llm.kinds import PROVIDER_KINDS, ProviderKind, all_key_variables
    from tests.conftest import run_gpte
    from tests.helpers.gitrepo import make_repo

    vendor = ProviderKind(
        "vendor",
        "Vendor AI",
        "chat-completions",
        ("VENDOR_API_KEY",),
        models=re.compile(r"^vendor-"),
        base_url="https://api.vendor.invalid/v1",
        base_url_variables=("VENDOR_BASE_URL",),
        setup=(("key", ("VENDOR_API_KEY",), None),),
    )
    monkeypatch.setitem(PROVIDER_KINDS, "vendor", vendor)
    hosted = resolve_model("vendor-large", settings())
    assert (hosted.provider, hosted.base_url) == ("vendor", "https://api.vendor.invalid/v1")
    with pytest.raises(ConfigError, match="VENDOR_API_KEY is not set"):
        LLM(hosted, settings())
    info = resolve_model("vendor-large", settings(VENDOR_BASE_URL=llm_server.openai_base_url))
    assert (info.provider, info.base_url) == ("vendor", llm_server.openai_base_url)
    llm_server.queue("hello")
    reply = LLM(info, settings(VENDOR_API_KEY="vk-123")).ask(MESSAGES)
    assert reply.text == "hello"
    assert llm_server.requests[-1].headers["authorization"] == "Bearer vk-123"
    # sysinfo lists what it needs; the Action masks its key
    repo = make_repo(tmp_path / "r", {"a.py": "x = 1\n"})
    shown = json.loads(run_gpte("sysinfo", "--json", cwd=repo, env={"VENDOR_API_KEY": "vk"}).stdout)
    assert "vendor" in json.dumps(shown)
    assert "VENDOR_API_KEY" in all_key_variables()
