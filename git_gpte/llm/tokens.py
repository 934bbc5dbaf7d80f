"""Token counts before a call, for ``--dry-run`` and context-size warnings.

After a call the API's own usage figures are used; this module only estimates. tiktoken knows
OpenAI's encodings but downloads them on first use, with no timeout. Offline that either fails
or hangs, so the encoding is loaded only when it is already in tiktoken's cache, or after a
download of our own that is bounded in time (``GPTE_TIKTOKEN_TIMEOUT``, default 3 s; none at all
with ``GPTE_OFFLINE=1``). A failed download is remembered for an hour. Without an encoding the
count is a character-based estimate and says so (``exact`` is False). Claude models are always
estimates: their tokenizer is not public.
"""

from __future__ import annotations

import hashlib
import math
import os
import tempfile
import threading
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

# tiktoken's own download locations and checksums for the encodings we use.
_ENCODINGS: dict[str, tuple[str, str]] = {
    "o200k_base": (
        "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    ),
    "cl100k_base": (
        "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    ),
}
_RETRY_DOWNLOAD_AFTER = 3600.0
# Per-message framing tokens in OpenAI's chat format (role, separators) and reply priming.
_PER_MESSAGE = 4
_PRIMING = 3
_CHARS_PER_TOKEN = 4.0

_loaded: dict[str, Any] = {}
_failed: set[str] = set()
_lock = threading.Lock()


def encoding_for(model: str) -> tuple[str | None, bool]:
    """(tiktoken encoding, whether it is the model's own) for ``model``.

    Other models (local ones) are counted with o200k as an approximation and marked inexact.
    Claude's tokenizer is not public: character estimate.
    """
    if model.startswith("claude"):
        return None, False
    if model.startswith(("gpt-4o", "gpt-4.", "gpt-5", "chatgpt-")) or model[:2] in (
        "o1",
        "o3",
        "o4",
    ):
        return "o200k_base", True
    if model.startswith(("gpt-4", "gpt-3.5")):
        return "cl100k_base", True
    return "o200k_base", False


def _cache_dir() -> str:
    for var in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"):
        if var in os.environ:
            return os.environ[var]
    return os.path.join(tempfile.gettempdir(), "data-gym-cache")


def _cache_path(url: str) -> Path | None:
    directory = _cache_dir()
    if not directory:
        return None
    return Path(directory) / hashlib.sha1(url.encode()).hexdigest()


def _download(url: str, digest: str, target: Path, timeout: float) -> bool:
    """Fetch ``url`` into ``target`` within ``timeout`` seconds in total (DNS included)."""
    result: dict[str, bytes] = {}

    def fetch() -> None:
        import urllib.request

        try:
            with urllib.request.urlopen(url, timeout=timeout) as response:
                result["data"] = response.read()
        except Exception:
            pass

    worker = threading.Thread(target=fetch, name="tiktoken-download", daemon=True)
    worker.start()
    worker.join(timeout)
    data = result.get("data")
    if data is None or hashlib.sha256(data).hexdigest() != digest:
        return False
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f"{target.name}.{os.getpid()}.tmp")
        tmp.write_bytes(data)
        tmp.replace(target)
    except OSError:
        return False
    return True


def _offline() -> bool:
    return os.environ.get("GPTE_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on")


def _timeout() -> float:
    try:
        return max(0.0, float(os.environ.get("GPTE_TIKTOKEN_TIMEOUT", "3")))
    except ValueError:
        return 3.0


def load_encoding(name: str) -> Any | None:
    """The tiktoken encoding ``name``, or None when it cannot be had quickly."""
    with _lock:
        if name in _loaded:
            return _loaded[name]
        if name in _failed or name not in _ENCODINGS:
            return None
        url, digest = _ENCODINGS[name]
        path = _cache_path(url)
        available = path is not None and path.is_file()
        if not available and path is not None and not _offline():
            marker = path.with_name(path.name + ".unreachable")
            recent = (
                marker.is_file() and time.time() - marker.stat().st_mtime < _RETRY_DOWNLOAD_AFTER
            )
            if not recent:
                available = _download(url, digest, path, _timeout())
                if not available:
                    try:
                        marker.parent.mkdir(parents=True, exist_ok=True)
                        marker.touch()
                    except OSError:
                        pass
        encoding = None
        if available:
            try:
                import tiktoken

                encoding = tiktoken.get_encoding(name)
            except Exception:
                encoding = None
        if encoding is None:
            _failed.add(name)
        else:
            _loaded[name] = encoding
        return encoding


def _content_text(content: Any) -> tuple[str, int]:
    """The text of a message's content and how many images it carries."""
    if isinstance(content, str):
        return content, 0
    texts: list[str] = []
    images = 0
    for part in content if isinstance(content, list) else ():
        if isinstance(part, Mapping):
            if part.get("type") == "text":
                texts.append(str(part.get("text", "")))
            else:
                images += 1
    return "\n".join(texts), images


def count_text(text: str, model: str) -> tuple[int, bool]:
    """Tokens in ``text`` for ``model``: (count, exact)."""
    name, own = encoding_for(model)
    encoding = load_encoding(name) if name else None
    if encoding is not None:
        return len(encoding.encode(text, disallowed_special=())), own
    return math.ceil(len(text) / _CHARS_PER_TOKEN), False


# A typical image costs about this many input tokens (OpenAI's 512px tile scheme, high detail).
IMAGE_TOKENS = 765


def estimate_tokens(messages: Iterable[Mapping[str, Any]], model: str) -> tuple[int, bool]:
    """Input tokens a request would use: (count, exact).

    ``exact`` is True only when tiktoken's encoding for the model was available; otherwise the
    figure is an estimate (characters / 4) and must be shown as one ("~1,200 tokens").
    """
    total = _PRIMING
    exact = True
    for message in messages:
        text, images = _content_text(message.get("content", ""))
        count, is_exact = count_text(text, model)
        exact = exact and is_exact
        total += count + _PER_MESSAGE + images * IMAGE_TOKENS
        if images:
            exact = False
    return total, exact


def format_tokens(count: int, exact: bool) -> str:
    return f"{count:,} tokens" if exact else f"~{count:,} tokens (estimate)"


def _reset_for_tests() -> None:
    with _lock:
        _loaded.clear()
        _failed.clear()
