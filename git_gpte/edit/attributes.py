"""What a class has, for a failing run that used an attribute it does not have.

The 1.5B model wrote ``task.completed`` for a ``Task`` whose field is ``done``, and the tests
failed with ``AttributeError: 'Task' object has no attribute 'completed'`` on every retry
(bench/solve.py: todo/overdue-open-only; ``store.low_stock_count`` in
inventory/store-logging). The traceback says what is missing, not what is there: a retry now
says that too, from the class's own definition. Pure functions over the files' texts.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping

# Python's own words for it, on any line of a run's output.
_MISSING = re.compile(r"AttributeError: '(\w+)' object has no attribute '(\w+)'")
MAX_NAMES = 20  # a class's attributes said in one line; more are left out with "…"
_HAS = "what it has:"


def missing_attribute_hints(output: str, texts: Mapping[str, str]) -> list[str]:
    """One line for each class of ``texts`` (path -> Python source) that ``output`` says
    lacks an attribute: the attribute, and the ones the class has (fields, attributes set on
    ``self``, methods, and those of its bases defined in ``texts``). Classes defined in none
    or in several of the files say nothing."""
    lines = []
    seen: set[tuple[str, str]] = set()
    classes = _classes(texts)
    for name, attribute in _MISSING.findall(output):
        if (name, attribute) in seen or len(classes.get(name, [])) != 1:
            continue
        seen.add((name, attribute))
        path, _ = classes[name][0]
        has = [a for a in _attributes(name, classes, set()) if a != attribute]
        if not has:
            continue
        listed = ", ".join(has[:MAX_NAMES]) + (", …" if len(has) > MAX_NAMES else "")
        lines.append(
            f"{name} (in {path}) has no attribute `{attribute}`; {_HAS} {listed}. "
            "Use one of these, or define the attribute in the class."
        )
    return lines


def lacking(output: str) -> list[str]:
    """The classes ``output`` says lack an attribute, once each (where to look them up)."""
    return list(dict.fromkeys(name for name, _ in _MISSING.findall(output)))


def hint_lines(text: str) -> list[str]:
    """The lines of ``text`` that missing_attribute_hints wrote."""
    return [line for line in text.splitlines() if f"`; {_HAS} " in line]


def _classes(texts: Mapping[str, str]) -> dict[str, list[tuple[str, ast.ClassDef]]]:
    found: dict[str, list[tuple[str, ast.ClassDef]]] = {}
    for path, text in sorted(texts.items()):
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                found.setdefault(node.name, []).append((path, node))
    return found


def _attributes(
    name: str, classes: Mapping[str, list[tuple[str, ast.ClassDef]]], visited: set[str]
) -> list[str]:
    """The class's attributes in the order they are written, then its bases' (once each)."""
    if name in visited or len(classes.get(name, [])) != 1:
        return []
    visited.add(name)
    node = classes[name][0][1]
    names: dict[str, None] = {}
    for statement in node.body:
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            names.setdefault(statement.target.id, None)
        elif isinstance(statement, ast.Assign):
            for target in statement.targets:
                if isinstance(target, ast.Name):
                    names.setdefault(target.id, None)
        elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for attribute in _set_on_self(statement):
                names.setdefault(attribute, None)
    for statement in node.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.setdefault(f"{statement.name}()", None)
    for base in node.bases:
        if isinstance(base, ast.Name):
            for attribute in _attributes(base.id, classes, visited):
                names.setdefault(attribute, None)
    return [n for n in names if not n.startswith("__")]


def _set_on_self(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """The attributes a method sets on its first parameter (``self.x = ...``)."""
    if not function.args.args:
        return []
    me = function.args.args[0].arg
    out = []
    for node in ast.walk(function):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            targets = [node.target]
        for target in targets:
            if (
                isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Name)
                and target.value.id == me
            ):
                out.append(target.attr)
    return out
