"""How many tokens a text costs, without encoding it.

Packing needs thousands of size estimates per request, so they come from counts the index
keeps. The budget is counted in OpenAI's o200k tokens when that encoding is available offline
(tiktoken's cache, where every tool on this machine would find it), else in UTF-8 bytes / 4,
the estimate everyone falls back to. In o200k, a chunk costs its *pieces* (see ``_PIECE``),
counted when it is indexed; anything without a count (a map entry) costs its bytes x 0.26
(o200k averages 0.233-0.245 tokens per byte on Python code; denser lines, markup and lock files,
run 0.3-0.75). In bytes / 4 the count is exact, plus 1%.
``GPTE_CONTEXT_TOKENIZER=o200k|bytes4`` says which, when the budget's owner knows better.
"""

from __future__ import annotations

import functools
import hashlib
import math
import os
import re
import tempfile
from collections import Counter
from pathlib import Path

O200K_RATE = 0.26
BYTES4_RATE = 0.2525
# Words with their leading space, up to three digits, runs of punctuation, line breaks with the
# indentation before them, spaces: the cuts o200k's pre-tokenizer makes, nearly all one token.
# Counted per chunk at index time. On the selections made for locbench's public tasks and for
# 160 tasks of four other projects (bench/locbench_tasks.py), real o200k tokens were 0.82-0.98
# of the piece count (median 0.87, 95th percentile 0.92), where bytes x 0.26 ranged 0.74-1.09:
# a count by pieces wastes less of a budget and overshoots it less. PIECE_RATE sits above the
# 95th percentile; a rare selection over its budget by a few percent loses its last lines.
_PIECE = re.compile(r" ?[^\W\d_]+|\d{1,3}| ?[^\s\w]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+|_+")
PIECE_LEN = 8
_WIDE = re.compile(r"[^\u0000-\u07ff]")
PIECE_RATE = 0.95
# ... per language: real o200k tokens per piece run higher where punctuation is denser. Each
# rate is its language's median ratio (files over 500 bytes of the 22 repositories of
# bench/context_pool.py's pool: Python 0.870, Go 0.881, JavaScript 0.912, TypeScript 0.942,
# TSX 0.947) with the margin Python's 0.95 keeps over its median (9%): a TypeScript selection
# counted at 0.95 went over its budget in 28 of the 148 runs on zod and hono.
PIECE_RATES = {"go": 0.96, "javascript": 0.99, "typescript": 1.03, "tsx": 1.03}
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
def token_mode() -> str:
    """``o200k`` or ``bytes4``: what budgets count in this environment."""
    choice = os.environ.get("GPTE_CONTEXT_TOKENIZER", "").strip().lower()
    if choice in ("o200k", "bytes4"):
        return choice
    return "o200k" if o200k_cached() else "bytes4"


def token_rate() -> float:
    """Tokens per UTF-8 byte for budgets in this environment."""
    return O200K_RATE if token_mode() == "o200k" else BYTES4_RATE


# A line this long is data or minified code (base64, hashes, a bundle on one line): on the
# 22 repositories of bench/context_pool.py's pool (1% of lines), real o200k tokens ran 0.41 per
# byte at the median and 0.67 at the 99th percentile, 1.2-1.9 per piece at the 95th-99th. Such a
# line counts at least DENSE_PIECES_PER_BYTE pieces per byte: one of them (a source map in
# dist/axios.js) had made a selection 80 % larger than its budget.
LONG_LINE = 400
DENSE_PIECES_PER_BYTE = 0.7
# Anchored at a line's start: unanchored, each position of a short line was tried again up to
# its end (a fifth of the time of counting).
_LONG = re.compile(rf"(?m)^[^\n]{{{LONG_LINE},}}")


def count_pieces(text: str) -> int:
    """The pieces o200k's pre-tokenizer cuts a text into, roughly (a long run counts once per
    PIECE_LEN characters): each piece is about one token, whatever the text's style. A character
    beyond U+07FF (CJK, emoji, symbols) counts once more: a run of them is not one word but
    nearly a token each (Latin, Greek and Cyrillic words stay a piece). A line of LONG_LINE
    characters or more counts by its bytes when that is more (see DENSE_PIECES_PER_BYTE)."""
    pieces = _pieces(text)
    for line in _LONG.findall(text):
        dense = math.ceil(len(line.encode("utf-8", "surrogatepass")) * DENSE_PIECES_PER_BYTE)
        pieces += max(0, dense - _pieces(line))
    return pieces


def _pieces(text: str) -> int:
    # Each piece counts once per PIECE_LEN characters begun; the lengths are tallied first
    # (a few dozen distinct ones per text, where a text has thousands of pieces).
    lengths = Counter(map(len, _PIECE.findall(text)))
    pieces = sum(n * (1 + (length - 1) // PIECE_LEN) for length, n in lengths.items())
    return pieces + len(_WIDE.findall(text))


def estimate_tokens(nbytes: int, pieces: int = 0, lang: str | None = None) -> int:
    """Tokens of a text of ``nbytes`` bytes and ``pieces`` pieces (0: unknown) in ``lang``."""
    if pieces and token_mode() == "o200k":
        return math.ceil(pieces * PIECE_RATES.get(lang or "", PIECE_RATE))
    return math.ceil(nbytes * token_rate())
