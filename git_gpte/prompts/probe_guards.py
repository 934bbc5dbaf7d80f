"""A probe's "did not raise" against a check the change put at a function's door.

Asked to make ``NAME`` raise ``E`` when one of its inputs is so, the 1.5B model writes the
check right far more often than it writes a call that meets it. Seen on real projects (stop
62, docs/benchmarks.md): ``slugify('', delim='_')`` expected to raise for an empty ``delim``,
``ensure_text_type(b'a')`` for "neither str nor bytes", ``take(2, [1, 2, 3])`` for a negative
``n``; each right result went out with exit 1 after two retries that could not change
anything. Asked yes or no whether such a statement fits the request, the same model answered
yes to all four wrong ones and no to one right one (3 of 8 right), so it cannot vet its own.

What can be read from the code instead: the result raises ``E`` in a new *guard* of the
function the statement calls, a ``raise E`` reached from the function's top only through
``if`` tests on its parameters, with nothing before it that returns. Such a check runs on
every call, so a call it lets through is one whose inputs it does not take for what the
request names: the probe and the change read the request apart, and the probe is not the one
to trust. A check put after a ``return``, in another function, or under a test of something
other than the inputs is not a guard, and the statement judges as before (cachetools: the
check written into a module-level ``__init__`` of its own, which ``Cache(-1)`` never ran).
Pure functions: the sources and the statement in, names out.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from typing import NamedTuple

from ..edit.definitions import parameter_names

# What calling a class runs first: a guard there is a guard of the class's name.
_CONSTRUCTORS = frozenset({"__init__", "__new__", "__post_init__"})


def new_guards(files: Mapping[str, tuple[str, str]]) -> set[tuple[str, str]]:
    """(name a call uses, exception) for each guard the after-text of a file has in a
    function and its before-text lacks there; ``files`` maps a path to (before, after)."""
    found: set[tuple[str, str]] = set()
    for before, after in files.values():
        old = {where for _, _, where in _guards(before)}
        found |= {(name, error) for name, error, where in _guards(after) if where not in old}
    return found


class Expected(NamedTuple):
    """What a statement expects to raise (``error``), from which calls (``called``, by name;
    ``first``, the first of them as written)."""

    called: set[str]
    error: str
    first: str


def expected_raise(statement: str) -> Expected | None:
    """What a statement expecting a call to raise expects: ``try: CALL ... except E: pass``
    (how the probe writes ``pytest.raises`` too); None for any other statement."""
    try:
        tree = ast.parse(statement)
    except SyntaxError:
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Try):
        return None
    node = tree.body[0]
    caught = [_last_name(h.type) for h in node.handlers if h.type is not None]
    if len(caught) != 1 or not caught[0]:
        return None
    calls = [call for part in node.body for call in ast.walk(part) if isinstance(call, ast.Call)]
    called = {_last_name(call.func) for call in calls} - {""}
    return Expected(called, caught[0], ast.unparse(calls[0])) if called else None


def _guards(source: str) -> Iterator[tuple[str, str, tuple[str, str, str]]]:
    """(name a call uses, exception, where) for each guard of the source's functions and its
    classes' methods; ``where`` names the function, the exception and the tests leading to it,
    so that a guard the base already had is known again."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield from _of_function(node, node.name, {node.name})
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    names = {item.name} | ({node.name} if item.name in _CONSTRUCTORS else set())
                    yield from _of_function(item, f"{node.name}.{item.name}", names)


def _of_function(
    function: ast.FunctionDef | ast.AsyncFunctionDef, qualname: str, names: set[str]
) -> Iterator[tuple[str, str, tuple[str, str, str]]]:
    parameters = parameter_names(function)
    for statement in function.body:
        for error, tests in _raised_behind_tests(statement, ()):
            if any(_names_one_of(test, parameters) for test in tests):
                where = (qualname, error, " / ".join(ast.unparse(t) for t in tests))
                yield from ((name, error, where) for name in names)
        if _may_leave(statement):
            return  # what comes after a return runs only for some calls


def _raised_behind_tests(
    statement: ast.stmt, tests: tuple[ast.expr, ...]
) -> Iterator[tuple[str, tuple[ast.expr, ...]]]:
    """(exception, the if tests on the way) for each ``raise E`` reached through ifs alone."""
    if isinstance(statement, ast.Raise) and statement.exc is not None and tests:
        exc = statement.exc.func if isinstance(statement.exc, ast.Call) else statement.exc
        if _last_name(exc):
            yield _last_name(exc), tests
    elif isinstance(statement, ast.If):
        for inner in statement.body:
            yield from _raised_behind_tests(inner, (*tests, statement.test))
            if _may_leave(inner):
                break
        negated = ast.UnaryOp(op=ast.Not(), operand=statement.test)
        for inner in statement.orelse:
            yield from _raised_behind_tests(inner, (*tests, negated))
            if _may_leave(inner):
                break


def _may_leave(statement: ast.stmt) -> bool:
    """Whether the statement may return or yield (a nested definition's do not count)."""
    stack: list[ast.AST] = [statement]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom)):
            return True
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(node))
    return False


def _names_one_of(test: ast.expr, parameters: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in parameters for n in ast.walk(test))


def _last_name(node: ast.expr) -> str:
    """``ValueError`` of ``ValueError`` and ``errors.ValueError``; ``decimal`` of
    ``filesize.decimal``; empty for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""
