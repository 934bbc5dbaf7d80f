"""A new flag that turns a raise into a return.

"Add a parameter raise_on_limit=True to rate_limited. When it is False, a refused call returns
None instead of raising RateLimitExceeded": asked so, the 1.5B model gave the parameter the
default False, or returned None where the call should have gone on, or dropped the raise
(the own task ratelimit/decorator-no-raise was unsolved in every run). The change is
mechanical once the request says the parameter, its default, the value and the exception: the
parameter added last to the function the request names, and before each ``raise E`` in it (in
the functions it defines too: a decorator's wrapper sees the flag through its closure)
``if not flag: return value`` (``if flag:`` when the default is False). pipeline/fix_search.py
runs each candidate against the probe and the tests: nothing here decides that the request
means it.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from .offsets import indent_unit, insert_at
from .passdown import Asked, added_parameter, has_parameter, parameter_added
from .subject import functions
from .wholefile import parses

_VALUE = r"(None|True|False|-?\d+(?:\.\d+)?|\"[^\"]*\"|'[^']*'|\[\]|\{\}|\(\))"
_EXCEPTION = r"(?:an?\s+)?`?([A-Za-z_][\w.]*)`?"
# "returns None instead of raising RateLimitExceeded"
_RETURNS = re.compile(
    rf"\breturns?\s+{_VALUE}\s+(?:instead\s+of|rather\s+than)\s+rais(?:e|es|ing)\s+{_EXCEPTION}",
    re.IGNORECASE,
)
# "instead of raising KeyError it returns None"
_INSTEAD_RETURNS = re.compile(
    rf"\binstead\s+of\s+rais(?:e|es|ing)\s+{_EXCEPTION},?\s+(?:it\s+|they\s+)?"
    rf"(?:should\s+)?returns?\s+{_VALUE}",
    re.IGNORECASE,
)
MAX_SITES = 4  # raises guarded one at a time, beyond the candidate guarding them all

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_Function = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class Switch:
    """What the request asks: the flag (with the function it goes on and its default), the
    value returned when it is switched, and the exception it replaces."""

    flag: Asked
    value: str
    exception: str


def asked_switch(request: str) -> Switch | None:
    """The flag the request asks to add to turn a raise into a return, or None."""
    flag = added_parameter(request)
    if flag is None or flag.default not in ("True", "False"):
        return None
    said = _RETURNS.search(request)
    if said is not None:
        value, exception = said.groups()
    else:
        said = _INSTEAD_RETURNS.search(request)
        if said is None:
            return None
        exception, value = said.groups()
    return Switch(flag, value, exception.rsplit(".", 1)[-1])


@dataclass(frozen=True)
class Switched:
    """One candidate: the function, the first raise it guards (1-based line), how many it
    guards, and the file's text with it."""

    function: str
    line: int
    guarded: int
    text: str


def switched(text: str, switch: Switch) -> list[Switched]:
    """The candidates in ``text``: the named function (top-level, or a method of a top-level
    class) with the flag and every raise of the exception guarded, then, when it raises it in
    more than one place, each raise guarded alone."""
    found: list[Switched] = []
    for _, _, node in functions({"": text}):
        if node.name != switch.flag.function or has_parameter(node, switch.flag.parameter):
            continue
        added = parameter_added(node, switch.flag)
        raises = _raises(text, node, switch)
        if added is None or not raises:
            continue
        groups = [raises, *([r] for r in raises[:MAX_SITES])] if len(raises) > 1 else [raises]
        for group in groups:
            changed = _guarded(text, added, group, switch, indent_unit(node))
            if changed is not None:
                found.append(Switched(node.name, group[0].lineno, len(group), changed))
    return found


def _raises(text: str, node: _Function, switch: Switch) -> list[ast.Raise]:
    """The statements of ``node`` (nested functions' too, unless one takes a parameter of the
    flag's name) raising the exception, each first on its line."""
    lines = text.splitlines()
    found: list[ast.Raise] = []
    stack: list[ast.AST] = list(node.body)
    while stack:
        item = stack.pop()
        if isinstance(item, _FUNCTIONS) and has_parameter(item, switch.flag.parameter):
            continue
        if isinstance(item, ast.Lambda | ast.ClassDef):
            continue
        if (
            isinstance(item, ast.Raise)
            and _names(item.exc) == switch.exception
            and not lines[item.lineno - 1][: item.col_offset].strip()
        ):
            found.append(item)
        stack.extend(ast.iter_child_nodes(item))
    return sorted(found, key=lambda r: r.lineno)


def _names(exc: ast.expr | None) -> str:
    if isinstance(exc, ast.Call):
        exc = exc.func
    if isinstance(exc, ast.Attribute):
        return exc.attr
    return exc.id if isinstance(exc, ast.Name) else ""


def _guarded(
    text: str, added: tuple[int, int, str], raises: list[ast.Raise], switch: Switch, unit: str
) -> str | None:
    lines = text.splitlines(keepends=True)
    test = (
        f"not {switch.flag.parameter}" if switch.flag.default == "True" else switch.flag.parameter
    )
    for statement in sorted(raises, key=lambda r: r.lineno, reverse=True):
        row = lines[statement.lineno - 1]
        indent = row[: len(row) - len(row.lstrip())]
        lines.insert(
            statement.lineno - 1, f"{indent}if {test}:\n{indent}{unit}return {switch.value}\n"
        )
    line, offset, insert = added
    lines[line - 1] = insert_at(lines[line - 1], offset, insert)
    result = "".join(lines)
    return result if parses(result) else None
