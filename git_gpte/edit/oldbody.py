"""A rewritten function's old body, where the answer left it out but plainly meant it.

Asked to add a check to a function of a long module, the 1.5B model often writes only what it
adds: the ``def`` line, the docstring and the new ``if ...: raise`` (more-itertools'
``chunked``; or those and the body's end, its first lines lost: cachetools' ``Cache.__init__``),
or the check followed by a call of the function itself with its own parameters,
the way one calls the code one wraps (cachetools' ``Cache.__init__`` ending in
``Cache.__init__(self, maxsize, getsizeof)``). Placed as written, the first loses everything
the function did and the second never returns; the retries, shown the failing tests, write the
same. In both, the old body is what the answer stands for, and it is put back there. Pure
functions on text.
"""

from __future__ import annotations

import ast
import difflib
from collections.abc import Callable

from .wholefile import Repair, by_qualified_name, own_nodes, spliced_repair

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_Function = ast.FunctionDef | ast.AsyncFunctionDef
# What a repair looks for in a rewritten function (its qualified name, the new version, the
# old one): the span of the new text's lines (0-based, end excluded) to replace with the old
# body, or None.
_Finder = Callable[[str, _Function, _Function], "tuple[int, int] | None"]


def keep_body_after_guards(before: str, after: str, request: str = "") -> Repair | None:
    """``after`` with the old body of each function put back after the checks its new version
    begins with: the new body (past its docstring) is new ``if ...: raise ...`` statements and
    ``assert``s, then the old body's last statements with its first ones lost (all of them,
    in ``chunked``; the two lines keeping ``getsizeof``, in ``Cache.__init__``), none of them
    a check (an old check followed by the same end was replaced, not lost). A function
    that does nothing but refuse its input, or that lost how it began, is never what a
    request to refuse some input asks for."""
    del request  # the shape of the answer says it; the request's words add nothing
    return _repaired(before, after, _guards_only, "the body after the new checks")


def inline_self_calls(before: str, after: str, request: str = "") -> Repair | None:
    """``after`` with a function's call of itself, with its own parameters as they came, put
    back as the old body it stands for: the call is a statement of the function's own body
    (``f(x)``, ``return f(x)``, ``Class.m(self, x)``, ``self.m(x)``), its last one or one
    before which the old body returns nowhere. Such a call would recurse without end."""
    del request
    return _repaired(before, after, _self_call, "the body the call of itself stood for")


def keep_lost_definers(before: str, after: str, request: str = "") -> Repair | None:
    """``after`` with the statements a rewritten function lost that set names it still uses,
    put back where they were: a name the new version uses and never binds, that the old one
    set in a statement of its own body the new one dropped, gets that statement back, with the
    dropped statements beside it that change the same names (``names.append(...)``), right
    before the first statement that reads them (see _lost_definers). Asked to pass a new
    option on in ``main``, the 1.5B model dropped the six lines building ``number_fields``
    and ``date_fields`` and still passed them on, in three answers running, told each time
    which line had set them (csvreport/sort-option). Nothing the answer wrote is taken away."""
    del request  # the answer's own undefined names say it
    try:
        old_tree, new_tree = ast.parse(before), ast.parse(after)
    except (SyntaxError, ValueError):
        return None
    from .pycheck import undefined_names

    undefined = undefined_names(after) or set()
    if not undefined:
        return None
    old_lines, lines = before.split("\n"), after.split("\n")
    old_functions = by_qualified_name(old_tree)
    edits: list[tuple[int, int, list[str]]] = []
    names: set[str] = set()
    for name, new in by_qualified_name(new_tree).items():
        old = old_functions.get(name)
        if not isinstance(new, _FUNCTIONS) or not isinstance(old, _FUNCTIONS):
            continue
        lost = _lost_definers(old, new, undefined)
        indent = _indent(lines[new.body[0].lineno - 1])
        for at, statements in lost:
            pieces = [_old_body(old_lines, [statement], indent) for statement in statements]
            if any(piece is None for piece in pieces):
                continue
            edits.append((at, at, [line for piece in pieces if piece for line in piece]))
            names |= {bound for s in statements for bound in _stored(s)} & undefined
    if not edits:
        return None
    said = ", ".join(sorted(names))
    return spliced_repair(lines, edits, f"put back the lines that set {said}, lost in the rewrite")


def _lost_definers(
    old: _Function, new: _Function, undefined: set[str]
) -> list[tuple[int, list[ast.stmt]]]:
    """Where in ``new`` (a 0-based line to insert at) which of ``old``'s dropped statements go
    back (see keep_lost_definers): right before the first statement of ``new``, from where
    they were dropped on, that reads what they set (after a check the answer wrote there:
    parse_rate's ``seconds = UNITS[unit]`` goes back below its new ``if unit not in UNITS:
    raise ...``, not above it)."""
    bound = {n for node in own_nodes(new) for n in _stored(node)}
    used = {n.id for n in own_nodes(new) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    wanted = (undefined & used) - bound - set(_parameters(new))
    if not wanted:
        return []
    was, now = _statements(old), _statements(new)
    if not now:
        return []
    matcher = difflib.SequenceMatcher(None, _dumps(was), _dumps(now), autojunk=False)
    found: list[tuple[int, list[ast.stmt]]] = []
    for tag, i1, i2, j1, _ in matcher.get_opcodes():
        if tag not in ("delete", "replace"):
            continue
        chosen = _setting(was[i1:i2], wanted)
        if not chosen:
            continue
        set_here = {name for statement in chosen for name in _stored(statement)}
        readers = [s for s in now[j1:] if _read(s) & set_here]
        if not readers:
            continue  # read only above where they were: not lines simply lost
        found.append((readers[0].lineno - 1, chosen))
    return found


def _setting(run: list[ast.stmt], wanted: set[str]) -> list[ast.stmt]:
    """The statements of ``run`` that set a name of ``wanted`` (an assignment) or change what
    it holds (a method called on it, an item set; alone, or under an ``if`` or a loop doing
    nothing else): put back, they do only that."""
    chosen = [s for s in run if _sets(s, wanted) or _changes_only(s, wanted)]
    return chosen if any(_sets(s, wanted) for s in chosen) else []


def _sets(statement: ast.stmt, wanted: set[str]) -> bool:
    if isinstance(statement, ast.Assign):
        targets = statement.targets
    elif isinstance(statement, (ast.AnnAssign, ast.AugAssign)):
        targets = [statement.target]
    else:
        return False
    names = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return bool(names & wanted)


def _changes_only(statement: ast.stmt, wanted: set[str]) -> bool:
    """``x.append(...)``, ``x[k] = v`` for a name of ``wanted``, or an ``if``/``for`` whose
    every statement is one."""
    if isinstance(statement, ast.Expr):
        call = statement.value
        return (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and isinstance(call.func.value, ast.Name)
            and call.func.value.id in wanted
        )
    if isinstance(statement, ast.Assign):
        return all(
            isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id in wanted
            for t in statement.targets
        )
    if isinstance(statement, (ast.If, ast.For)):
        inner = [*statement.body, *statement.orelse]
        return all(_changes_only(s, wanted) for s in inner)
    return False


def _read(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _stored(node: ast.AST) -> set[str]:
    return {
        n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }


def _repaired(before: str, after: str, find: _Finder, what: str) -> Repair | None:
    """``after`` with, for each function ``find`` points at, the statements it names (a span
    of the new body's lines) replaced by the old body, re-indented."""
    try:
        old_tree, new_tree = ast.parse(before), ast.parse(after)
    except (SyntaxError, ValueError):
        return None
    old_lines, lines = before.split("\n"), after.split("\n")
    old_functions = by_qualified_name(old_tree)
    edits: list[tuple[int, int, list[str]]] = []
    names: list[str] = []
    for name, new in by_qualified_name(new_tree).items():
        old = old_functions.get(name)
        if not isinstance(new, _FUNCTIONS) or not isinstance(old, _FUNCTIONS):
            continue
        body = _statements(old)
        found = find(name, new, old) if body else None
        if found is None:
            continue
        start, end = found
        indent = _indent(lines[new.body[0].lineno - 1])
        moved = _old_body(old_lines, body, indent)
        if moved is None:
            continue
        edits.append((start, end, moved))
        names.append(name)
    return spliced_repair(lines, edits, f"put back {what}: {', '.join(sorted(names))}")


def _guards_only(name: str, new: _Function, old: _Function) -> tuple[int, int] | None:
    del name
    body, was = _statements(new), _statements(old)
    checks = 0
    while checks < len(body) and _is_guard(body[checks]):
        checks += 1
    rest = body[checks:]
    if not checks or len(rest) >= len(was):
        return None
    if all(_is_guard(statement) for statement in was):
        return None  # the old one only checked too: nothing was left out
    if _dumps(rest) != _dumps(was[len(was) - len(rest) :]):
        return None  # not the old body's end: a body of its own
    if rest and any(_is_guard(statement) for statement in was[: len(was) - len(rest)]):
        return None  # an old check the new ones took the place of, not lines lost
    if set(_dumps(body[:checks])) & set(_dumps(was)):
        return None
    end = body[checks - 1].end_lineno or body[checks - 1].lineno
    return end, (rest[-1].end_lineno or rest[-1].lineno) if rest else end


def _dumps(statements: list[ast.stmt]) -> list[str]:
    return [ast.dump(statement) for statement in statements]


def _self_call(name: str, new: _Function, old: _Function) -> tuple[int, int] | None:
    if _parameters(new) != _parameters(old):
        return None
    body = _statements(new)
    for at, statement in enumerate(body):
        if not _calls_itself(statement, name, new):
            continue
        last = at == len(body) - 1
        if not last and any(isinstance(n, ast.Return) for n in own_nodes(old)):
            return None  # the old body's returns would end the new one early
        return statement.lineno - 1, statement.end_lineno or statement.lineno
    return None


def _calls_itself(statement: ast.stmt, name: str, function: _Function) -> bool:
    """Whether ``statement`` is ``f(params)`` or ``return f(params)`` for the function
    ``name`` itself (``Class.m(self, ...)`` and ``self.m(...)`` for a method), passing its
    parameters as they came, in order."""
    if not isinstance(statement, (ast.Expr, ast.Return)):
        return False
    call = statement.value
    if not isinstance(call, ast.Call):
        return False
    callee, passed = call.func, _passed(call)
    if passed is None:
        return False
    own = name.rsplit(".", 1)
    if isinstance(callee, ast.Name) and len(own) == 1:
        if callee.id != name or _binds(function, name):
            return False
        return passed == _parameters(function)
    if not isinstance(callee, ast.Attribute) or len(own) != 2 or callee.attr != own[1]:
        return False
    if not isinstance(callee.value, ast.Name):
        return False
    if callee.value.id == own[0]:
        return passed == _parameters(function)
    return callee.value.id == "self" and ["self", *passed] == _parameters(function)


def _binds(function: _Function, name: str) -> bool:
    """Whether the function's own body binds ``name`` (an import, an assignment, a loop's or a
    ``with``'s target, a nested definition): a call of ``name`` there is not a call of itself.
    Seen on jinja: ``def pformat(obj)`` importing ``pformat`` from ``pprint`` and returning
    ``pformat(obj)``, which the old body does too."""
    return any(name in _bound(node) for node in own_nodes(function))


def _bound(node: ast.AST) -> set[str]:
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(alias.asname or alias.name).split(".")[0] for alias in node.names}
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
        return {node.id}
    if isinstance(node, (*_FUNCTIONS, ast.ClassDef)):
        return {node.name}
    return set()


def _passed(call: ast.Call) -> list[str] | None:
    """The names a call passes, in order (``*args`` and ``**kw`` as ``*args``, ``**kw``;
    ``k=k`` as ``k``); None when it passes anything but names so."""
    names: list[str] = []
    for arg in call.args:
        if isinstance(arg, ast.Name):
            names.append(arg.id)
        elif isinstance(arg, ast.Starred) and isinstance(arg.value, ast.Name):
            names.append("*" + arg.value.id)
        else:
            return None
    for keyword in call.keywords:
        if not isinstance(keyword.value, ast.Name):
            return None
        if keyword.arg is None:
            names.append("**" + keyword.value.id)
        elif keyword.arg == keyword.value.id:
            names.append(keyword.arg)
        else:
            return None
    return names


def _parameters(function: _Function) -> list[str]:
    arguments = function.args
    names = [a.arg for a in (*arguments.posonlyargs, *arguments.args)]
    if arguments.vararg is not None:
        names.append("*" + arguments.vararg.arg)
    names += [a.arg for a in arguments.kwonlyargs]
    if arguments.kwarg is not None:
        names.append("**" + arguments.kwarg.arg)
    return names


def _is_guard(statement: ast.stmt) -> bool:
    if isinstance(statement, ast.Assert):
        return True
    return (
        isinstance(statement, ast.If)
        and not statement.orelse
        and isinstance(statement.body[-1], ast.Raise)
    )


def _statements(function: _Function) -> list[ast.stmt]:
    """The function's body past its docstring."""
    has_docstring = ast.get_docstring(function, clean=False) is not None
    return function.body[1:] if has_docstring else function.body


def _old_body(old_lines: list[str], body: list[ast.stmt], indent: str) -> list[str] | None:
    """The old body's lines (comments among them too), re-indented to ``indent``; None when
    that would change a string spanning lines."""
    start, end = body[0].lineno - 1, body[-1].end_lineno or body[-1].lineno
    while start and old_lines[start - 1].lstrip().startswith("#"):
        start -= 1  # the comments that open it
    was = _indent(old_lines[start])
    if was != indent and any(
        isinstance(n, ast.Constant) and isinstance(n.value, str) and n.end_lineno != n.lineno
        for statement in body
        for n in ast.walk(statement)
    ):
        return None
    return [
        indent + line[len(was) :] if line.startswith(was) else line for line in old_lines[start:end]
    ]


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]
