"""A new parameter passed down to where the fixed value it replaces is used.

"Add a parameter env_prefix to load_settings, defaulting to "APP_", and use it instead of the
fixed prefix": the fixed value is not in ``load_settings`` but two calls down, the default of
``key_from_env(name, prefix=ENV_PREFIX)``, reached through ``read_environ``. Asked so, the 1.5B
model added the parameter and then copied ``read_environ``'s loop into ``load_settings`` with
a name it never set, or never used the parameter at all (the own task settings/env-prefix was
unsolved in every run). The change is mechanical once the chain is known: the parameter on the
function the request names and on each function between it and the one whose parameter
defaults to that value, and each call on the way passing it on. Each such chain (at most three
calls long, in the named function's file) is one candidate for pipeline/fix_search.py, which
runs it against the probe and the tests: nothing here decides which chain the request means.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass

from .offsets import insert_at
from .wholefile import parses

# "add a parameter env_prefix to load_settings", "add an optional argument `sep` to split_row"
_ADD = re.compile(
    r"\badd\s+(?:an?\s+|the\s+)?(?:new\s+|optional\s+|keyword\s+)*(?:parameter|argument)\s+"
    r"`?([A-Za-z_]\w*)`?(?:\s*=\s*(\S+?))?\s+to\s+`?(?:[A-Za-z_]\w*\.)?([A-Za-z_]\w*)`?",
    re.IGNORECASE,
)
# "defaulting to "APP_"", "(default 10)", "with a default of 'x'"
_DEFAULT = re.compile(
    r"\bdefault(?:ing|s)?(?:\s+(?:to|of|is))?\s*[:=]?\s*"
    r"(\"[^\"]*\"|'[^']*'|-?\d+(?:\.\d+)?|True|False|None)",
    re.IGNORECASE,
)
# What says the value replaces one fixed in the code.
_INSTEAD = re.compile(r"\b(?:instead\s+of|rather\s+than|in\s+place\s+of)\b", re.IGNORECASE)
# How many calls down the value may be found.
MAX_DEPTH = 3
MAX_CHAINS = 6

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_NONE = object()  # what no constant holds
_Function = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class Asked:
    """What the request asks: the parameter, the function it goes on, its default (source)."""

    parameter: str
    function: str
    default: str


def asked_parameter(request: str) -> Asked | None:
    """The parameter the request asks to add in place of a fixed value, or None."""
    if not _INSTEAD.search(request):
        return None
    return added_parameter(request)


def added_parameter(request: str) -> Asked | None:
    """The parameter the request asks to add, with its default, or None (no default said)."""
    added = _ADD.search(request)
    if added is None:
        return None
    parameter, inline, function = added.groups()
    default = inline.rstrip(",.;)") if inline else None
    if default is None:
        said = _DEFAULT.search(request, added.end()) or _DEFAULT.search(request)
        default = said.group(1) if said else None
    if default is None:
        return None
    try:
        ast.literal_eval(default)
    except (ValueError, SyntaxError):
        return None
    return Asked(parameter, function, default)


@dataclass(frozen=True)
class Chain:
    """The functions from the named one to the one whose parameter ``target`` defaults to the
    value, each called by the one before."""

    functions: tuple[_Function, ...]
    target: str


def chains(text: str, asked: Asked) -> list[Chain]:
    """Each chain of calls, in ``text``'s top-level functions, from the one the request names
    to one with a parameter defaulting to the asked value (directly, or through a module
    constant holding it), at most MAX_DEPTH calls long; the shortest first."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    functions = {n.name: n for n in tree.body if isinstance(n, _FUNCTIONS)}
    start = functions.get(asked.function)
    if start is None or has_parameter(start, asked.parameter) or _open_ended(start):
        return []
    value = ast.literal_eval(asked.default)
    constants = _constants(tree)
    found: list[Chain] = []
    for path in _paths(start, functions):
        target = _defaulting(path[-1], value, constants)
        if target is not None and len(path) > 1:
            found.append(Chain(tuple(path), target))
    found.sort(key=lambda chain: len(chain.functions))
    return found[:MAX_CHAINS]


def passed_down(text: str, asked: Asked, chain: Chain) -> str | None:
    """``text`` with the parameter on each function of ``chain`` but the last, and each call
    on the way passing it on; None when a call there cannot take it as written."""
    edits: list[tuple[int, int, str]] = []  # (line, byte offset, text to insert)
    for caller in chain.functions[:-1]:
        if not has_parameter(caller, asked.parameter):
            added = parameter_added(caller, asked)
            if added is None:
                return None
            edits.append(added)
    lines = text.splitlines(keepends=True)
    for caller, callee in zip(chain.functions, chain.functions[1:], strict=False):
        keyword = chain.target if callee is chain.functions[-1] else asked.parameter
        calls = [c for c in _calls(caller) if _callee_name(c) == callee.name]
        for call in calls:
            if any(k.arg == keyword or k.arg is None for k in call.keywords):
                return None
            if _passes_positionally(call, callee, keyword):
                return None
            line, offset = call.end_lineno or call.lineno, (call.end_col_offset or 1) - 1
            before = lines[line - 1].encode("utf-8")[:offset].decode("utf-8")
            written = ("".join(lines[: line - 1]) + before).rstrip()
            passed = f"{keyword}={asked.parameter}"
            arguments: list[ast.expr | ast.keyword] = [*call.args, *call.keywords]
            if written.endswith(",") and not before.strip() and arguments:
                # One argument a line, the parenthesis on its own: one more line.
                row = lines[arguments[-1].lineno - 1]
                indent = row[: len(row) - len(row.lstrip())]
                edits.append((line, 0, f"{indent}{passed},\n"))
                continue
            joint = "" if written.endswith((",", "(")) else ", "
            edits.append((line, offset, f"{joint}{passed}"))
    for line, offset, insert in sorted(edits, reverse=True):
        lines[line - 1] = insert_at(lines[line - 1], offset, insert)
    result = "".join(lines)
    return result if parses(result) else None


def parameter_added(node: _Function, asked: Asked) -> tuple[int, int, str] | None:
    """Where and what to insert to give ``node`` the asked parameter last, with its default:
    (line, byte offset, text); None when its signature has no plain place for it (no
    positional parameter, or ``*args``, ``**kwargs`` or keyword-only ones)."""
    if _open_ended(node) or not _positional(node):
        return None
    at = _after_default(node, _positional(node)[-1])
    return (
        at.end_lineno or at.lineno,
        at.end_col_offset or 0,
        f", {asked.parameter}={asked.default}",
    )


def _after_default(node: _Function, last: ast.arg) -> ast.expr | ast.arg:
    """What the new parameter goes after: the last positional one's default, if it has one,
    else the parameter itself (its annotation included)."""
    if node.args.defaults:
        return node.args.defaults[-1]
    return last.annotation if last.annotation is not None else last


def _paths(start: _Function, functions: dict[str, _Function]) -> Iterator[list[_Function]]:
    stack: list[list[_Function]] = [[start]]
    while stack:
        path = stack.pop()
        yield path
        if len(path) > MAX_DEPTH:
            continue
        called = {_callee_name(c) for c in _calls(path[-1])}
        for name in sorted(n for n in called if n in functions):
            callee = functions[name]
            if callee not in path:
                stack.append([*path, callee])


def _calls(node: _Function) -> list[ast.Call]:
    return [c for c in ast.walk(node) if isinstance(c, ast.Call)]


def _callee_name(call: ast.Call) -> str:
    return call.func.id if isinstance(call.func, ast.Name) else ""


def _constants(tree: ast.Module) -> dict[str, object]:
    """Module-level ``NAME = literal`` assignments."""
    found: dict[str, object] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and isinstance(node.value, ast.Constant):
                found[target.id] = node.value.value
    return found


def _defaulting(node: _Function, value: object, constants: dict[str, object]) -> str | None:
    """The parameter of ``node`` whose default is ``value``, or a constant holding it."""
    positional = [*node.args.posonlyargs, *node.args.args]
    defaulted = positional[len(positional) - len(node.args.defaults) :]
    pairs = list(zip(defaulted, node.args.defaults, strict=True))
    pairs += [(a, d) for a, d in zip(node.args.kwonlyargs, node.args.kw_defaults, strict=True) if d]
    for argument, default in pairs:
        if isinstance(default, ast.Constant) and default.value == value:
            return argument.arg
        if isinstance(default, ast.Name) and constants.get(default.id, _NONE) == value:
            return argument.arg
    return None


def has_parameter(node: _Function, name: str) -> bool:
    arguments = node.args
    every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    return any(a.arg == name for a in every)


def _open_ended(node: _Function) -> bool:
    """Takes ``*args`` or ``**kwargs``, or keyword-only ones: a parameter added last would
    not be where a plain signature puts it."""
    arguments = node.args
    return bool(arguments.vararg or arguments.kwarg or arguments.kwonlyargs)


def _positional(node: _Function) -> list[ast.arg]:
    return [*node.args.posonlyargs, *node.args.args]


def _passes_positionally(call: ast.Call, callee: _Function, keyword: str) -> bool:
    """Whether ``call`` already gives ``keyword`` by position (or may, through ``*args``)."""
    names = [a.arg for a in _positional(callee)]
    if any(isinstance(a, ast.Starred) for a in call.args):
        return True
    return keyword in names and names.index(keyword) < len(call.args)
