"""The signatures of what a block of definitions calls, for a retry that shows only the block.

A focused retry (see pipeline/edit_loop.py) shows the model a function alone, which keeps the
1.5B model on the change; but it then no longer sees what the function may call. Asked to make
``queries.overdue()`` skip completed tasks, with only ``overdue`` shown, it wrote
``store.is_completed(task.due)``, a method that does not exist, three times; the store's own
``list_tasks(self, done=None, ...)``, which the file's other functions call with
``done=False``, was one signature away (bench/solve.py: todo/overdue-open-only). So the retry
also shows, read-only, the ``def`` lines and docstring summaries of the functions and methods
the block calls that the files sent define.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Mapping, Sequence

# A name defined in more places than this says nothing about which one is meant (``get``).
MAX_DEFINERS = 2
# The most signatures shown: a reminder of what exists, not another file.
MAX_SIGNATURES = 8

_Function = ast.FunctionDef | ast.AsyncFunctionDef
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def called_signatures(
    blocks: Sequence[tuple[str, str]], sources: Mapping[str, str]
) -> list[tuple[str, str]]:
    """Per file of ``sources`` (path -> Python text), the signatures of the functions and
    methods the ``blocks`` (path, definitions) call and do not define themselves, in the order
    the blocks first call them; a method under its class's line. Calls of names defined in
    more than MAX_DEFINERS places are left out, and at most MAX_SIGNATURES are given."""
    called: list[str] = []
    defined: set[str] = set()
    for _, block in blocks:
        tree = _parse(textwrap.dedent(block))
        if tree is None:
            continue
        defined |= {node.name for node in ast.walk(tree) if isinstance(node, _FUNCTIONS)}
        for name in _calls(tree):
            if name not in called:
                called.append(name)
    wanted = [name for name in called if name not in defined]
    if not wanted:
        return []
    definers: dict[str, list[tuple[str, ast.ClassDef | None, _Function, list[str]]]] = {}
    for path, text in sources.items():
        tree = _parse(text) if path.endswith(".py") else None
        if tree is None:
            continue
        lines = text.split("\n")
        for owner, function in _functions(tree):
            if function.name in wanted:
                definers.setdefault(function.name, []).append((path, owner, function, lines))
    chosen = [
        found
        for name in wanted
        if 0 < len(definers.get(name, ())) <= MAX_DEFINERS
        for found in definers[name]
    ][:MAX_SIGNATURES]
    return _grouped(chosen)


def _parse(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):
        return None


def _calls(tree: ast.Module) -> list[str]:
    """The names called in ``tree`` (``f(...)``, ``x.f(...)``), in the order of the source."""
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)]
    calls.sort(key=lambda node: (node.lineno, node.col_offset))
    names = []
    for call in calls:
        if isinstance(call.func, ast.Name):
            names.append(call.func.id)
        elif isinstance(call.func, ast.Attribute):
            names.append(call.func.attr)
    return names


def _functions(tree: ast.Module) -> list[tuple[ast.ClassDef | None, _Function]]:
    out: list[tuple[ast.ClassDef | None, _Function]] = []
    for node in tree.body:
        if isinstance(node, _FUNCTIONS):
            out.append((None, node))
        elif isinstance(node, ast.ClassDef):
            out += [(node, member) for member in node.body if isinstance(member, _FUNCTIONS)]
    return out


def _grouped(
    found: list[tuple[str, ast.ClassDef | None, _Function, list[str]]],
) -> list[tuple[str, str]]:
    """One text per file: each function's signature, a class's methods under its line."""
    per_file: dict[str, list[str]] = {}
    owners: dict[str, set[int]] = {}
    for path, owner, function, lines in found:
        out = per_file.setdefault(path, [])
        if owner is not None and id(owner) not in owners.setdefault(path, set()):
            owners[path].add(id(owner))
            out.append(lines[owner.lineno - 1].rstrip())
        out.extend(_signature(function, lines))
    return [(path, "\n".join(text)) for path, text in per_file.items()]


def _signature(function: _Function, lines: list[str]) -> list[str]:
    """The ``def`` line(s) as written and the docstring's first line, if it has one."""
    body = function.body[0]
    header = lines[function.lineno - 1 : body.lineno - 1] or [lines[function.lineno - 1]]
    out = [line.rstrip() for line in header]
    doc = ast.get_docstring(function)
    indent = lines[body.lineno - 1][: body.col_offset]
    summary = doc.strip().split("\n")[0].strip() if doc else ""
    if summary:  # never a body of ``...``: copied back, it would be a placeholder
        out.append(f'{indent}"""{summary}"""')
    return out
