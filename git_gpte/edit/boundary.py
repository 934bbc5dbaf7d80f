"""A boundary drawn one step off: the comparisons whose other strictness a request may ask for.

"An item whose stock is exactly at its reorder level is not treated as low", "the period
should include both its start and its end date", "a call made exactly ``window`` seconds ago
should no longer count": each is a ``<`` written where ``<=`` was meant, or the reverse. Shown
the function, the 1.5B model writes it back unchanged or changes something else (the own tasks
inventory/low-stock-boundary, ledger/statement-end-date and ratelimit/window-boundary were
never solved in any run), while the fix is one of a handful: a ``<``, ``<=``, ``>`` or ``>=``
of the functions the request names, or of the functions they call, turned to its other
strictness. Which one, only running code can tell (pipeline/fix_search.py runs them against the
probe and the tests); this module finds the candidates and makes each.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from .admission import asks_to_include, lets_more_in
from .subject import functions

# What a request about a boundary says: "exactly at", "inclusive", "include both its start and
# its end", "at least", "no more than", "the last day". A request that says none of these is
# not searched: a comparison's strictness is then rarely what it is about.
_BOUNDARY = re.compile(
    r"\b(?:exactly|inclusive(?:ly)?|exclusive(?:ly)?|boundary|boundaries|"
    r"off[- ]by[- ]one|at\s+(?:least|most)|or\s+equal|equal\s+to|"
    r"no\s+(?:more|less|fewer|later|earlier)\s+than|up\s+to\s+and\s+including|"
    r"(?:first|last)\s+(?:day|item|element|one|second|minute)|"
    r"includ(?:e|es|ed|ing)\s+(?:both|the\s+(?:start|end|first|last|limit|bound))|"
    r"both\s+(?:its|the)\s+(?:start|end|first|last|ends|bounds))\b",
    re.IGNORECASE,
)
# Which comparisons have another strictness, and what it is.
FLIPPED = {"<": "<=", "<=": "<", ">": ">=", ">=": ">"}
# At most this many candidates are tried: each costs a run of the probe.
MAX_CANDIDATES = 24

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_Function = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class Flip:
    """One comparison with its strictness turned: where (1-based line, 0-based column), the
    operator as it was and as it becomes, the function it is in, and the file's text with it."""

    path: str
    line: int
    column: int
    old: str
    new: str
    function: str
    text: str

    def describe(self) -> str:
        return f"`{self.old}` made `{self.new}` in {self.function} ({self.path}:{self.line})"


def asks_boundary(request: str) -> bool:
    """Whether the request speaks of a boundary (see _BOUNDARY)."""
    return _BOUNDARY.search(request) is not None


def boundary_flips(request: str, texts: Mapping[str, str]) -> list[Flip]:
    """Each comparison of the functions the request names (see named_functions) and of the
    functions of the same file they call, turned to its other strictness, the named functions'
    first, each in the order of its file; at most MAX_CANDIDATES. When the request asks for a
    boundary to be let in, not those that would let less in (see edit/admission.py)."""
    flips: list[Flip] = []
    seen: set[tuple[str, int, int]] = set()
    include = asks_to_include(request)
    for path, qualified, node, _ in searched_functions(request, texts):
        for line, column, old in _comparisons(texts[path], node):
            if (path, line, column) in seen:
                continue
            seen.add((path, line, column))
            wider = FLIPPED[old].endswith("=")
            if include and lets_more_in(texts[path], line, column, wider) is False:
                continue  # lets less in than before, where the request asks for more
            text = _turned(texts[path], line, column, old)
            flips.append(Flip(path, line, column, old, FLIPPED[old], qualified, text))
    return flips[:MAX_CANDIDATES]


def named_functions(request: str, texts: Mapping[str, str]) -> list[tuple[str, str, _Function]]:
    """The functions and methods the request names as code: ``is_low()``, ``Ledger.statement``,
    `` `allow` ``, ``low_stock``; a plain word is a name only with an underscore, a call's
    parentheses, a dot or backticks (the request's "allow" is English). With none, the methods
    of the classes it names. A method named with its class (``Polygon.area``) is that class's
    only, when it has one of that name. Each as (path, qualified name, node)."""
    asked = _code_names(request)
    found = [entry for entry in _functions(texts) if entry[2].name in asked]
    if found:
        pinned = set(re.findall(r"\b[A-Za-z_]\w*\.[A-Za-z_]\w*", request))
        held = {qualified.split(".")[-1] for _, qualified, _ in found if qualified in pinned}
        return [e for e in found if e[2].name not in held or e[1] in pinned]
    classes = set(re.findall(r"\b[A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+\b", request)) | asked
    return [entry for entry in _functions(texts) if entry[1].split(".")[0] in classes]


def _code_names(request: str) -> set[str]:
    """The names a request writes as code: with a call's parentheses, after a dot, in
    backticks, or with an underscore inside."""
    names: set[str] = set()
    for match in re.finditer(r"(`?)(\.?)\b([A-Za-z_]\w*)\b(\(?)", request):
        tick, dot, name, call = match.groups()
        if tick or dot or call or "_" in name.strip("_"):
            names.add(name)
    names |= set(re.findall(r"\b[A-Za-z_]\w*\.([A-Za-z_]\w*)", request))
    return names


def searched_functions(
    request: str, texts: Mapping[str, str]
) -> Iterator[tuple[str, str, _Function, bool]]:
    """The named functions, then the functions of their files that they call (``f(...)``,
    ``self.f(...)``) or hand on (``self._convert(key, parse_bool)``), each once: (path,
    qualified name, node, whether the request names it)."""
    named = named_functions(request, texts)
    yield from ((path, qualified, node, True) for path, qualified, node in named)
    listed = {(path, node.name) for path, _, node in named}
    for path, _, node in named:
        called = _called(node)
        for found, qualified, callee in _functions({path: texts[path]}):
            if callee.name in called and (path, callee.name) not in listed:
                listed.add((path, callee.name))
                yield found, qualified, callee, False


def _called(node: _Function) -> set[str]:
    called: set[str] = set()
    for item in ast.walk(node):
        if isinstance(item, ast.Call):
            if isinstance(item.func, ast.Attribute):
                called.add(item.func.attr)
        elif isinstance(item, ast.Name) and isinstance(item.ctx, ast.Load):
            called.add(item.id)
    return called


def _functions(texts: Mapping[str, str]) -> Iterator[tuple[str, str, _Function]]:
    """Each top-level function and method of a top-level class (see subject.functions), with
    its qualified name: (path, ``Class.method`` or ``function``, node)."""
    for path, holder, node in functions(texts):
        yield path, f"{holder}.{node.name}" if holder else node.name, node


def _comparisons(text: str, node: _Function) -> list[tuple[int, int, str]]:
    """(line, column, operator) of each ``<``, ``<=``, ``>``, ``>=`` in ``node``'s lines."""
    first, last = node.lineno, node.end_lineno or node.lineno
    found = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.start[0] > last:
                break
            if token.type == tokenize.OP and token.string in FLIPPED and token.start[0] >= first:
                found.append((token.start[0], token.start[1], token.string))
    except (tokenize.TokenError, SyntaxError):
        return []
    return found


def _turned(text: str, line: int, column: int, old: str) -> str:
    lines = text.splitlines(keepends=True)
    row = lines[line - 1]
    assert row[column : column + len(old)] == old
    lines[line - 1] = row[:column] + FLIPPED[old] + row[column + len(old) :]
    return "".join(lines)
