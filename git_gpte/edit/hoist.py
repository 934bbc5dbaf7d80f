"""A constant the request puts at module level, written inside a function, moved out of it.

Asked to "move the reading speed of 200 words per minute used in reading_time into a
module-level constant WORDS_PER_MINUTE", the 1.5B model wrote ``WORDS_PER_MINUTE = 200`` as
the first line of ``reading_time`` (bench/solve.py: textstats/reading-speed-constant). The
function then works, and the request is not done: nothing else can import or change the
constant. Where the request says where the constant goes, moving the assignment there is
mechanical.
"""

from __future__ import annotations

import ast
import re

from .intent import constant_named

# The request says the constant lives at module level.
_MODULE_LEVEL = re.compile(
    r"\bmodule[- ]level\b|\bat (?:the )?(?:module|top)[- ]level\b|\btop of the (?:module|file)\b",
    re.I,
)


def hoist_constant(request: str, text: str) -> tuple[str, str] | None:
    """``text`` with the one-line, literal assignments of the constant the request puts at
    module level taken out of the functions and methods that make them, and the assignment
    put above the first of their top-level definitions; and the constant's name. None when
    the request asks for no such constant, the module already assigns it at its top level,
    the functions assign it other than once each with the same literal, or anything else
    assigns it."""
    name = constant_named(request)
    if name is None or not _MODULE_LEVEL.search(request):
        return None
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    found = [(top, node) for top in tree.body for node in _local_constants(top, name)]
    stores = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load)
    ]
    if not found or len(stores) != len(found):
        return None
    lines = text.split("\n")
    values = {ast.get_source_segment(text, node.value) for _, node in found}
    if len(values) != 1 or None in values:
        return None
    first = min(_first_line(top) for top, _ in found)
    for _, node in sorted(found, key=lambda pair: pair[1].lineno, reverse=True):
        del lines[node.lineno - 1]
    (value,) = values
    lines[first - 1 : first - 1] = [f"{name} = {value}", "", ""]
    return "\n".join(lines), name


def _local_constants(top: ast.stmt, name: str) -> list[ast.Assign]:
    """The statements ``name = <literal>`` (one line) directly in the body of ``top`` (a
    function) or of its methods (a class)."""
    functions: list[ast.stmt] = [top]
    if isinstance(top, ast.ClassDef):
        functions = list(top.body)
    found = []
    for function in functions:
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in function.body:
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == name
                and _literal(node.value)
                and node.lineno == node.end_lineno
            ):
                found.append(node)
    return found


def _literal(node: ast.expr) -> bool:
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def _first_line(node: ast.stmt) -> int:
    """The first line of a definition: its first decorator's."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return min([node.lineno, *(d.lineno for d in node.decorator_list)])
    return node.lineno
