"""Code written into a type stub (``.pyi``) belongs in the module the stub describes.

A stub holds signatures: every body is ``...``. Asked that attrs' ``to_bool`` strip white space
from strings, the 1.5B model was shown ``src/attr/converters.py`` and its stub
``src/attr/converters.pyi`` whole, and wrote the fixed ``to_bool``, body and all, into the stub;
the module itself was left as it was, the project's tests passed (stubs do not run), and the
result was committed with exit 0. What the answer meant is the module's function: the
definitions with code go there, placed by their definitions, and the stub stays as it is.
"""

from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass

from .definitions import is_stub, span

STUB_SUFFIX = ".pyi"


@dataclass(frozen=True)
class StubCode:
    """The definitions with code of a block written for a stub, as a block for the module
    (methods under their class line), and their names as ``Class.method`` or ``function``."""

    block: str
    names: tuple[str, ...]


def module_of_stub(path: str) -> str | None:
    """The module a stub describes (``pkg/mod.pyi`` → ``pkg/mod.py``); None for other paths."""
    return path[: -len(STUB_SUFFIX)] + ".py" if path.endswith(STUB_SUFFIX) else None


def stub_code(block: str, module: str) -> StubCode | None:
    """The functions and methods of ``block`` (written for a stub) whose bodies hold code,
    when ``module`` (the text of the module the stub describes) defines each of them: a
    function at its top level, a method in its class of that name. None when the block holds
    no such code, does not parse, or writes code the module has no place for (then it is not
    the module's function the answer meant)."""
    try:
        tree = ast.parse(textwrap.dedent(block))
        here = ast.parse(module)
    except (SyntaxError, ValueError):
        return None
    lines = textwrap.dedent(block).split("\n")
    functions = {n.name for n in here.body if isinstance(n, _FUNCTIONS)}
    classes = {n.name: _method_names(n) for n in here.body if isinstance(n, ast.ClassDef)}
    parts: list[str] = []
    names: list[str] = []
    for node in tree.body:
        if isinstance(node, _FUNCTIONS) and not is_stub(node):
            if node.name not in functions:
                return None
            parts.append("\n".join(_source(node, lines)))
            names.append(node.name)
        elif isinstance(node, ast.ClassDef):
            coded = [m for m in node.body if isinstance(m, _FUNCTIONS) and not is_stub(m)]
            if not coded:
                continue
            known = classes.get(node.name)
            if known is None or any(m.name not in known for m in coded):
                return None
            methods = ["\n".join(_source(m, lines)) for m in coded]
            parts.append(f"class {node.name}:\n" + "\n\n".join(methods))
            names += [f"{node.name}.{m.name}" for m in coded]
    if not parts:
        return None
    return StubCode("\n\n\n".join(parts) + "\n", tuple(names))


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _method_names(node: ast.ClassDef) -> set[str]:
    return {m.name for m in node.body if isinstance(m, _FUNCTIONS)}


def _source(node: ast.stmt, lines: list[str]) -> list[str]:
    start, end = span(node)
    return lines[start:end]
