"""Token estimates offline (tiktoken cannot download here), retry timing, model resolution."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from git_gpte.config import Settings
from git_gpte.errors import ConfigError
from git_gpte.llm import Price, estimate_tokens, resolve_model, tokens
from git_gpte.llm.retry import RetryClock, RetryPolicy, parse_retry_after

MESSAGES = [{"role": "user", "content": "x" * 400}]


@pytest.fixture
def empty_tiktoken_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    cache = tmp_path / "tiktoken"
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(cache))
    tokens._reset_for_tests()
    yield cache
    tokens._reset_for_tests()


def _point_downloads_at(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    monkeypatch.setattr(
        tokens,
        "_ENCODINGS",
        {name: (f"{url}/{name}", digest) for name, (_, digest) in tokens._ENCODINGS.items()},
    )


def test_offline_estimate_is_labelled_and_fast(
    empty_tiktoken_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    _point_downloads_at(monkeypatch, f"http://127.0.0.1:{port}")  # connection refused
    start = time.monotonic()
    count, exact = estimate_tokens(MESSAGES, "gpt-4o")
    assert time.monotonic() - start < 2
    assert exact is False and count == 100 + 4 + 3  # chars/4 + framing
    assert tokens.format_tokens(count, exact) == "~107 tokens (estimate)"
    # The failure is remembered: no second attempt in this process or the next hour.
    assert any(p.name.endswith(".unreachable") for p in empty_tiktoken_cache.iterdir())


def test_a_download_that_hangs_is_abandoned_within_the_timeout(
    empty_tiktoken_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A server that accepts the connection and never answers: the worst case offline.
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(5)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        _point_downloads_at(monkeypatch, f"http://127.0.0.1:{server.getsockname()[1]}")
        monkeypatch.setenv("GPTE_TIKTOKEN_TIMEOUT", "0.5")
        start = time.monotonic()
        _, exact = estimate_tokens(MESSAGES, "gpt-4o")
        assert time.monotonic() - start < 1.5
        assert exact is False
    finally:
        stop.set()
        thread.join()
        for conn in held:
            conn.close()
        server.close()


def test_offline_setting_never_tries(
    empty_tiktoken_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GPTE_OFFLINE", "1")
    _point_downloads_at(monkeypatch, "http://10.255.255.1")  # would hang if tried
    start = time.monotonic()
    assert estimate_tokens(MESSAGES, "gpt-4o")[1] is False
    assert time.monotonic() - start < 0.5
    assert not empty_tiktoken_cache.exists()


def test_offline_cli_process_does_not_hang(tmp_path: Path) -> None:
    """The real download URL, in a fresh process: must finish fast (offline here)."""
    code = (
        "import time; from git_gpte.llm import estimate_tokens; t=time.monotonic();"
        "n, exact = estimate_tokens([{'role': 'user', 'content': 'hello world'}], 'gpt-4o');"
        "print(n, exact, round(time.monotonic()-t, 2))"
    )
    env = {
        "TIKTOKEN_CACHE_DIR": str(tmp_path),
        "GPTE_TIKTOKEN_TIMEOUT": "2",
        "PATH": "/usr/bin:/bin",
    }
    start = time.monotonic()
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=30
    )
    assert out.returncode == 0, out.stderr
    assert time.monotonic() - start < 6
    count, _, _ = out.stdout.split()
    assert int(count) > 0


def test_claude_is_always_an_estimate() -> None:
    assert estimate_tokens(MESSAGES, "claude-sonnet-4-5")[1] is False


def test_images_count_and_make_it_an_estimate() -> None:
    with_image = [
        {"role": "user", "content": [{"type": "text", "text": "hi"}, {"type": "image_url"}]}
    ]
    count, exact = estimate_tokens(with_image, "claude-sonnet-4-5")
    assert count > tokens.IMAGE_TOKENS and exact is False


# ---------------------------------------------------------------------- retry timing
def test_parse_retry_after_forms() -> None:
    assert parse_retry_after({"Retry-After": "3"}) == 3.0
    assert parse_retry_after({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    now = 1_700_000_000.0
    assert parse_retry_after({"retry-after": "Tue, 14 Nov 2023 22:13:30 GMT"}, now=now) == 10.0
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None


def test_retry_clock_bounds_tries_and_time() -> None:
    clock = RetryClock(RetryPolicy(max_retries=10, max_seconds=3.0, max_delay=30.0))
    assert clock.next_delay(2.0) is not None
    assert clock.next_delay(2.0) is None  # only ~1 s of budget left
    tries = RetryClock(RetryPolicy(max_retries=2, max_seconds=100.0))
    assert [tries.next_delay(0.1) is not None for _ in range(3)] == [True, True, False]


def test_retry_policy_from_settings() -> None:
    policy = RetryPolicy.from_settings(
        Settings(environ={"GPTE_MAX_RETRIES": "1"}, git={"gpte.maxretryseconds": "7"})
    )
    assert (policy.max_retries, policy.max_seconds) == (1, 7.0)
    with pytest.raises(ConfigError):
        RetryPolicy.from_settings(Settings(environ={"GPTE_MAX_RETRY_SECONDS": "lots"}))


# ---------------------------------------------------------------------- model resolution
def test_model_precedence_flag_env_git_toml_default() -> None:
    both = Settings(
        environ={"MODEL_NAME": "gpt-4.1"}, git={"gpte.model": "o3"}, toml={"model": "gpt-4"}
    )
    assert resolve_model("gpt-4o-mini", both).name == "gpt-4o-mini"
    assert resolve_model(None, both).name == "gpt-4.1"
    assert resolve_model(None, Settings(environ={}, git={"gpte.model": "o3"})).name == "o3"
    assert resolve_model(None, Settings(environ={}, toml={"model": "gpt-4"})).name == "gpt-4"
    assert resolve_model(None, Settings(environ={})).name == "gpt-4o"


def test_dated_variants_and_aliases_inherit_their_family() -> None:
    s = Settings(environ={})
    dated = resolve_model("gpt-4o-mini-2024-07-18", s)
    assert dated.family == "gpt-4o-mini" and dated.price is not None
    assert dated.price.input_per_million == 0.15
    assert resolve_model("claude-sonnet-4-20250514", s).family == "claude-sonnet-4"
    assert resolve_model("sonnet", s).name == "claude-sonnet-4-5"
    assert resolve_model("o3-mini", s).temperature is False
    assert resolve_model("gpt-4", s).supports_images is False


def test_unlisted_provider_names_route_by_family_without_a_price() -> None:
    s = Settings(environ={})
    newer = resolve_model("gpt-5.5", s)
    assert (newer.provider, newer.price, newer.temperature) == ("openai", None, False)
    assert resolve_model("claude-opus-5", s).provider == "anthropic"


def test_bad_price_setting_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="price"):
        resolve_model("gpt-4o", Settings(environ={"GPTE_PRICE": "cheap"}))


def test_a_newer_version_does_not_inherit_an_older_family_price() -> None:
    # claude-opus-4-6 is not a dated claude-opus-4: an unknown price, reported as tokens only.
    newer = resolve_model("claude-opus-4-6", Settings(environ={}))
    assert newer.provider == "anthropic" and newer.price is None and not newer.known
    assert resolve_model("claude-opus-4-20250514", Settings(environ={})).family == "claude-opus-4"
    assert resolve_model("claude-opus-4-5", Settings(environ={})).price == Price(5.0, 25.0)
    assert resolve_model("gpt-4-0613", Settings(environ={})).family == "gpt-4"
