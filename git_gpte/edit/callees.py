"""The signatures of what a block of definitions calls, for a retry that shows only the block.

A focused retry (see pipeline/edit_loop.py) shows the model a function alone, which keeps the
1.5B model on the change; but it then no longer sees what the function may call in other
files. Asked to make ``queries.overdue()`` skip completed tasks, with only ``overdue`` shown,
it wrote ``store.is_completed(task.due)``, a method that does not exist, three times; the
store's own ``list_tasks(self, done=None, ...)``, which the file's other functions call with
``done=False``, was one signature away (bench/solve.py: todo/overdue-open-only). So the retry
also names the functions and methods of the other files sent that the block calls, with their
parameters and docstring summaries. As a list, not as code under the files' names: shown so,
the model wrote bodies of its own for them as if asked to (csvreport/sort-option), and wrote
them back bodiless (settings/env-prefix).
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from .definitions import parse_or_none, top_functions

# A name defined in more places than this says nothing about which one is meant (``get``).
MAX_DEFINERS = 2
# The most signatures shown: a reminder of what exists, not another file.
MAX_SIGNATURES = 8

_Function = ast.FunctionDef | ast.AsyncFunctionDef
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


class Signature(NamedTuple):
    path: str
    name: str  # ``Class.method`` for a method
    parameters: str  # as written, on one line: ``(self, done=None, due_before=None)``
    summary: str  # the docstring's first line, or ""
    lines: frozenset[str]  # its class, ``def`` and docstring lines, stripped (see edit_loop)

    def render(self) -> str:
        said = f": {self.summary}" if self.summary else ""
        return f"- `{self.name}{self.parameters}` in {self.path}{said}"


def called_signatures(
    blocks: Sequence[tuple[str, str]], sources: Mapping[str, str]
) -> list[Signature]:
    """The functions and methods of the files of ``sources`` (path -> Python text) other than
    the blocks' own that the ``blocks`` (path, definitions) call and do not define, in the
    order the blocks first call them. Calls of names defined in more than MAX_DEFINERS places
    are left out, and at most MAX_SIGNATURES are given."""
    called: list[str] = []
    defined: set[str] = set()
    for _, block in blocks:
        tree = parse_or_none(textwrap.dedent(block))
        if tree is None:
            continue
        defined |= {node.name for node in ast.walk(tree) if isinstance(node, _FUNCTIONS)}
        for name in _calls(tree):
            if name not in called:
                called.append(name)
    wanted = [name for name in called if name not in defined]
    if not wanted:
        return []
    own = {path for path, _ in blocks}
    definers: dict[str, list[Signature]] = {}
    for path, text in sources.items():
        tree = parse_or_none(text) if path.endswith(".py") else None
        if tree is None:
            continue
        lines = text.split("\n")
        for owner, function in top_functions(tree):
            if function.name in wanted:
                found = _signature(path, owner, function, lines)
                definers.setdefault(function.name, []).append(found)
    chosen = [
        found
        for name in wanted
        if 0 < len(definers.get(name, ())) <= MAX_DEFINERS
        for found in definers[name]
        if found.path not in own
    ]
    return chosen[:MAX_SIGNATURES]


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


def _signature(
    path: str, owner: ast.ClassDef | None, function: _Function, lines: list[str]
) -> Signature:
    body = function.body[0]
    header = lines[function.lineno - 1 : body.lineno - 1] or [lines[function.lineno - 1]]
    written = " ".join(line.strip() for line in header)
    start = written.find("(")
    end = written.rfind(":")
    parameters = written[start:end] if 0 <= start < end else "()"
    parameters = parameters.replace("( ", "(").replace(" )", ")").replace(", )", ")")
    doc = ast.get_docstring(function)
    summary = doc.strip().split("\n")[0].strip() if doc else ""
    seen = {line.strip() for line in header}
    if owner is not None:
        seen.add(lines[owner.lineno - 1].strip())
    if summary:
        seen |= {summary, f'"""{summary}"""'}
    name = function.name if owner is None else f"{owner.name}.{function.name}"
    return Signature(path, name, parameters, summary, frozenset(seen))
