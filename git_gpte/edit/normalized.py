"""A new method given the treatment its class gives a parameter before it looks it up.

``Settings`` keeps its values under normalized keys, and each of its methods taking ``key``
turns it with ``normalize_key`` first (``key = normalize_key(key)``, or ``normalize_key(key) in
self._values``). Asked for a ``get_list(key, ...)`` method, the 1.5B model wrote ``key not in
self._values`` and ``self._values[key]`` with the key as given: ``get_list("Server.Hosts")``
found nothing that ``get("Server.Hosts")`` finds (the own task settings/get-list). What the
class does with that parameter is plain from its other methods when they all do the same: then
a new method that looks the raw parameter up in an attribute of the instance
(``self._values[key]``, ``key in self._values``, ``self._values.get(key)``) gets the same first
line. Nothing is guessed when the class's methods disagree, or when one of them looks the raw
parameter up itself.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from .offsets import indent_unit
from .wholefile import Repair, parses

_Function = ast.FunctionDef | ast.AsyncFunctionDef
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
# How many of the class's methods must treat the parameter the same way.
MIN_AGREEING = 2
_LOOKUPS = ("get", "pop", "setdefault")


def normalize_like_siblings(before: str, after: str) -> Repair | None:
    """``after`` with each new method of a class that looks a parameter up raw, where the
    class's other methods all normalize that parameter with the same function first, given
    that function's call as its first statement; None when there is none."""
    try:
        old_tree, tree = ast.parse(before), ast.parse(after)
    except SyntaxError:
        return None
    old_classes = {n.name: n for n in old_tree.body if isinstance(n, ast.ClassDef)}
    inserts: list[tuple[int, str]] = []
    said: list[str] = []
    for holder in tree.body:
        old = old_classes.get(holder.name) if isinstance(holder, ast.ClassDef) else None
        if old is None or not isinstance(holder, ast.ClassDef):
            continue
        treatments = _treatments(_methods(old))
        known = {m.name for m in _methods(old)}
        for method in _methods(holder):
            if method.name in known:
                continue
            for parameter, treatment in sorted(treatments.items()):
                if _looks_up_raw(method, parameter) and not _treats(method, parameter, treatment):
                    first = _first_line(method, f"{parameter} = {treatment}")
                    if first is not None:
                        inserts.append(first)
                        said.append(f"{holder.name}.{method.name} ({parameter} = {treatment})")
    if not inserts:
        return None
    lines = after.splitlines(keepends=True)
    for row, line in sorted(inserts, reverse=True):
        lines.insert(row, line)
    text = "".join(lines)
    if not parses(text):
        return None
    detail = "a new method treats a parameter as the class's other methods do first: "
    return Repair(text, detail + "; ".join(said))


def _methods(holder: ast.ClassDef) -> list[_Function]:
    return [n for n in holder.body if isinstance(n, _FUNCTIONS)]


def _treatments(methods: list[_Function]) -> dict[str, str]:
    """Each parameter name the methods all treat with one call before looking it up: name to
    the call's source (``normalize_key(key)``)."""
    seen: dict[str, set[str]] = {}
    counts: dict[str, int] = {}
    raw: set[str] = set()
    for method in methods:
        for parameter in _parameters(method)[1:]:
            treatment = _treatment(method, parameter)
            if treatment is not None:
                seen.setdefault(parameter, set()).add(treatment)
                counts[parameter] = counts.get(parameter, 0) + 1
            elif _looks_up_raw(method, parameter):
                raw.add(parameter)
    return {
        parameter: next(iter(found))
        for parameter, found in seen.items()
        if len(found) == 1 and counts[parameter] >= MIN_AGREEING and parameter not in raw
    }


def _parameters(method: _Function) -> list[str]:
    arguments = method.args
    return [a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)]


def _treatment(method: _Function, parameter: str) -> str | None:
    """The call ``method`` treats ``parameter`` with: its first statement
    ``parameter = f(parameter)``, or every use of it ``f(parameter)``; None otherwise."""
    body = _body(method)
    if body and isinstance(body[0], ast.Assign) and len(body[0].targets) == 1:
        target, value = body[0].targets[0], body[0].value
        if (
            isinstance(target, ast.Name)
            and target.id == parameter
            and _is_call_of(value, parameter)
        ):
            return ast.unparse(value)
    uses = [n for n in ast.walk(method) if isinstance(n, ast.Name) and n.id == parameter]
    calls = [n for n in ast.walk(method) if isinstance(n, ast.Call) and _is_call_of(n, parameter)]
    written = {ast.unparse(call) for call in calls}
    return written.pop() if uses and len(written) == 1 and len(calls) == len(uses) else None


def _is_call_of(node: ast.expr, parameter: str) -> bool:
    """``f(parameter)`` with a plain function name: no other argument, not a method."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and len(node.args) == 1
        and not node.keywords
        and isinstance(node.args[0], ast.Name)
        and node.args[0].id == parameter
    )


def _treats(method: _Function, parameter: str, treatment: str) -> bool:
    return any(
        isinstance(n, ast.Call) and ast.unparse(n) == treatment for n in ast.walk(method)
    ) or _reassigned(method, parameter)


def _reassigned(method: _Function, parameter: str) -> bool:
    return any(
        isinstance(n, ast.Name) and n.id == parameter and isinstance(n.ctx, ast.Store)
        for n in ast.walk(method)
    )


def _looks_up_raw(method: _Function, parameter: str) -> bool:
    """Whether ``method`` looks ``parameter`` up as given in an attribute of the instance."""
    return any(True for _ in _raw_lookups(method, parameter))


def _raw_lookups(method: _Function, parameter: str) -> Iterator[ast.AST]:
    for node in ast.walk(method):
        if isinstance(node, ast.Subscript) and _is_own(node.value) and _is(node.slice, parameter):
            yield node
        elif isinstance(node, ast.Compare) and _is(node.left, parameter):
            pairs = zip(node.ops, node.comparators, strict=True)
            if any(isinstance(op, ast.In | ast.NotIn) and _is_own(c) for op, c in pairs):
                yield node
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _LOOKUPS
            and _is_own(node.func.value)
            and node.args
            and _is(node.args[0], parameter)
        ):
            yield node


def _is(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _is_own(node: ast.expr) -> bool:
    """``self.attribute``."""
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    )


def _body(method: _Function) -> list[ast.stmt]:
    """The statements after the docstring."""
    body = method.body
    first = body[0] if body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
        return body[1:]
    return body


def _first_line(method: _Function, statement: str) -> tuple[int, str] | None:
    """(0-based line to insert at, the line): before the method's first statement after its
    docstring, indented as its body is; None when that statement is on the ``def``'s line."""
    rest = _body(method)
    if not rest or rest[0].lineno <= method.lineno:
        return None
    indent = " " * method.col_offset + indent_unit(method)
    return rest[0].lineno - 1, f"{indent}{statement}\n"
