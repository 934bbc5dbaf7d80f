"""The probe: a short script the model writes from the request alone, run on the result.

A small model's wrong results mostly pass every check that does not know what was asked: they
compile, define every name and break no test the project had (a boundary left where it was, a
sort after the rows were built: bench/solve.py, docs/benchmarks.md). The request often says
what must hold ("'5/week' raises ValueError", "an item exactly at its level is low"); a script
of asserts written from it, shown only the signatures of what changed (so it states what was
asked, not what the edit does), checks that, statement by statement (probe_steps.py). Pure
functions: the messages, the script read from the reply, and what a run of it says.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass

from ..edit.definitions import changed_lines
from ..edit.rename import bound_names
from ..edit.wholefile import import_stdlib, import_stdlib_names
from .probe_steps import exception_name, step_failures

PROBE_FILE = "gpte_probe.py"
MAX_PROBE_LINES = 80
MAX_PROBE_CHARS = 4000  # a few asserts; a reply running past this is no probe

_SYSTEM = (
    "You write short Python scripts that check that a change to a project does what was asked."
)

_ASK = """\
A change was made to a Python project for the request below. Write a short Python script that \
checks the behaviour the request asks for, using the examples it gives, with plain `assert` \
statements (no test framework). To check that a call raises an exception, call it in a `try` \
block and put `assert False` after the call. Import the project's code as shown below (the \
script runs from the project's top folder); never define the project's functions or classes \
yourself. Check only what the request says. Answer with the \
script in one ```python block and nothing else.

Request:
{request}
{focus}
What the change touched (bodies not shown):
{signatures}
"""


# One worked exchange before the real one: the 1.5B model, asked in words alone, answered about
# one time in three with a function of its own (a copy of the one to check, or a lambda put in
# its place) instead of asserts. The names are made up so as not to be taken for the user's.
_EXAMPLE_REQUEST = (
    "count_words should raise TypeError when it is given None; it counts the words split on "
    "white space, so 'a  b' has 2."
)
_EXAMPLE_SIGNATURES = "# wordy/counting.py: import wordy.counting\ndef count_words(text)"
_EXAMPLE_PROBE = """\
```python
from wordy.counting import count_words

assert count_words("a  b") == 2
try:
    count_words(None)
    assert False, "count_words(None) did not raise TypeError"
except TypeError:
    pass
```"""


_FOCUS = """
Check above all this part of the request, which a change easily misses:
{sentence}
"""


def probe_messages(request: str, signatures: str, focus: str = "") -> list[dict[str, str]]:
    """The conversation asking for a probe of ``request`` (of its sentence ``focus`` above
    all, when given), after one worked example."""
    example = _ASK.format(request=_EXAMPLE_REQUEST, focus="", signatures=_EXAMPLE_SIGNATURES)
    focused = _FOCUS.format(sentence=focus.strip()) if focus else ""
    text = _ASK.format(request=request.strip(), focus=focused, signatures=signatures.rstrip())
    return [
        {"role": "system", "content": _SYSTEM},
        {"role": "user", "content": example},
        {"role": "assistant", "content": _EXAMPLE_PROBE},
        {"role": "user", "content": text},
    ]


# A sentence ends at . ! or ? before white space and a capital, a quote or a backquote; not
# after the abbreviations a request uses before an example.
_SENTENCE_END = re.compile(r"(?<![ (]e\.g\.)(?<![ (]i\.e\.)(?<=[.!?])\s+(?=[A-Z`'\"])")
MAX_FOCUSED = 2
_MIN_FOCUS_WORDS = 5  # "Fix it." and "Make it so." say nothing a script could check


def focus_sentences(request: str) -> list[str]:
    """The sentences after the first of a request of several, each to be probed above all by
    a probe of its own (at most MAX_FOCUSED). Asked for the whole request, the 1.5B model
    checks what its first sentence says and passes over the rest: settings/get-list's
    probes missed "When the key is not set it returns default, or [] if default is None" in 3
    samples of 4, and wrote it in 2 of 2 when asked for that sentence above all (bench/solve.py,
    docs/benchmarks.md). The first sentence is left to the probe of the whole request; it
    often says what is wrong now, which a probe of it alone would assert."""
    sentences = [s.strip() for s in _SENTENCE_END.split(request.strip()) if s.strip()]
    kept = [s for s in sentences[1:] if len(s.split()) >= _MIN_FOCUS_WORDS]
    return kept[:MAX_FOCUSED]


def module_name(path: str) -> str | None:
    """``inventory/store.py`` → ``inventory.store`` (a ``src/`` layout's prefix dropped);
    None for a path that is no importable module."""
    if not path.endswith(".py"):
        return None
    parts = path[: -len(".py")].split("/")
    if parts[0] == "src" and len(parts) > 1:
        parts = parts[1:]
    if parts[-1] == "__init__":
        parts = parts[:-1]
    if not parts or not all(p.isidentifier() for p in parts):
        return None
    return ".".join(parts)


def changed_signatures(files: Mapping[str, tuple[str, str]], request: str = "") -> str:
    """For each Python file (path → (before, after)), the functions, methods and classes whose
    lines the change touched, as signatures under the import that reaches them; a method comes
    with its class and the class's ``__init__``, and with the class's other methods the
    request names. A property, class or static method shows its decorator. Empty when
    nothing importable changed.

    Seen (geometry/clockwise-area): "Polygon.area comes out negative ...", the change in
    ``edges``; shown ``edges`` alone, both probes called ``polygon.area()``, a property, failed
    on their own and were dropped, and a result that did not fix the area went out as a
    success."""
    named = frozenset(re.findall(r"[A-Za-z_]\w*", request))
    out: list[str] = []
    for path, (before, after) in sorted(files.items()):
        module = module_name(path)
        if module is None:
            continue
        lines = _signatures(before, after, named)
        if lines:
            out += [f"# {path}: import {module}", *lines, ""]
    return "\n".join(out)


def _signatures(before: str, after: str, named: frozenset[str] = frozenset()) -> list[str]:
    try:
        tree = ast.parse(after)
    except (SyntaxError, ValueError):
        return []
    changed = changed_lines(before, after)
    out: list[str] = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _touched(node, changed):
            out += _decorated(node)
        elif isinstance(node, ast.ClassDef) and _touched(node, changed):
            out.append(f"class {node.name}:")
            methods = [
                n for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            ]
            shown = [
                m
                for m in methods
                if m.name == "__init__" or _touched(m, changed) or m.name in named
            ]
            out += [f"    {line}" for m in shown for line in _decorated(m)]
            if not shown:
                out.append("    ...")
    return out


def _touched(node: ast.stmt, changed: set[int]) -> bool:
    first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
    return any(first <= line <= (node.end_lineno or node.lineno) for line in changed)


_SHOWN_DECORATORS = frozenset({"property", "classmethod", "staticmethod", "cached_property"})


def _decorated(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """The header, under the decorators that change how it is called (``@property``)."""
    shown = [ast.unparse(d) for d in node.decorator_list]
    return [f"@{d}" for d in shown if d.rsplit(".", 1)[-1] in _SHOWN_DECORATORS] + [_header(node)]


def _header(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    returns = f" -> {ast.unparse(node.returns)}" if node.returns is not None else ""
    kind = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
    return f"{kind} {node.name}({ast.unparse(node.args)}){returns}"


_FENCE = re.compile(r"```[ \t]*(?:python|py|python3)?[ \t]*\n(.*?)```", re.DOTALL)


def probe_enough(text: str) -> tuple[int, str] | None:
    """Where to stop the reply (llm's ``enough``): after its first code block closes, or at
    MAX_PROBE_CHARS."""
    match = _FENCE.search(text)
    if match is not None:
        return match.end(), "the probe's code block is complete"
    if len(text) > MAX_PROBE_CHARS:
        return MAX_PROBE_CHARS, f"a probe is short: stopped it at {MAX_PROBE_CHARS:,} characters"
    return None


def probe_script(reply: str, signatures: str = "", local: Collection[str] = ()) -> str | None:
    """The script in the reply's first code block, when it is Python that parses, asserts
    something, is short and does not define a class or function of ``signatures`` itself (it
    would check its own copy); None otherwise (no probe is better than a broken one). The
    standard modules and names it uses and never imports are imported (``time.sleep`` with
    no ``import time``: seen failing probes on their own), as in an edit (see
    :func:`~git_gpte.edit.wholefile.import_stdlib`; ``local``: the repository's top-level
    module names, which such an import would find first)."""
    match = _FENCE.search(reply)
    if match is None:
        return None
    script = match.group(1).strip("\n") + "\n"
    if len(script.splitlines()) > MAX_PROBE_LINES:
        return None
    try:
        tree = ast.parse(script)
    except (SyntaxError, ValueError):
        return None
    if _plain_raises(tree):  # the script no longer needs pytest, which may not be installed
        script = ast.unparse(tree) + "\n"
        tree = ast.parse(script)  # its lines as now written
    missing = _unimported(tree, signatures)
    if missing:  # `import todo.models`, then `parse_priority(...)`: the import it meant
        imports = [f"from {m} import {', '.join(names)}\n" for m, names in missing]
        future = [s.end_lineno or 0 for s in tree.body if _is_future(s)]
        lines = script.splitlines(keepends=True)
        at = max(future, default=0)
        script = "".join(lines[:at] + imports + lines[at:])
    if not any(isinstance(node, ast.Assert) for node in ast.walk(tree)):
        return None
    theirs = set(re.findall(r"(?:class|def) (\w+)", signatures)) - {"__init__"}
    defined = {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
    }
    replaced = {_target_name(t) for node in ast.walk(tree) for t in _targets(node)}
    if theirs & (defined | replaced):  # it would check its own copy (or a lambda in its place)
        return None
    uncalled = _uncalled_tests(tree)
    if uncalled:  # test functions written as for pytest, never called: the script calls them
        script += "\n\n" + "".join(f"{name}()\n" for name in uncalled)
    for repair in (import_stdlib, import_stdlib_names):
        imported = repair(None, script, local)
        script = imported.text if imported is not None else script
    return script


def _unimported(tree: ast.Module, signatures: str) -> list[tuple[str, list[str]]]:
    """The changed modules' top-level names (from ``signatures``) the script uses bare without
    binding them anywhere, by module: a small model imports the module and then calls its
    function by name, or imports nothing."""
    names: dict[str, str] = {}
    module = ""
    for line in signatures.splitlines():
        if line.startswith("# ") and ": import " in line:
            module = line.rsplit(": import ", 1)[1].strip()
        elif module and (match := re.match(r"(?:async def|def|class) (\w+)", line)):
            names.setdefault(match.group(1), module)
    bound = bound_names(tree)
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and _loads(n)}
    missing: dict[str, list[str]] = {}
    for name in sorted(used - bound):
        if name in names:
            missing.setdefault(names[name], []).append(name)
    return sorted(missing.items())


def _targets(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, ast.Assign):
        return node.targets
    if isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        return [node.target]
    return []


def _target_name(target: ast.expr) -> str:
    """``f`` of ``f = ...`` and of ``module.f = ...``."""
    if isinstance(target, ast.Name):
        return target.id
    return target.attr if isinstance(target, ast.Attribute) else ""


def _is_future(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.ImportFrom) and statement.module == "__future__"


def _loads(node: ast.Name) -> bool:
    return isinstance(node.ctx, ast.Load)


def _plain_raises(tree: ast.Module) -> bool:
    """Rewrite ``with pytest.raises(E): body`` as ``try: body`` / ``except E: pass`` /
    ``else: assert False`` in place, and drop ``import pytest`` when nothing else uses it;
    whether anything changed. Small models write the pytest idiom however they are asked
    (without importing it, even), and the probe runs with whatever interpreter is on PATH."""
    rewrite = _PlainRaises()
    rewrite.visit(tree)
    if not rewrite.changed:
        return False
    if not any(isinstance(n, ast.Name) and n.id == "pytest" for n in ast.walk(tree)):
        tree.body = [s for s in tree.body if not _imports_pytest(s)]
    ast.fix_missing_locations(tree)
    return True


class _PlainRaises(ast.NodeTransformer):
    changed = False

    def visit_With(self, node: ast.With) -> ast.stmt:
        self.generic_visit(node)
        exception = _raised(node.items[0]) if len(node.items) == 1 else None
        if exception is None:
            return node
        self.changed = True
        fails = ast.Assert(test=ast.Constant(False), msg=ast.Constant("did not raise"))
        handler = ast.ExceptHandler(type=exception, name=None, body=[ast.Pass()])
        return ast.copy_location(
            ast.Try(body=node.body, handlers=[handler], orelse=[fails], finalbody=[]), node
        )


def _raised(item: ast.withitem) -> ast.expr | None:
    """E of ``pytest.raises(E)`` (any keywords, no ``as`` name), else None."""
    call = item.context_expr
    if item.optional_vars is not None or not isinstance(call, ast.Call) or len(call.args) != 1:
        return None
    pytest_raises = ast.unparse(call.func) == "pytest.raises"
    return call.args[0] if pytest_raises else None


def _imports_pytest(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Import) and [a.name for a in statement.names] == ["pytest"]


def _uncalled_tests(tree: ast.Module) -> list[str]:
    defined = [
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test") and not node.args.args
    ]
    called = {
        node.func.id
        for statement in tree.body
        if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        for node in ast.walk(statement)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    }
    return [name for name in defined if name not in called]


@dataclass(frozen=True)
class Verdict:
    """What a run of the probe says: ``passed``; else whether the failure judges the code
    (``judges``: an assertion of the probe failed, or the project's code raised) or the probe
    itself (it misused the code: a name it made up, a call with wrong arguments), with the
    error's line and the probe's line it came from (``where``)."""

    passed: bool
    judges: bool
    error: str = ""
    where: int | None = None

    def as_before(self, base: Verdict | None) -> bool:
        """Whether an exception failed the run where and as it failed on the base: the probe
        then exercised nothing the change touched (asserting is_low of an item it never
        added raises KeyError before the change and after it), so it cannot judge. A failed
        assertion still judges: what was asked is still not so."""
        return (
            base is not None
            and not self.error.startswith("AssertionError")
            and (self.error, self.where) == (base.error, base.where)
        )


def step_verdicts(exit_code: int | None, output: str) -> dict[int, Verdict] | None:
    """Read a run of the probe's :func:`~git_gpte.prompts.probe_steps.harness`: the verdict
    of each step that failed, by step number; None when the run did not get to its end."""
    failed = step_failures(output) if exit_code == 0 else None
    if failed is None:
        return None
    return {step: _failure(frames, error) for step, (frames, error) in failed.items()}


def _failure(frames: list[tuple[str, int]], error: str) -> Verdict:
    """The verdict of a failure: its traceback's frames (file, line) and its error line."""
    frames = [(path.replace("\\", "/"), line) for path, line in frames]
    if not frames:
        return Verdict(False, False, error)
    mine = [line for path, line in frames if path.rsplit("/", 1)[-1] == PROBE_FILE]
    where = mine[-1] if mine else None
    if exception_name(error) == "AssertionError":
        return Verdict(False, True, error, where)
    in_probe = frames[-1][0].rsplit("/", 1)[-1] == PROBE_FILE
    # An exception out of the project's code is its answer to what the probe asked; one the
    # probe's own line raised (NameError, ImportError, a TypeError of the call) is the probe's.
    return Verdict(False, not in_probe, error, where)
