"""The project's own tests of what changed, shown to the probe as examples of use.

Shown only the signatures of what changed, the 1.5B model guessed how to build and call the
project's objects, and guessed wrong in 8 of 18 tasks (bench/probe_quality.py): a ``Settings``
built with keys the class refuses, an item with the SKU ``'sku'``, a property called as a
method. Such a probe fails the same way before the change and after it and is dropped, so the
result goes unchecked. The project's tests already build and call these objects the way the
code expects. Pure functions: test files in, a few test functions out.
"""

from __future__ import annotations

import ast
import copy as copy_module
from collections.abc import Mapping
from dataclasses import dataclass

from ..edit.definitions import changed_lines

MAX_EXAMPLE_LINES = 40  # ~400 tokens: the prompt stays quick to read for a local model
MAX_EXAMPLES = 2


@dataclass(frozen=True)
class Changed:
    """The names a test of the change would use: the changed functions and classes and the
    methods of those classes (``strong``), and the other top-level names of the changed
    modules (``weak``: they only say a test is about the same module)."""

    strong: frozenset[str]
    weak: frozenset[str]
    touched: frozenset[str] = frozenset()  # the changed definitions themselves


def changed_names(files: Mapping[str, tuple[str, str]]) -> Changed:
    """What :func:`usage_examples` looks for in tests, from Python files (path → (before,
    after)). A public definition that calls a changed one counts as changed: the tests call
    ``Ledger.statement``, not the ``build_statement`` it calls, nor a private helper."""
    strong: set[str] = set()
    weak: set[str] = set()
    touched_all: set[str] = set()
    for path, (before, after) in files.items():
        try:
            tree = ast.parse(after) if path.endswith(".py") else None
        except (SyntaxError, ValueError):
            tree = None
        if tree is None:
            continue
        changed = changed_lines(before, after)
        definitions = [n for n in tree.body if isinstance(n, _DEFINITION)]
        touched = {n.name for n in definitions if _touches(n, changed)}
        touched |= {m.name for n in definitions for m in _methods(n) if _touches(m, changed)}
        touched_all |= touched
        for node in definitions:
            public = not node.name.startswith("_")
            methods = [m.name for m in _methods(node) if not m.name.startswith("__")]
            if _touches(node, changed):  # a sibling's call shows how one gets an object
                strong.update([node.name, *methods] if public else [])
            elif _used_names(node) & touched:
                callers = [m.name for m in _methods(node) if _used_names(m) & touched]
                strong.update([node.name, *callers] if public else [])
            elif public:
                weak.add(node.name)
    return Changed(frozenset(strong), frozenset(weak - strong), frozenset(touched_all))


_DEFINITION = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _methods(node: ast.stmt) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    if not isinstance(node, ast.ClassDef):
        return []
    return [n for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def _touches(node: ast.stmt, changed: set[int]) -> bool:
    return any(node.lineno <= line <= (node.end_lineno or node.lineno) for line in changed)


_Function = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class _Piece:
    """A definition of a test file, as shown: its source and the file's imports it needs."""

    path: str
    node: ast.stmt
    source: str
    imports: tuple[str, ...]


@dataclass(frozen=True)
class _Candidate:
    """A test function with the fixtures it takes from the project, in the order shown."""

    pieces: tuple[_Piece, ...]
    touched: int
    strong: int
    weak: int
    unresolved: int  # parameters no fixture of the project gives (tmp_path, monkeypatch...)

    @property
    def lines(self) -> int:
        return sum(len(p.source.splitlines()) + len(p.imports) + 2 for p in self.pieces)

    def order(self) -> tuple[int, int, int, int, int]:
        """Most of the changed definitions, then of the names near them, then nothing the
        script cannot build, then shortest."""
        return (-self.touched, -self.strong, self.unresolved, -self.weak, self.lines)


def usage_examples(tests: Mapping[str, str], changed: Changed) -> str:
    """Up to MAX_EXAMPLES test functions of ``tests`` (path → text) that use the most of the
    ``changed`` names, with the project's fixtures they take and the imports of what they use,
    within MAX_EXAMPLE_LINES; empty when no test uses a changed name."""
    trees = {path: tree for path in sorted(tests) if (tree := _parse(tests[path])) is not None}
    fixtures = {
        node.name: _piece(path, node, tests[path], trees[path], fixture=True)
        for path, tree in trees.items()
        for node in tree.body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _is_fixture(node)
    }
    helpers = {
        path: {name: _piece(path, node, tests[path], tree) for name, node in _helpers(tree)}
        for path, tree in trees.items()
    }
    candidates = [
        candidate
        for path, tree in trees.items()
        for node in _test_functions(tree)
        if (
            candidate := _candidate(
                _piece(path, node, tests[path], tree), fixtures, helpers, changed
            )
        )
    ]
    chosen: list[_Candidate] = []
    for candidate in sorted(candidates, key=_Candidate.order):
        total = sum(c.lines for c in chosen) + candidate.lines
        tier = bool(candidate.strong) == bool(chosen[0].strong) if chosen else True
        if len(chosen) < MAX_EXAMPLES and total <= MAX_EXAMPLE_LINES and tier:
            chosen.append(candidate)
    return _render(list(dict.fromkeys(p for c in chosen for p in c.pieces)))


def _parse(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):
        return None


def _is_fixture(node: _Function) -> bool:
    return any("fixture" in ast.unparse(d) for d in node.decorator_list)


def _is_test(node: ast.stmt) -> bool:
    return isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith(
        "test"
    )


def _test_functions(tree: ast.Module) -> list[_Function]:
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    statements = [*tree.body, *(s for c in classes for s in c.body)]
    return [
        node
        for node in statements
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.name.startswith("test")
    ]


MAX_HELPER_LINES = 15


def _helpers(tree: ast.Module) -> list[tuple[str, ast.stmt]]:
    """The file's own short classes, functions and constants a test may use (``FakeClock``,
    ``INI = \"\"\"...\"\"\"``), by name; not its tests and fixtures."""
    out: list[tuple[str, ast.stmt]] = []
    for node in tree.body:
        if (node.end_lineno or node.lineno) - node.lineno >= MAX_HELPER_LINES:
            continue
        if isinstance(node, ast.ClassDef) and not node.name.startswith("Test"):
            out.append((node.name, node))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if not node.name.startswith("test") and not _is_fixture(node):
                out.append((node.name, node))
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                out.append((target.id, node))
    return out


def _piece(path: str, node: ast.stmt, text: str, tree: ast.Module, fixture: bool = False) -> _Piece:
    """``node``'s source, dedented; a fixture's without its decorator, as a plain function
    a script can call (pytest refuses a call of a fixture)."""
    decorators = getattr(node, "decorator_list", [])
    first = node.lineno if fixture else min([node.lineno, *(d.lineno for d in decorators)])
    body = text.splitlines()[first - 1 : node.end_lineno]
    indent = len(body[0]) - len(body[0].lstrip())
    source = "\n".join(line[indent:] for line in body)
    shown = [node] if not fixture else [*_arguments(node), *getattr(node, "body", [])]
    if _is_test(node):
        shown = [_calls_only(node)]
        source = ast.unparse(shown[0])
    used = set().union(*(_used_names(n) for n in shown))
    return _Piece(path, node, source, tuple(_imports_of(tree, used)))


def _calls_only(node: ast.stmt) -> ast.stmt:
    """A test with what it asserts left out: ``assert c.area == 6`` becomes ``c.area``, a
    ``pytest.raises`` block its body. Shown the asserts, the model copied the project's tests,
    which pass before the change too, and wrote no probe that stands."""
    copy: ast.stmt = _CallsOnly().visit(copy_module.deepcopy(node))
    return ast.fix_missing_locations(copy)


class _CallsOnly(ast.NodeTransformer):
    def visit_Assert(self, node: ast.Assert) -> ast.stmt | None:
        expr = node.test
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
            expr = expr.operand
        if isinstance(expr, ast.Compare):
            expr = expr.left
        if isinstance(expr, (ast.Name, ast.Constant)):
            return None  # nothing called
        return ast.copy_location(ast.Expr(expr), node)

    def visit_With(self, node: ast.With) -> ast.stmt | list[ast.stmt]:
        self.generic_visit(node)
        raises = any("raises" in ast.unparse(item.context_expr) for item in node.items)
        return node.body if raises else node


def _arguments(node: ast.stmt) -> list[ast.AST]:
    return [node.args] if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else []


def _candidate(
    test: _Piece,
    fixtures: Mapping[str, _Piece],
    helpers: Mapping[str, Mapping[str, _Piece]],
    changed: Changed,
) -> _Candidate | None:
    """``test`` with the fixtures it takes (and theirs, two levels down) and the helpers of
    their files they use; None when it uses none of the changed names."""
    taken: list[_Piece] = []
    unresolved = 0
    wanted = _parameters(test.node)
    for _ in range(3):
        later: list[str] = []
        for name in wanted:
            fixture = fixtures.get(name)
            if fixture is None:
                unresolved += 1
            elif fixture not in taken:
                taken.insert(0, fixture)
                later += _parameters(fixture.node)
        wanted = later
    pieces = [*taken, test]
    used = set().union(*(_used_names(p.node) for p in pieces))
    strong = len(used & changed.strong)
    weak = len(used & changed.weak)
    if not strong and not weak:
        return None
    touched = len(used & changed.touched)
    helping = [
        helper
        for piece in pieces
        for name, helper in helpers[piece.path].items()
        if name in _used_names(piece.node) and helper.node is not piece.node
    ]
    shown = list(dict.fromkeys([*helping, *pieces]))
    return _Candidate(tuple(shown), touched, strong, weak, unresolved)


def _parameters(node: ast.stmt) -> list[str]:
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return []
    return [a.arg for a in node.args.args if a.arg not in ("self", "cls")]


def _used_names(node: ast.AST) -> set[str]:
    used: set[str] = set()
    for child in ast.walk(node):
        if isinstance(child, ast.Name):
            used.add(child.id)
        elif isinstance(child, ast.Attribute):
            used.add(child.attr)
    return used


def _imports_of(tree: ast.Module, used: set[str]) -> list[str]:
    """The file's top-level imports that bind a name ``used``, narrowed to those names."""
    out = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            names = [a for a in node.names if (a.asname or a.name) in used]
            if names:
                out.append(ast.unparse(ast.ImportFrom(node.module, names, node.level)))
        elif isinstance(node, ast.Import):
            names = [a for a in node.names if (a.asname or a.name).split(".")[0] in used]
            if names:
                out.append(ast.unparse(ast.Import(names)))
    return out


def _render(pieces: list[_Piece]) -> str:
    """The pieces by file, each file's under its path and the imports they need."""
    out: list[str] = []
    for path in dict.fromkeys(p.path for p in pieces):
        mine = [p for p in pieces if p.path == path]
        imports = dict.fromkeys(line for p in mine for line in p.imports)
        out.append("\n\n".join(["\n".join([f"# {path}", *imports]), *(p.source for p in mine)]))
    return "\n\n".join(out)
