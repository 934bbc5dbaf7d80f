"""A new handler wired in where its family is: ``cmd_categories`` put in ``COMMANDS`` beside
``cmd_add`` and ``cmd_list``, and its subcommand declared beside theirs.

Asked for "a ``categories`` subcommand", the 1.5B model wrote ``cmd_categories`` and, in three
answers running, never the line registering it, although each retry said where its family is
registered (pycheck's "is new and nothing refers to it" problem): the own task
inventory/categories-command was unsolved in every run. The registration is mechanical when the
family is a table: a dict literal at module level whose values are all the family's functions
and whose keys are their names without the prefix (``"add": cmd_add``, or with ``-`` for ``_``).
Then the new function gets its entry, keyed the same way; and when the table's keys are also
the subcommands an argparse parser declares as statements of their own
(``sub.add_parser("low", help=...)``), the new key is declared after the last of them, with the
function's docstring as its help. Nothing is guessed beyond that: any other shape is left to the
retry, with the problem said.
"""

from __future__ import annotations

import ast

from .offsets import insert_at
from .pycheck import unregistered_functions
from .wholefile import Repair

_Function = ast.FunctionDef | ast.AsyncFunctionDef


def register_new_handlers(before: str, after: str) -> Repair | None:
    """``after`` with each new unregistered function (see pycheck.unregistered_functions) put
    in its family's table, and declared as a subcommand where the family's keys are; None when
    there is none, or its family is not registered in a table of that shape."""
    try:
        old_tree, tree = ast.parse(before), ast.parse(after)
    except SyntaxError:
        return None
    text, said = after, []
    for node, family in unregistered_functions(tree, old_tree):
        registered = _register(text, node.name, family, _docstring(node))
        if registered is not None:
            text, what = registered
            said.append(what)
    if not said:
        return None
    return Repair(text, "registered what was written and never wired in: " + "; ".join(said))


def _register(text: str, name: str, family: list[str], help_text: str) -> tuple[str, str] | None:
    found = _table(ast.parse(text), family)
    if found is None:
        return None
    text, moved = _defined_before(text, found[0], name)
    _, table, target, keyed = _table(ast.parse(text), family) or found
    key = keyed(name)
    last = table.values[-1]
    if key in _keys(table) or (last.end_lineno or 0) >= (table.end_lineno or 0):
        return None  # taken already, or the table is on one line
    lines = text.splitlines(keepends=True)
    row = lines[last.lineno - 1]
    indent = row[: len(row) - len(row.lstrip())]
    quote = _quote(text, table.keys[-1])
    entry = f"{indent}{quote}{key}{quote}: {name},\n"
    end = last.end_lineno or last.lineno
    if not lines[end - 1].rstrip().endswith(","):  # the last entry gets its comma
        at = last.end_col_offset or len(lines[end - 1].encode("utf-8"))
        lines[end - 1] = insert_at(lines[end - 1], at, ",")
    lines.insert(end, entry)
    text = "".join(lines)
    what = f"{name} as {key!r} in {target}" + (f" (moved above {target})" if moved else "")
    declared = _declare(text, _keys(table), key, help_text)
    if declared is not None:
        text, receiver = declared
        what += f", and {receiver}.add_parser({key!r}) beside the others"
    return text, what


def _defined_before(text: str, table: ast.stmt, name: str) -> tuple[str, bool]:
    """``text`` with the function ``name`` moved right above ``table`` when it is defined
    below it: the table is built when the module is imported, and a name defined later is not
    there yet (seen: ``cmd_categories`` placed after ``main``, below ``COMMANDS``). Whether it
    was moved."""
    node = next(
        (n for n in ast.parse(text).body if isinstance(n, _FUNCTIONS) and n.name == name), None
    )
    if node is None:
        return text, False
    start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    if start < table.lineno:
        return text, False
    lines = text.splitlines(keepends=True)
    block = lines[start - 1 : node.end_lineno]
    del lines[start - 1 : node.end_lineno]
    while start - 2 >= 0 and start - 2 < len(lines) and not lines[start - 2].strip():
        del lines[start - 2]
        start -= 1
    lines[table.lineno - 1 : table.lineno - 1] = [*block, "\n", "\n"]
    moved = "".join(lines)
    try:
        ast.parse(moved)
    except SyntaxError:
        return text, False
    return moved, True


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _table(tree: ast.Module, family: list[str]) -> tuple[ast.stmt, ast.Dict, str, _Keyed] | None:
    """The module-level ``NAME = {...}`` whose values are the family's functions, keyed by a
    rule (see _rule), with its statement, its name and the rule; None when there is not
    exactly one."""
    found = []
    for statement in tree.body:
        if not isinstance(statement, ast.Assign) or not isinstance(statement.value, ast.Dict):
            continue
        table = statement.value
        values = [v.id for v in table.values if isinstance(v, ast.Name)]
        if len(values) < 2 or len(values) != len(table.values) or not set(values) <= set(family):
            continue
        keys = _keys(table)
        keyed = _rule(values, keys)
        if keyed is not None and len(keys) == len(table.keys):
            target = ast.unparse(statement.targets[0])
            found.append((statement, table, target, keyed))
    return found[0] if len(found) == 1 else None


class _Keyed:
    """A function's key in its table: its name without the family's prefix, dashed or not."""

    def __init__(self, prefix: str, dashed: bool) -> None:
        self.prefix, self.dashed = prefix, dashed

    def __call__(self, name: str) -> str:
        key = name[len(self.prefix) :]
        return key.replace("_", "-") if self.dashed else key


def _rule(values: list[str], keys: list[str]) -> _Keyed | None:
    prefix = values[0].split("_", 1)[0] + "_"
    for dashed in (False, True):
        keyed = _Keyed(prefix, dashed)
        if [keyed(value) for value in values] == keys:
            return keyed
    return None


def _keys(table: ast.Dict) -> list[str]:
    return [k.value for k in table.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)]


def _quote(text: str, key: ast.expr | None) -> str:
    source = ast.get_source_segment(text, key) if key is not None else None
    return source[0] if source and source[0] in "'\"" else '"'


def _declare(text: str, keys: list[str], key: str, help_text: str) -> tuple[str, str] | None:
    """``text`` with ``RECEIVER.add_parser(key)`` after the last statement declaring one of
    ``keys`` so, when two or more are and ``key`` is not; None otherwise."""
    tree = ast.parse(text)
    declared: list[tuple[ast.stmt, str, ast.Call]] = []
    named: set[str] = set()
    for node in ast.walk(tree):
        found = _add_parser(node)
        if found is not None:
            named.add(found[1])
        if isinstance(node, ast.Expr) and (found := _add_parser(node.value)) is not None:
            call, subcommand, receiver = found
            if subcommand in keys:
                declared.append((node, receiver, call))
    if key in named or len(declared) < 2:
        return None
    statement, receiver, call = max(declared, key=lambda found: found[0].lineno)
    lines = text.splitlines(keepends=True)
    row = lines[statement.lineno - 1]
    indent = row[: len(row) - len(row.lstrip())]
    quote = _quote(text, call.args[0])
    helped = any(k.arg == "help" for k in call.keywords) and help_text
    extra = f", help={quote}{_escaped(help_text, quote)}{quote}" if helped else ""
    line = f"{indent}{receiver}.add_parser({quote}{key}{quote}{extra})\n"
    lines.insert(statement.end_lineno or statement.lineno, line)
    return "".join(lines), receiver


def _add_parser(node: ast.AST) -> tuple[ast.Call, str, str] | None:
    """``RECEIVER.add_parser("name", ...)``: (the call, the name, the receiver's source)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return None
    if node.func.attr != "add_parser" or not node.args:
        return None
    first = node.args[0]
    if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
        return None
    return node, first.value, ast.unparse(node.func.value)


def _docstring(node: _Function) -> str:
    doc = ast.get_docstring(node) or ""
    return doc.strip().splitlines()[0].rstrip(".") if doc.strip() else ""


def _escaped(text: str, quote: str) -> str:
    return text.replace("\\", "\\\\").replace(quote, "\\" + quote)
