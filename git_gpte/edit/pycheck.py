"""Is an edited Python file still working code? Compile it, look for names it uses but never
defines (pyflakes), and for names other files import from it that it no longer defines.

A placed edit is not a correct edit: small models add ``logger.info(...)`` without defining
``logger``, or rename a function in one place. These checks catch that before a commit is
reported as a success, and their findings go back to the model like a refused hunk.

Only what the edit broke counts: a file that did not compile before, or a name that was already
undefined, is the repository's own business. Pure functions on text.
"""

from __future__ import annotations

import ast
import functools
import posixpath
import sys
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass

from .definitions import is_stub
from .nonetest import none_misuses

# pyflakes messages that mean the code fails when that line runs.
_UNDEFINED = ("UndefinedName", "UndefinedLocal", "UndefinedExport")


@dataclass(frozen=True)
class Crash:
    """A call that ran before the edits and raises after them, as a run printed it: the
    function (qualified, ``Class.method``), its arguments (``text=' 1 '``) and the exception's
    last line. A retry names it after the request (see crash_retry_message)."""

    function: str
    arguments: str
    raised: str


@dataclass(frozen=True)
class Problem:
    """Something wrong with the result of the edits, as a value.

    ``kind``: ``syntax``, ``undefined-name``, ``removed-name``, ``endless-call``,
    ``unused-parameter``, ``unregistered``, ``bad-call``, ``placeholder`` (here), and the
    pipeline's own (``check``: the user's check command failed). Rendered for the model, the
    user's output, the run log and commit bodies from the same fields. ``related``: another
    file the fix may be in (the module an import names): a retry shows it too, since a model
    shown only the importer can only undo the half of a rename it did. ``advisory``: retried
    like the others, but a result left with it alone is committed, with exit 1 and the
    problem said (the probe: a check the model wrote, which may be what is wrong).
    ``crash``: the call that failed, when the run said which (a demo's crash).
    """

    kind: str
    path: str
    line: int | None
    text: str
    related: str = ""
    advisory: bool = False
    crash: Crash | None = None

    def render(self) -> str:
        if not self.path:
            return self.text
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.text}"


# The repository's files: every path, and a reader for the text of one (as edited, None when
# it is not there or not text).
Source = tuple[Collection[str], Callable[[str], "str | None"]]


def python_problems(
    before: Mapping[str, str],
    after: Mapping[str, str | None],
    users: Callable[[Iterable[str]], Mapping[str, str]] | None = None,
    source: Source | None = None,
) -> list[Problem]:
    """What the edits broke in Python files.

    ``before``: the base text of edited files that existed; ``after``: the edited files' new
    text (None: deleted). ``users(names)``: the other Python files (path -> text as edited) that
    mention any of ``names``, to find imports of a name a file no longer defines (a rename that
    missed a caller in another module). ``source``: the repository's files, to find imports in
    an edited file of a name its module does not define (a rename made at the callers only).
    None skips that check.
    """
    problems: list[Problem] = []
    if source is not None:
        problems += _missing_imports(before, after, source)
    removed: dict[str, set[str]] = {}
    for path, text in after.items():
        if not path.endswith(".py"):
            continue
        old = before.get(path)
        if old is None and text is not None:
            shadowed = _shadows_stdlib(path)
            if shadowed:
                problems.append(shadowed)
        if text is None:
            if old is not None:
                removed[path] = _top_level_names(old) or set()
            continue
        tree, syntax = _parse(path, text)
        if tree is None:
            if old is None or _parse(path, old)[0] is not None:
                problems.append(syntax)
            continue
        old_tree = _parse(path, old)[0] if old is not None else None
        problems += _new_undefined(path, tree, old_tree)
        problems += _new_endless_calls(path, tree, old_tree)
        problems += _new_bad_log_calls(path, tree, old_tree)
        problems += _new_none_misuses(path, tree, old_tree)
        problems += _new_placeholders(path, tree, old_tree)
        if old_tree is not None:
            problems += _unused_new_parameters(path, tree, old_tree)
            problems += _unregistered_handlers(path, tree, old_tree)
            gone = defined_names(old_tree) - defined_names(tree)
            if gone:
                removed[path] = gone
    if removed and users is not None:
        names = sorted({name for gone in removed.values() for name in gone})
        for path, text in users(names).items():
            if path in removed or not path.endswith(".py"):
                continue
            tree = _parse(path, text)[0]
            if tree is not None:
                problems += _stale_imports(path, tree, removed)
    return problems


def _new_endless_calls(path: str, tree: ast.Module, old_tree: ast.Module | None) -> list[Problem]:
    """Functions whose whole body is a call of themselves (``def slugify(text): return
    slugify(...)``: seen, a small model copying a caller's line into the function it calls)
    that were not so before: each call would recurse until Python gives up."""
    had = _endless(old_tree) if old_tree is not None else {}
    return [
        Problem(
            "endless-call",
            path,
            line,
            f"{name} only calls itself: it would recurse without end (RecursionError)",
        )
        for name, line in sorted(_endless(tree).items(), key=lambda item: item[1])
        if name not in had
    ]


# What a logging call accepts by keyword (Logger._log): any other keyword is a TypeError when
# the line runs. A small model turning print() into logging keeps print's ``file=sys.stderr``
# (seen: ``logger.warning(f"...", file=sys.stderr)`` committed; the project's tests never
# took that branch).
_LOG_METHODS = frozenset(
    {"debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "log"}
)
_LOG_KEYWORDS = frozenset({"exc_info", "stack_info", "stacklevel", "extra"})
_LOGGER_NAMES = frozenset({"logger", "log", "_logger", "_log", "LOGGER", "LOG", "logging"})


def _new_bad_log_calls(path: str, tree: ast.Module, old_tree: ast.Module | None) -> list[Problem]:
    """Logging calls given a keyword logging does not take, more of them than before."""
    had = Counter(key for key, _ in _bad_log_calls(old_tree)) if old_tree is not None else Counter()
    problems = []
    for key, line in _bad_log_calls(tree):
        if had[key] > 0:
            had[key] -= 1
            continue
        call, keyword = key
        text = (
            f"{call}() takes no {keyword!r} argument (print's keywords do not carry over to "
            "logging): a TypeError when this line runs"
        )
        problems.append(Problem("bad-call", path, line, text))
    return problems


def _new_none_misuses(path: str, tree: ast.Module, old_tree: ast.Module | None) -> list[Problem]:
    """Conditions using a name as a value right after finding it None (see
    :mod:`git_gpte.edit.nonetest`), more of them than before."""
    had = Counter(key for key, _ in none_misuses(old_tree)) if old_tree is not None else Counter()
    problems = []
    for key, line in none_misuses(tree):
        if had[key] > 0:
            had[key] -= 1
            continue
        text = (
            f"`{key}` goes on to use a name it has just found to be None: a TypeError "
            "whenever that holds (`is not None` meant?)"
        )
        problems.append(Problem("bad-call", path, line, text))
    return problems


def _new_placeholders(path: str, tree: ast.Module, old_tree: ast.Module | None) -> list[Problem]:
    """Functions and methods the edit added whose body does nothing (only a docstring,
    ``pass`` or ``...``) while the file uses what they return: placeholders, each call giving
    None (seen: ``get_list`` written on a new ``_get_value`` whose body was ``pass`` under
    "This is a placeholder for the actual implementation"; every list came back as the
    default, committed as a success). Decorated ones (an abstract method, an overload) and
    ones called only as a statement (a hook that may do nothing) are left alone."""
    old = _functions(old_tree) if old_tree is not None else {}
    used = _used_results(tree)
    problems = []
    for name, node in _functions(tree).items():
        if name in old or node.decorator_list or not is_stub(node):
            continue
        if node.name not in used:
            continue
        text = (
            f"{name} is new and does nothing (its body is only a placeholder), yet the code "
            f"uses what it returns, always None: write its body"
        )
        problems.append(Problem("placeholder", path, node.lineno, text))
    return problems


def _used_results(tree: ast.Module) -> set[str]:
    """The names of the functions and methods (``f(...)``, ``obj.f(...)``) whose call is used
    as a value somewhere in ``tree``: anything but a call standing alone as a statement."""
    alone = {id(s.value) for s in ast.walk(tree) if isinstance(s, ast.Expr)}
    used = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or id(node) in alone:
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if name:
            used.add(name)
    return used


def _bad_log_calls(tree: ast.Module) -> list[tuple[tuple[str, str], int]]:
    """((``receiver.method``, keyword), line) of each logging call with a keyword it rejects.
    A receiver is a logger by its name or by being assigned ``getLogger(...)``."""
    loggers = set(_LOGGER_NAMES)
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and is_get_logger(node.value):
            loggers |= {d for t in node.targets if (d := _dotted(t))}
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        receiver = _dotted(node.func.value)
        short = receiver.rsplit(".", 1)[-1] if receiver else ""
        if node.func.attr not in _LOG_METHODS or not (receiver in loggers or short in loggers):
            continue
        call = f"{receiver}.{node.func.attr}"
        for keyword in node.keywords:
            if keyword.arg is not None and keyword.arg not in _LOG_KEYWORDS:
                found.append(((call, keyword.arg), node.lineno))
    return found


def is_get_logger(value: ast.expr) -> bool:
    """Whether ``value`` is a call of ``getLogger`` (``logging.getLogger(__name__)``)."""
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name == "getLogger"


def _unused_new_parameters(path: str, tree: ast.Module, old_tree: ast.Module) -> list[Problem]:
    """Parameters the edit added to an existing function that its body never reads: the
    change stops half way (seen: ``sort_by="total"`` added to build_report and passed by the
    CLI, the sorting never written; committed as a success). Not for stubs, ``_`` names or
    ``*args``/``**kwargs``, nor for a new function."""
    before = _functions(old_tree)
    problems = []
    for name, node in _functions(tree).items():
        old = before.get(name)
        if old is None or _is_stub(node):
            continue
        added = _parameters(node) - _parameters(old)
        read = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        for parameter in sorted(added - read):
            text = (
                f"{name} has a new parameter {parameter!r} that it never uses: the change is "
                f"not finished (make {name} act on it)"
            )
            problems.append(Problem("unused-parameter", path, node.lineno, text))
    return problems


def unused_new_loggers(before: Mapping[str, str], after: Mapping[str, str | None]) -> list[Problem]:
    """Module-level loggers the edits added (``logger = logging.getLogger(__name__)``) that
    nothing in their module uses: asked to log a warning instead of printing it, the 1.5B model
    added the logger, removed the print and logged nothing (committed with exit 1, not
    verified: minimark/log-unclosed-fence). Checked after what the request names (a print left
    in place says more)."""
    problems = []
    for path, text in sorted(after.items()):
        old = before.get(path)
        tree = _parse(path, text)[0] if text is not None and path.endswith(".py") else None
        old_tree = _parse(path, old)[0] if old is not None else None
        if tree is not None and old_tree is not None:
            problems += _unused_new_loggers(path, tree, old_tree)
    return problems


def _unused_new_loggers(path: str, tree: ast.Module, old_tree: ast.Module) -> list[Problem]:
    old = {
        t.id
        for n in old_tree.body
        if isinstance(n, ast.Assign)
        for t in n.targets
        if isinstance(t, ast.Name)
    }
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    problems = []
    for node in tree.body:
        if not isinstance(node, ast.Assign) or not is_get_logger(node.value):
            continue
        for target in node.targets:
            if isinstance(target, ast.Name) and target.id not in old and target.id not in used:
                text = (
                    f"{target.id} is a new logger and nothing logs on it: the change is not "
                    f"finished (log what the request asks on {target.id})"
                )
                problems.append(Problem("unused-logger", path, node.lineno, text))
    return problems


def _unregistered_handlers(path: str, tree: ast.Module, old_tree: ast.Module) -> list[Problem]:
    """New top-level functions named like a family of the module's functions that are all
    referred to as values (``cmd_add``, ``cmd_list`` … in a ``COMMANDS`` table, or given to
    ``set_defaults(func=...)``) while the new one is referred to nowhere: written but never
    wired in (seen: ``cmd_categories`` added, the subcommand never registered; committed as a
    success). A family is two or more functions of the base sharing the prefix up to the first
    ``_``; ``test_`` functions are collected by name, and are no such family."""
    problems = []
    for node, family in unregistered_functions(tree, old_tree):
        shown = ", ".join(family[:3]) + (", ..." if len(family) > 3 else "")
        text = (
            f"{node.name} is new and nothing refers to it, while {shown} are each referred "
            f"to where they are registered: the change is not finished (register "
            f"{node.name} the same way)"
        )
        # No line: the fix is where the others are registered, not in this function (a retry
        # shown only the function could not make it).
        problems.append(Problem("unregistered", path, None, text))
    return problems


_FUNCTION = (ast.FunctionDef, ast.AsyncFunctionDef)


def unregistered_functions(
    tree: ast.Module, old_tree: ast.Module
) -> list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, list[str]]]:
    """Each new top-level function referred to nowhere whose family (the base's functions
    sharing its prefix up to the first ``_``, two or more, not ``test_``) are all referred to
    as values: (the function, its family's names, sorted). See _unregistered_handlers."""
    old_functions = {n.name for n in old_tree.body if isinstance(n, _FUNCTION)}
    values = _referred_as_values(tree)
    loaded = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | values
    found = []
    for node in tree.body:
        if not isinstance(node, _FUNCTION) or node.name in old_functions or node.name in loaded:
            continue
        prefix = node.name.split("_", 1)[0] + "_"
        if prefix in ("_", "test_") or not node.name.startswith(prefix):
            continue
        family = sorted(n for n in old_functions if n.startswith(prefix))
        if len(family) >= 2 and all(n in values for n in family):
            found.append((node, family))
    return found


def _referred_as_values(tree: ast.Module) -> set[str]:
    """Names used other than as the function of a call (a table's value, an argument)."""
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    return {
        n.id
        for n in ast.walk(tree)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and id(n) not in called
    }


def _functions(tree: ast.Module) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    """Top-level functions and methods by (qualified) name."""
    found: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
    for node in tree.body:
        members = node.body if isinstance(node, ast.ClassDef) else [node]
        owner = f"{node.name}." if isinstance(node, ast.ClassDef) else ""
        for member in members:
            if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found[owner + member.name] = member
    return found


def _parameters(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    args = node.args
    named = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    return {a.arg for a in named if not a.arg.startswith("_") and a.arg not in ("self", "cls")}


def _is_stub(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A body that is only a docstring, ``...``, ``pass`` or a raise (an interface)."""
    body = [
        s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
    ]
    return all(isinstance(s, (ast.Pass, ast.Raise)) for s in body)


def _endless(tree: ast.Module) -> dict[str, int]:
    """The functions (qualified ``Class.method`` for methods) that only call themselves."""
    found: dict[str, int] = {}

    def visit(body: list[ast.stmt], owner: str | None) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                visit(node.body, node.name)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _calls_only_itself(
                node, owner is not None
            ):
                found[f"{owner}.{node.name}" if owner else node.name] = node.lineno

    visit(tree.body, None)
    return found


def _calls_only_itself(node: ast.FunctionDef | ast.AsyncFunctionDef, method: bool) -> bool:
    body = node.body[1:] if node.body and _is_docstring(node.body[0]) else node.body
    if len(body) != 1 or not isinstance(body[0], (ast.Return, ast.Expr)):
        return False
    call = body[0].value
    if isinstance(call, ast.Await):
        call = call.value
    if not isinstance(call, ast.Call):
        return False
    target = call.func
    if method:
        return (
            isinstance(target, ast.Attribute)
            and target.attr == node.name
            and isinstance(target.value, ast.Name)
            and target.value.id in ("self", "cls")
        )
    return isinstance(target, ast.Name) and target.id == node.name


def _is_docstring(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def _shadows_stdlib(path: str) -> Problem | None:
    """A new top-level module named like a standard-library one (``logging.py``): every
    ``import logging`` beside it would import it instead."""
    name = path[: -len(".py")]
    if "/" in name or name not in getattr(sys, "stdlib_module_names", ()):
        return None
    return Problem(
        "shadows-stdlib",
        path,
        None,
        f"a new file named {path} hides Python's own {name!r} module from every file beside "
        "it (`import " + name + "` would import this file); do not create it",
    )


def _parse(path: str, text: str | None) -> tuple[ast.Module | None, Problem]:
    try:
        return ast.parse(text or "", filename=path), Problem("syntax", path, None, "")
    except SyntaxError as exc:
        message = f"SyntaxError after your edit: {exc.msg}"
        return None, Problem("syntax", path, exc.lineno, message)
    except ValueError as exc:  # NUL bytes
        return None, Problem("syntax", path, None, f"cannot be compiled after your edit: {exc}")


def _undefined(path: str, tree: ast.Module) -> list[tuple[str, str, int]]:
    """(message class, name, line) of each use of an undefined name."""
    from pyflakes.checker import Checker

    found = []
    for message in Checker(tree, filename=path).messages:
        kind = type(message).__name__
        if kind in _UNDEFINED:
            found.append((kind, str(message.message_args[0]), int(message.lineno)))
    return found


def undefined_names(text: str) -> set[str] | None:
    """The names a module uses and never defines (None: it does not parse)."""
    tree = _parse("module.py", text)[0]
    return None if tree is None else {name for _, name, _ in _undefined("module.py", tree)}


def _new_undefined(path: str, tree: ast.Module, old: ast.Module | None) -> list[Problem]:
    now = _undefined(path, tree)
    if not now:
        return []
    already = Counter((kind, name) for kind, name, _ in _undefined(path, old)) if old else Counter()
    problems = []
    for kind, name, line in now:
        if already[(kind, name)]:
            already[(kind, name)] -= 1
            continue
        if kind == "UndefinedExport":
            text = f"__all__ lists {name!r}, which the file does not define"
        elif kind == "UndefinedLocal":
            text = f"local variable {name!r} is used before it is assigned"
        else:
            text = f"undefined name {name!r}: it is used but never defined or imported"
            text += _did_you_mean(name, tree)
        problems.append(Problem("undefined-name", path, line, text))
    return problems


def _did_you_mean(name: str, tree: ast.Module) -> str:
    """A name of the module's top level that ``name`` is a slip of, said as Python's own
    NameError says it: the 1.5B model wrote ``PRIORITY_BY_NAME`` for the module's
    ``_PRIORITY_BY_NAME`` and, told only that the name is undefined, wrote it again twice
    (todo/priority-value-error)."""
    import difflib

    close = difflib.get_close_matches(name, sorted(defined_names(tree) - {name}), n=1, cutoff=0.8)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _top_level_names(text: str) -> set[str] | None:
    try:
        return defined_names(ast.parse(text))
    except (SyntaxError, ValueError):
        return None


def defined_names(tree: ast.Module) -> set[str]:
    """Names a module defines at its top level (what ``from module import name`` can take)."""
    names: set[str] = set()

    def targets(node: ast.AST) -> None:
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, (ast.Tuple, ast.List)):
            for element in node.elts:
                targets(element)

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    targets(target)
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
                targets(node.target)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    names.add((alias.asname or alias.name).split(".")[0])
            elif isinstance(node, (ast.If, ast.Try, ast.With)):
                visit(node.body)
                visit(getattr(node, "orelse", []))
                for handler in getattr(node, "handlers", []):
                    visit(handler.body)
                visit(getattr(node, "finalbody", []))

    visit(tree.body)
    return names


def module_names(path: str) -> set[str]:
    """The dotted names ``path`` may be imported as: ``src/pkg/mod.py`` -> ``src.pkg.mod``,
    ``pkg.mod``, ``mod`` (the import root is not known, so every suffix)."""
    parts = path[: -len(".py")].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return {".".join(parts[i:]) for i in range(len(parts)) if parts[i:]}


def resolve_relative(importer: str, module: str | None, level: int) -> str | None:
    if level == 0:
        return module
    package = posixpath.dirname(importer)
    for _ in range(level - 1):
        package = posixpath.dirname(package)
    dotted = package.replace("/", ".")
    if module:
        dotted = f"{dotted}.{module}" if dotted else module
    return dotted or None


def _stale_imports(
    importer: str, tree: ast.Module, removed: Mapping[str, set[str]]
) -> list[Problem]:
    """Uses in ``importer`` of a name one of the edited modules no longer defines:
    ``from module import name`` and ``import module`` ... ``module.name``."""
    problems = []
    aliases: dict[str, str] = {}  # local name -> edited path, for ``import module [as m]``
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                path = _edited_module(alias.name, removed)
                if path is not None:
                    aliases[alias.asname or alias.name] = path
        elif isinstance(node, ast.ImportFrom):
            target = resolve_relative(importer, node.module, node.level)
            if not target:
                continue
            path = _edited_module(target, removed)
            for alias in node.names:
                if path is not None and alias.name in removed[path]:
                    problems.append(_stale(importer, node.lineno, alias.name, path))
                submodule = _edited_module(f"{target}.{alias.name}", removed)
                if submodule is not None:  # from package import module
                    aliases[alias.asname or alias.name] = submodule
    if aliases:
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute):
                dotted = _dotted(node.value)
                path = aliases.get(dotted) if dotted else None
                if path is not None and node.attr in removed[path]:
                    problems.append(_stale(importer, node.lineno, node.attr, path))
    return problems


def _edited_module(dotted: str, removed: Mapping[str, set[str]]) -> str | None:
    for path in removed:
        if dotted in module_names(path):
            return path
    return None


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def _stale(importer: str, line: int, name: str, path: str) -> Problem:
    return Problem(
        "removed-name",
        importer,
        line,
        f"uses {name!r} from {path}, which no longer defines it after your edit "
        "(update this file's imports and uses of the name)",
        related=path,
    )


def _missing_imports(
    before: Mapping[str, str], after: Mapping[str, str | None], source: Source
) -> list[Problem]:
    """``from module import name`` in an edited file where ``module`` is one of the
    repository's and does not define ``name`` (nor has a submodule of that name); imports that
    were already broken before the edit are not counted."""
    paths, read = source
    problems = []
    stems = functools.cache(lambda: _module_stems(paths))
    for path, text in after.items():
        if text is None or not path.endswith(".py"):
            continue
        tree = _parse(path, text)[0]
        if tree is None:
            continue
        old_tree = _parse(path, before[path])[0] if path in before else None
        already = (
            {(m, n) for m, n, _ in _unresolved(path, old_tree, paths, read)} if old_tree else set()
        )
        for module, name, line in _unresolved(path, tree, paths, read):
            if (module, name) not in already:
                problems.append(
                    Problem(
                        "missing-import",
                        path,
                        line,
                        f"imports {name!r} from {module}, which does not define it "
                        "(define it there, or import the name it has)",
                        related=module,
                    )
                )
        gone = (
            {dotted for dotted, _ in _absent_modules(path, old_tree, paths, stems)}
            if old_tree
            else set()
        )
        for dotted, line in _absent_modules(path, tree, paths, stems):
            if dotted not in gone:
                problems.append(
                    Problem(
                        "missing-import",
                        path,
                        line,
                        f"imports from {dotted}, a module the repository does not have "
                        "(import from the module that defines the names)",
                    )
                )
    return problems


def _absent_modules(
    importer: str, tree: ast.Module, paths: Collection[str], stems: Callable[[], set[str]]
) -> list[tuple[str, int]]:
    """(module as written, line) of each ``from MODULE import ...`` that must be one of the
    repository's modules and is not there: a relative one (``from .hookspec import X``, which
    can only be a file beside the importer), or an absolute one under a package of ours found
    at one import root (``from pluggy.hookspec import X``). Such an import fails whenever the
    file is imported. Imports inside ``try`` are left alone (an optional module, a compiled
    extension built at install); a file or folder of that name with any extension counts as
    there (``stems``: those names, built once for all the edited files)."""
    guarded = {
        id(node)
        for block in ast.walk(tree)
        if isinstance(block, ast.Try)
        for stmt in block.body
        for node in ast.walk(stmt)
    }
    wanted = [
        (tail, "." * node.level + node.module, node.lineno)
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module and id(node) not in guarded
        for tail in [_own_module(importer, node, paths)]
        if tail is not None
    ]
    if not wanted:
        return []
    there = stems()
    return [(written, line) for tail, written, line in wanted if tail not in there]


def _module_stems(paths: Collection[str]) -> set[str]:
    """Every path without its extension, and every folder: what a module name may be."""
    there = {path.rsplit(".", 1)[0] if "." in path.rsplit("/", 1)[-1] else path for path in paths}
    there |= {path.rsplit("/", i)[0] for path in paths for i in range(1, path.count("/") + 1)}
    return there


def _own_module(importer: str, node: ast.ImportFrom, paths: Collection[str]) -> str | None:
    """The path (without extension) ``node``'s module must have in the repository, or None
    when it need not be one of ours."""
    dotted = resolve_relative(importer, node.module, node.level)
    if dotted is None:
        return None
    tail = dotted.replace(".", "/")
    if node.level:
        return tail
    top, _, rest = tail.partition("/")
    if not rest:
        return None
    parts = importer.split("/")[:-1]
    roots = {""} | {"/".join(parts[: i + 1]) + "/" for i in range(len(parts))}
    found = [root for root in roots if f"{root}{top}/__init__.py" in paths]
    return found[0] + tail if len(found) == 1 else None


def unresolved_imports(
    importer: str, text: str, paths: Collection[str], read: Callable[[str], str | None]
) -> list[tuple[str, str, int]]:
    """(module path, name, line) of each name ``importer`` (as ``text``) imports from a
    repository module that does not define it (none when it does not parse)."""
    tree = _parse(importer, text)[0]
    return _unresolved(importer, tree, paths, read) if tree is not None else []


def _unresolved(
    importer: str,
    tree: ast.Module,
    paths: Collection[str],
    read: Callable[[str], str | None],
) -> list[tuple[str, str, int]]:
    """(module path, name, line) of each name imported from a repository module that does not
    define it. A module with a star import or a module-level ``__getattr__`` defines anything."""
    out = []
    cache: dict[str, set[str] | None] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        dotted = resolve_relative(importer, node.module, node.level)
        target = _module_path(importer, dotted, paths, absolute=node.level == 0) if dotted else None
        if target is None:
            continue
        if target not in cache:
            module_tree = _parse(target, read(target))[0]
            cache[target] = _exports(module_tree) if module_tree is not None else None
        names = cache[target]
        if names is None:
            continue
        package = target[: -len("__init__.py")] if target.endswith("__init__.py") else None
        for alias in node.names:
            if alias.name == "*" or alias.name in names:
                continue
            if package is not None and (
                f"{package}{alias.name}.py" in paths
                or f"{package}{alias.name}/__init__.py" in paths
            ):
                continue
            out.append((target, alias.name, node.lineno))
    return out


def _module_path(
    importer: str, dotted: str, paths: Collection[str], *, absolute: bool
) -> str | None:
    """The repository file ``dotted`` names, or None (not one of ours, or unclear).

    A relative name is exact. An absolute one is looked up under each folder above the
    importer (the repository root, ``src/``, a service's own folder: wherever the import root
    is); it must name exactly one file."""
    tail = dotted.replace(".", "/")
    roots = [""]
    if absolute:
        parts = importer.split("/")[:-1]
        roots += ["/".join(parts[: i + 1]) + "/" for i in range(len(parts))]
    found = {
        root + name
        for root in roots
        for name in (f"{tail}.py", f"{tail}/__init__.py")
        if root + name in paths
    }
    return found.pop() if len(found) == 1 else None


def _exports(tree: ast.Module) -> set[str] | None:
    """What ``from module import name`` can take from a module; None when anything goes."""
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            return None
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "__getattr__":
            return None
    return defined_names(tree)


@dataclass(frozen=True)
class AddedImport:
    """A top-level absolute import an edit added that nothing uses (lines 1-based)."""

    first: int
    last: int
    module: str  # the module's top-level name
    # Every name it binds is defined again by a top-level function or class of the file: the
    # import is dead whatever the module (pyflakes: redefinition of unused name).
    shadowed: bool = False
    # ``from module import *``: whatever it binds, it hides every undefined name from the check
    # (pyflakes then says only "may be undefined, or defined from star imports").
    star: bool = False


def _exported(tree: ast.Module) -> set[str]:
    """The names a module's ``__all__`` lists (an import it re-exports is used)."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                value = node.value
                if isinstance(value, (ast.List, ast.Tuple)):
                    names |= {
                        e.value
                        for e in value.elts
                        if isinstance(e, ast.Constant) and isinstance(e.value, str)
                    }
    return names


def added_unused_imports(before: str, after: str) -> list[AddedImport]:
    """Top-level absolute imports the edit added and nothing in the file uses, or whose names
    the file's own top-level definitions replace, and star imports it added (``from typing
    import *``: seen on jinja, added by the 1.5B model to a module that needed nothing of it).
    Candidates for a repair only: whether such a module exists is for the caller to judge (see
    ``edit_loop``)."""
    try:
        old, new = ast.parse(before), ast.parse(after)
    except (SyntaxError, ValueError):
        return []
    had = {ast.dump(node) for node in old.body if isinstance(node, (ast.Import, ast.ImportFrom))}
    used = {n.id for n in ast.walk(new) if isinstance(n, ast.Name)} | _exported(new)
    defined = {
        n.name
        for n in new.body
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    }
    found = []
    for node in new.body:
        if not isinstance(node, (ast.Import, ast.ImportFrom)) or ast.dump(node) in had:
            continue
        if isinstance(node, ast.ImportFrom) and (node.level or not node.module):
            continue
        if isinstance(node, ast.Import) and len(node.names) > 1:
            continue
        bound = [(alias.asname or alias.name).split(".")[0] for alias in node.names]
        module = node.module if isinstance(node, ast.ImportFrom) else node.names[0].name
        last = node.end_lineno or node.lineno
        if "*" in bound:
            found.append(AddedImport(node.lineno, last, (module or "").split(".")[0], star=True))
            continue
        shadowed = all(name in defined for name in bound)
        if not shadowed and any(name in used for name in bound):
            continue
        found.append(AddedImport(node.lineno, last, (module or "").split(".")[0], shadowed))
    return found
