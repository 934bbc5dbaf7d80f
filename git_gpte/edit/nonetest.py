"""A name tested for None and then used as a value in the same condition.

``x is None and x < 0`` compares None with a number whenever its first half holds: a
TypeError on every call that leaves ``x`` at None. Seen on humanize (stop 63,
docs/benchmarks.md): asked that ``intcomma`` raise ValueError for a negative ``ndigits``, the
1.5B model wrote ``if ndigits is None and ndigits < 0:`` at the top of the function, whose
default is None; the project's tests could not run here and it was committed as a success.
The same holds for ``x is not None or x < 0``. pyflakes does not see it; the shape is plain in
the syntax tree, so it is found there. Pure functions on a parsed module.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

# Uses of a value that None does not allow: an order comparison, arithmetic, an attribute,
# an item, a call.
_ORDER = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def none_misuses(tree: ast.Module) -> Iterator[tuple[str, int]]:
    """(the condition's source, its line) for each ``x is None and <x used>`` or
    ``x is not None or <x used>`` in the module."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.BoolOp):
            continue
        wanted = ast.Is if isinstance(node.op, ast.And) else ast.IsNot
        for at, value in enumerate(node.values):
            name = _tested_for_none(value, wanted)
            if name is not None and any(_uses(later, name) for later in node.values[at + 1 :]):
                yield ast.unparse(node), node.lineno
                break


def _tested_for_none(node: ast.expr, op: type[ast.cmpop]) -> str | None:
    """``x`` of ``x is None`` (``op`` Is) or ``x is not None`` (IsNot)."""
    if (
        isinstance(node, ast.Compare)
        and isinstance(node.left, ast.Name)
        and len(node.ops) == 1
        and isinstance(node.ops[0], op)
        and isinstance(node.comparators[0], ast.Constant)
        and node.comparators[0].value is None
    ):
        return node.left.id
    return None


def _uses(node: ast.expr, name: str) -> bool:
    """Whether ``node`` uses ``name`` in a way None does not allow (outside a nested
    condition or function, which may test it again)."""
    for inner in ast.walk(node):
        if isinstance(inner, (ast.Lambda, ast.BoolOp, ast.IfExp)):
            return False
        if (
            isinstance(inner, ast.Compare)
            and any(isinstance(op, _ORDER) for op in inner.ops)
            and any(_is(side, name) for side in [inner.left, *inner.comparators])
        ):
            return True
        if isinstance(inner, ast.BinOp) and (_is(inner.left, name) or _is(inner.right, name)):
            return True
        if isinstance(inner, (ast.Attribute, ast.Subscript)) and _is(inner.value, name):
            return True
        if isinstance(inner, ast.Call) and _is(inner.func, name):
            return True
    return False


def _is(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name
