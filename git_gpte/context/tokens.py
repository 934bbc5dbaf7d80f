"""How many tokens a run of bytes costs, without reading or encoding it.

Packing needs thousands of size estimates per request, so they come from byte counts. The
rate depends on the tokenizer the budget is counted in: with OpenAI's o200k encoding available
offline (tiktoken's cache, where every tool on this machine would find it) the budget is taken
to be in o200k tokens, which average 0.233-0.245 per byte on Python code (measured with
tiktoken's o200k_base over every .py file of requests, click and pluggy; 0.26 here, a margin for
denser lines: markup, lock files and SVG run 0.3-0.75, and a count that overshoots loses the
selection's last lines); without it, in UTF-8 bytes / 4, the estimate everyone falls back to
(plus 1%).
``GPTE_CONTEXT_TOKENIZER=o200k|bytes4`` says which, when the budget's owner knows better.
"""

from __future__ import annotations

import functools
import hashlib
import math
import os
import tempfile
from pathlib import Path

O200K_RATE = 0.26
BYTES4_RATE = 0.2525
# Where tiktoken caches o200k_base: sha1 of this URL, in TIKTOKEN_CACHE_DIR / DATA_GYM_CACHE_DIR
# or the temp dir's data-gym-cache (the same rule as git_gpte.llm.tokens, which this module
# does not import: that package costs ~0.1 s to load).
_O200K_URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"


def o200k_cached() -> bool:
    directory = None
    for var in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"):
        if var in os.environ:
            directory = os.environ[var]
            break
    if directory is None:
        directory = os.path.join(tempfile.gettempdir(), "data-gym-cache")
    if not directory:
        return False
    return (Path(directory) / hashlib.sha1(_O200K_URL.encode()).hexdigest()).is_file()


@functools.lru_cache(maxsize=1)
def token_rate() -> float:
    """Tokens per UTF-8 byte for budgets in this environment."""
    choice = os.environ.get("GPTE_CONTEXT_TOKENIZER", "").strip().lower()
    if choice == "o200k":
        return O200K_RATE
    if choice == "bytes4":
        return BYTES4_RATE
    return O200K_RATE if o200k_cached() else BYTES4_RATE


def estimate_tokens(nbytes: int) -> int:
    return math.ceil(nbytes * token_rate())
