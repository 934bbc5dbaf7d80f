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
import re
import textwrap

from .definitions import span
from .intent import asks_about_wording, code_without_docstrings
from .wholefile import Repair


def changed_definitions(before: str, after: str) -> list[str]:
    """The qualified names (``name``, ``Class.method``) of the functions and methods that both
    texts define and whose source (decorators included) differs, in ``after``'s order; none
    when either does not parse."""
    old, new = function_spans(before), function_spans(after)
    if old is None or new is None:
        return []
    return [name for name, source in new.items() if name in old and old[name][0] != source[0]]


def with_definition_as_was(before: str, after: str, name: str) -> str | None:
    """``after`` with the definition ``name`` (see changed_definitions) as ``before`` has it;
    None when either text does not define it."""
    old, new = function_spans(before), function_spans(after)
    if old is None or new is None or name not in old or name not in new:
        return None
    lines = after.splitlines(keepends=True)
    _, start, end = new[name]
    text = old[name][0]
    if end < len(lines) and not text.endswith("\n"):
        text += "\n"
    return "".join(lines[:start]) + text + "".join(lines[end:])


def keep_unasked_rewording(before: str, after: str, request: str = "") -> Repair | None:
    """``after`` with each function or method put back as it was whose code did not change,
    only its docstring or comments, when the request names neither it nor wording (comments,
    docstrings, typos, ...). Seen on marshmallow: asked that ``get_fixed_timezone`` refuse an
    offset of 24 hours, the 1.5B model also took a line out of ``from_rfc``'s docstring, and
    in another run reflowed it; both went into the commit beside the fix."""
    if asks_about_wording(request):
        return None
    named = set(re.findall(r"[A-Za-z_]\w*", request))
    text, names = after, []
    old = function_spans(before) or {}
    for name in changed_definitions(before, after):
        new = function_spans(text) or {}
        if name.rsplit(".", 1)[-1] in named or name not in new:
            continue
        if _code(old[name][0]) is None or _code(old[name][0]) != _code(new[name][0]):
            continue
        reverted = with_definition_as_was(before, text, name)
        if reverted is not None:
            text = reverted
            names.append(name)
    if not names:
        return None
    return Repair(text, "put back as it was, only its wording changed: " + ", ".join(names))


def _code(source: str) -> str | None:
    """A definition's code without its docstrings; None when it does not parse."""
    try:
        return code_without_docstrings(textwrap.dedent(source))
    except (SyntaxError, ValueError):
        return None


def function_spans(text: str) -> dict[str, tuple[str, int, int]] | None:
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
