"""A value written into a string as it is, where its neighbours go through a function first.

"Link URLs are written into the href attribute without escaping ... Escape the href value
like the rest of the HTML": ``_anchor`` writes ``f' href="{href}"'`` and, two lines down,
``f' title="{escape_html(title)}"'``. Asked so, the 1.5B model rewrote ``escape_html`` itself
(breaking every test) or wrote it back unchanged (the own task minimark/escape-href). The
fix is the treatment the function already gives its other values: a function of the module
whose name begins with a word of the request (``escape`` of ``escape_html``), applied in a
function's f-strings to some values and not to others; each parameter left bare there (not
what the function builds itself), wrapped in it, is one candidate (only those the request
names, when it names any). pipeline/fix_search.py runs each against the probe and the tests:
nothing here decides that the request means it.
"""

from __future__ import annotations

import ast
import functools
import re
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from .offsets import insert_at
from .subject import functions
from .wholefile import parses

# What says a value misses a treatment others get: "like the rest of the HTML", "written into
# the attribute without escaping".
_CUE = re.compile(
    r"\b(?:like|as|same\s+as)\s+(?:the\s+)?(?:rest|others?|other\s+\w+)\b|\bwithout\s+\w+ing\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[A-Za-z]{4,}")
_IDENTIFIER = re.compile(r"\b[A-Za-z_]\w*\b")
_Function = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class Unwrapped:
    """One candidate: the file, the bare value, the function it is in (qualified), its first
    line, the function wrapping it, and the file's text with every bare use of it there
    wrapped."""

    path: str
    name: str
    function: str
    line: int
    helper: str
    text: str


def asks_like_the_rest(request: str) -> bool:
    """Whether the request says a value misses what the others get (see _CUE)."""
    return _CUE.search(request) is not None


def unwrapped_values(request: str, texts: Mapping[str, str]) -> list[Unwrapped]:
    """The candidates in ``texts`` (see the module's docstring)."""
    words = {_stem(w) for w in _WORD.findall(request)}
    named = set(_IDENTIFIER.findall(request))
    found: list[Unwrapped] = []
    for path, holder, node in functions(texts):
        helpers = _helpers(texts[path], words)
        if not helpers:
            continue
        qualified = f"{holder}.{node.name}" if holder else node.name
        found += _in_function(path, texts[path], node, helpers, qualified)
    asked = [candidate for candidate in found if candidate.name in named]
    return asked or found


def _helpers(text: str, words: set[str]) -> set[str]:
    """Module-level functions of ``text`` whose name's first word is a word of the request
    (``words``: stems, see _stem)."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return set()
    return {
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and _stem(node.name.lstrip("_").split("_")[0]) in words
    }


def _stem(word: str) -> str:
    """``word``'s Snowball English stem, lower-cased: escape, escaping, escaped alike."""
    return str(_stemmer().stemWord(word.lower()))


@functools.lru_cache(maxsize=1)
def _stemmer() -> Any:
    import snowballstemmer  # type: ignore[import-untyped]  # loaded on use (PyStemmer inside)

    return snowballstemmer.stemmer("english")


def _in_function(
    path: str, text: str, node: _Function, helpers: set[str], qualified: str
) -> list[Unwrapped]:
    wrapped: Counter[str] = Counter()
    bare: dict[str, list[ast.Name]] = {}  # the parameters' (what the function builds is not)
    arguments = node.args
    parameters = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}
    for value in _interpolated(node):
        if (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Name)
            and value.func.id in helpers
            and value.func.id != node.name
        ):
            wrapped[value.func.id] += 1
        elif isinstance(value, ast.Name) and value.id in parameters:
            bare.setdefault(value.id, []).append(value)
    if not wrapped:
        return []
    helper = wrapped.most_common(1)[0][0]
    found = []
    for name, uses in bare.items():
        changed = _wrapped(text, uses, helper)
        if changed is not None:
            found.append(Unwrapped(path, name, qualified, uses[0].lineno, helper, changed))
    return found


def _interpolated(node: _Function) -> Iterator[ast.expr]:
    """The values ``node``'s f-strings interpolate plainly (no conversion, no format)."""
    for item in ast.walk(node):
        plain = isinstance(item, ast.FormattedValue) and item.conversion == -1
        if plain and isinstance(item, ast.FormattedValue) and item.format_spec is None:
            yield item.value


def _wrapped(text: str, uses: list[ast.Name], helper: str) -> str | None:
    """``text`` with each use put through ``helper``; None when a use is not where ast says
    (an f-string's positions, before Python 3.12, may be off) or the result does not parse."""
    lines = text.splitlines(keepends=True)
    for use in sorted(uses, key=lambda n: (n.lineno, n.col_offset), reverse=True):
        row = lines[use.lineno - 1]
        start, end = use.col_offset, use.end_col_offset or 0
        if row.encode("utf-8")[start:end] != use.id.encode("utf-8"):
            return None
        lines[use.lineno - 1] = insert_at(insert_at(row, end, ")"), start, f"{helper}(")
    result = "".join(lines)
    return result if parses(result) else None
