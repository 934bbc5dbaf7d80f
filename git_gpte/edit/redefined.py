"""A function a rewritten file defines twice where the file defined it once.

Asked that tqdm's ``disp_trim`` refuse a negative length, the 1.5B model wrote ``tqdm/utils.py``
back whole with ``disp_trim`` where it was and an identical copy at the end of the file; the
copy changed nothing, the file defined the function twice, and that went into the commit.
Python keeps the last definition, a reader sees two; nobody asks for that. When one of the two
is the file's function as it was and the other differs, the other is the edit, and it takes the
first one's place; when both are as they were, the later one goes. Functions a decorator
registers under one name (``@overload``, ``@x.setter``, ``@f.register``) are left alone.
"""

from __future__ import annotations

import ast

from .definitions import span
from .wholefile import Repair, spliced_repair

_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# Decorators under which one name is rightly defined several times.
_MANY = ("overload", "setter", "getter", "deleter", "register")


def keep_one_definition(before: str, after: str, request: str = "") -> Repair | None:
    """``after`` with each top-level function or class it defines twice, where ``before``
    defined it once, kept once (see the module's doc); None when there is none, or the result
    would not parse."""
    del request
    try:
        old_tree, new_tree = ast.parse(before), ast.parse(after)
    except (SyntaxError, ValueError):
        return None
    was = {node.name: node for node in old_tree.body if isinstance(node, _DEFINITIONS)}
    counts: dict[str, int] = {}
    for node in old_tree.body:
        if isinstance(node, _DEFINITIONS):
            counts[node.name] = counts.get(node.name, 0) + 1
    seen: dict[str, list[ast.stmt]] = {}
    for node in new_tree.body:
        if isinstance(node, _DEFINITIONS) and counts.get(node.name) == 1:
            seen.setdefault(node.name, []).append(node)
    lines = after.split("\n")
    spans: list[tuple[int, int, list[str]]] = []
    names: list[str] = []
    for name, nodes in seen.items():
        if len(nodes) != 2 or any(_registers(node) for node in nodes):
            continue
        first, second = nodes
        old = ast.dump(was[name])
        if ast.dump(second) in (old, ast.dump(first)):
            spans.append(_removed(second, new_tree))
        elif ast.dump(first) == old:
            spans.append((*span(first), lines[slice(*span(second))]))
            spans.append(_removed(second, new_tree))
        else:
            continue
        names.append(name)
    said = ", ".join(names)
    return spliced_repair(
        lines, spans, f"kept one definition of what the reply defined twice: {said}"
    )


def _registers(node: ast.stmt) -> bool:
    for decorator in getattr(node, "decorator_list", []):
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name in _MANY:
            return True
    return False


def _removed(node: ast.stmt, tree: ast.Module) -> tuple[int, int, list[str]]:
    """The span taking ``node`` out with the blank lines that set it apart before it (up to the
    end of the statement above)."""
    start, end = span(node)
    above = [n for n in tree.body if (n.end_lineno or n.lineno) <= start]
    floor = max((n.end_lineno or n.lineno) for n in above) if above else 0
    return floor, end, []
