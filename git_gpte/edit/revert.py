"""One changed definition of an edited file put back as it was.

A small model asked to change one method often rewrites its neighbours too, and one of them
wrong: asked for a positive ``Polygon.area``, the 1.5B model wrote a right ``area`` and, in
the same block, made ``centroid`` a property, which broke the tests calling ``centroid()``;
the retries then mended the tests' complaint and lost the fix. The edit loop tries the result
with such a definition as it was (see :meth:`git_gpte.pipeline.edit_loop._Loop.trim_collateral`);
this module only builds the texts.
"""

from __future__ import annotations

import ast

from .definitions import span


def changed_definitions(before: str, after: str) -> list[str]:
    """The qualified names (``name``, ``Class.method``) of the functions and methods that both
    texts define and whose source (decorators included) differs, in ``after``'s order; none
    when either does not parse."""
    old, new = _definitions(before), _definitions(after)
    if old is None or new is None:
        return []
    return [name for name, source in new.items() if name in old and old[name][0] != source[0]]


def with_definition_as_was(before: str, after: str, name: str) -> str | None:
    """``after`` with the definition ``name`` (see changed_definitions) as ``before`` has it;
    None when either text does not define it."""
    old, new = _definitions(before), _definitions(after)
    if old is None or new is None or name not in old or name not in new:
        return None
    lines = after.splitlines(keepends=True)
    _, start, end = new[name]
    text = old[name][0]
    if end < len(lines) and not text.endswith("\n"):
        text += "\n"
    return "".join(lines[:start]) + text + "".join(lines[end:])


def _definitions(text: str) -> dict[str, tuple[str, int, int]] | None:
    """Each top-level function and method of a top-level class: its source and its span of
    lines (0-based start, end excluded), from its first decorator."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    lines = text.splitlines(keepends=True)
    found: dict[str, tuple[str, int, int]] = {}

    def add(name: str, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        start, end = span(node)
        found.setdefault(name, ("".join(lines[start:end]), start, end))

    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            add(node.name, node)
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    add(f"{node.name}.{item.name}", item)
    return found
