"""A probe run statement by statement, so that each of its checks stands or falls alone.

Run as one script, a probe's first failure decides. Seen (bench/probe_quality.py): a probe
asserting both that ``parse_number('abc') is None`` (what the code did) and that it raises
ValueError (what was asked); the right result failed the first assert, and the probe raised a
false alarm though its checks of the request held. Rewritten by :func:`harness`, every
top-level statement but a definition is tried on its own and its failure reported on one line
of the output. A statement that fails on the base checks something the change must do; one
that passes there says nothing of the change, and may assert the very behaviour the request
changes, so it is not held against the result. Pure functions: the script in, the script to
run and what its run said out.
"""

from __future__ import annotations

import ast
import copy
import json
import re

STEP_MARK = "@@gpte-probe-step "
DONE_MARK = "@@gpte-probe-done"
MAX_ERROR_CHARS = 300

# Names a probe is unlikely to use; the prelude reports a step's failure as one JSON line:
# its number, the frames of its traceback and the exception's last line.
_PRELUDE = f"""\
import json as _gpte_json, sys as _gpte_sys, traceback as _gpte_traceback


def _gpte_failed(_gpte_step, _gpte_error):
    _gpte_frames = [
        [_f.filename, _f.lineno] for _f in _gpte_traceback.extract_tb(_gpte_error.__traceback__)
    ]
    _gpte_last = _gpte_traceback.format_exception_only(type(_gpte_error), _gpte_error)
    _gpte_text = _gpte_last[-1].strip()[:{MAX_ERROR_CHARS}]
    _gpte_line = {{"step": _gpte_step, "frames": _gpte_frames, "error": _gpte_text}}
    _gpte_sys.stdout.flush()
    print({STEP_MARK!r} + _gpte_json.dumps(_gpte_line), flush=True)
"""

_KEPT = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def steps(script: str) -> list[str]:
    """The source of each statement :func:`harness` tries on its own, by step number."""
    return [ast.unparse(s) for s in _statements(ast.parse(script)) if not _kept(s)]


def _statements(tree: ast.Module) -> list[ast.stmt]:
    """The module's statements, the body of an ``if __name__ == "__main__":`` in its place
    (a probe written as tests calls each there)."""
    out: list[ast.stmt] = []
    for statement in tree.body:
        if (
            isinstance(statement, ast.If)
            and not statement.orelse
            and "__name__" in ast.unparse(statement.test)
        ):
            out += statement.body
        else:
            out.append(statement)
    return out


def harness(script: str) -> str:
    """``script`` with each top-level statement but definitions (and ``__future__``
    imports) tried on its own, a failure reported and the next statement run; a last line
    says the run got to its end."""
    tree = ast.parse(script)
    future = [s for s in tree.body if _is_future(s)]
    body: list[ast.stmt] = []
    step = 0
    for statement in _statements(tree):
        if _is_future(statement):
            continue
        if _kept(statement):
            body.append(statement)
            continue
        body.append(_tried(statement, step))
        step += 1
    done = ast.parse(f"print({DONE_MARK!r}, flush=True)").body
    module = ast.Module(body=[*future, *ast.parse(_PRELUDE).body, *body, *done], type_ignores=[])
    return ast.unparse(ast.fix_missing_locations(module)) + "\n"


def _kept(statement: ast.stmt) -> bool:
    """Definitions run as they are, but not decorated ones: a decorator is a call, and may be
    the one the request changes (``@rate_limited(limiter, raise_on_limit=False)`` raised
    TypeError on the base, and the probe never got to its end)."""
    if isinstance(statement, _KEPT):
        return not statement.decorator_list
    return _is_future(statement)


def _is_future(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.ImportFrom) and statement.module == "__future__"


def _tried(statement: ast.stmt, step: int) -> ast.stmt:
    report = ast.parse(f"_gpte_failed({step}, _gpte_error)").body
    handler = ast.ExceptHandler(type=ast.Name("BaseException"), name="_gpte_error", body=report)
    return ast.Try(body=[statement], handlers=[handler], orelse=[], finalbody=[])


def step_failures(output: str) -> dict[int, tuple[list[tuple[str, int]], str]] | None:
    """Each failed step's traceback frames (file, line) and error, by step number, from the
    output of a run of :func:`harness`'s script; None when the run did not get to its end
    (killed, timed out, a definition that raised)."""
    lines = output.splitlines()
    if DONE_MARK not in (line.strip() for line in lines):
        return None
    failed: dict[int, tuple[list[tuple[str, int]], str]] = {}
    for line in lines:
        if not line.startswith(STEP_MARK):
            continue
        try:
            data = json.loads(line[len(STEP_MARK) :])
            frames = [(str(path), int(number)) for path, number in data["frames"]]
            failed[int(data["step"])] = (frames, str(data["error"]))
        except (ValueError, KeyError, TypeError):
            continue
    return failed


# A quoted example of the request: 'True', "YES", `5/week`; not the apostrophe of "it's".
_QUOTED = re.compile(r"""(?<!\w)(['"`])([^'"`\n]{1,60})\1(?!\w)""")


def quoted(request: str) -> frozenset[str]:
    """The examples the request quotes; those of a call it quotes too
    (``Ledger.statement(id, '2024-01-01', '2024-01-31')``)."""
    return frozenset(m.group(2) for m in _QUOTED.finditer(request))


def uses_example(statement: str, examples: frozenset[str]) -> bool:
    """Whether the statement's source uses, as a string, an example the request quotes.

    A statement that raises the same exception after the change as before it is taken for one
    that misuses the code (an item it never added), and dropped. Not when it calls the code
    with the request's own example: then the change left what was asked as it was (seen:
    settings/bool-case, ``parse_bool('True')`` still raising ValueError on a result that had
    only rewritten the function's ``if``s, committed as a success)."""
    try:
        tree = ast.parse(statement)
    except (SyntaxError, ValueError):
        return False
    strings = {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }
    return bool(strings & examples)


def guesses_wording(statement: str) -> bool:
    """Whether the statement compares a docstring (``f.__doc__``, ``inspect.getdoc(f)``) for
    equality with a string of its own: a guess at the words, which no request for a docstring
    fixes. Seen on rich: asked for a docstring explaining ``pick_unit_and_suffix``'s arguments,
    the 1.5B model probed ``pick_unit_and_suffix.__doc__ == "Pick a unit and suffix for the
    given size."``, and a right docstring was committed with exit 1."""
    try:
        tree = ast.parse(statement)
    except (SyntaxError, ValueError):
        return False
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare) or not all(
            isinstance(op, (ast.Eq, ast.NotEq)) for op in node.ops
        ):
            continue
        sides = [node.left, *node.comparators]
        if any(_is_docstring_of(side) for side in sides) and any(
            isinstance(side, ast.Constant) and isinstance(side.value, str) for side in sides
        ):
            return True
    return False


def _is_docstring_of(node: ast.expr) -> bool:
    if isinstance(node, ast.Attribute):
        return node.attr == "__doc__"
    if isinstance(node, ast.Call):
        callee = node.func
        name = callee.attr if isinstance(callee, ast.Attribute) else getattr(callee, "id", "")
        return name == "getdoc" or (
            isinstance(callee, ast.Attribute) and _is_docstring_of(callee.value)
        )
    return False


# An exception the request names (``KeyError``, ``ZeroDivisionError``, ``json.JSONDecodeError``)
# and one it asks the code to raise ("should raise ValueError", "make it raise a TypeError").
# At most 16 dotted parts before the name: unbounded, each word of "a.a.a...." was a start
# scanning the rest (time growing with the square of the request).
_EXCEPTION = re.compile(r"\b(?:[A-Za-z_]\w*\.){0,16}([A-Z]\w*(?:Error|Exception))\b")
_RAISE = re.compile(r"\b(?i:raise)\s+(?:an?\s+)?(?:[A-Za-z_]\w*\.)*([A-Z]\w*(?:Error|Exception))\b")


def stopped_exceptions(request: str) -> frozenset[str]:
    """The exceptions the request names and does not ask to be raised: what the code raises
    now and must stop raising ("crashes with ZeroDivisionError", "raises KeyError when the
    unit is unknown; make it raise ValueError instead" gives KeyError)."""
    named = {m.group(1) for m in _EXCEPTION.finditer(request)}
    return frozenset(named - {m.group(1) for m in _RAISE.finditer(request)})


def named_exceptions(request: str) -> frozenset[str]:
    """Every exception the request names, raised or stopped."""
    return frozenset(m.group(1) for m in _EXCEPTION.finditer(request))


# What code raises when it is wrong rather than by design: a request asks for ValueError or a
# project's own exception, not for these (unless it names one: then it is not counted).
CRASHES = frozenset(
    {
        "AttributeError", "IndexError", "KeyError", "NameError", "RecursionError",
        "TypeError", "UnboundLocalError", "ZeroDivisionError",
    }
)  # fmt: skip


def is_new_crash(error: str, named: frozenset[str]) -> bool:
    """Whether a probe statement that ran cleanly on the base and now fails by ``error`` (out
    of the project's code) shows a crash the change brought in.

    Seen (Exercism's allergies): ``Allergies(34)`` ran on the base's stub and raised
    AttributeError in the result's ``__init__`` (it assigned to a property), so every later
    statement failed on a name the first never bound, which is the probe's own failure; only
    the statements failing on the base judged, and the result was committed as a success."""
    return exception_name(error) in CRASHES - named


def exception_name(error: str) -> str:
    """The exception's class name in an error line (``json.decoder.JSONDecodeError: ...``
    gives ``JSONDecodeError``)."""
    return error.split(":", 1)[0].strip().rsplit(".", 1)[-1]


def raises_one_of(error: str, names: frozenset[str]) -> bool:
    """Whether a failure's error line (``KeyError: 'zz'``) is an exception of ``names``."""
    return exception_name(error) in names


BLANK = " \n"


def with_blank_calls(script: str) -> str:
    """``script`` with, after each assertion that passes an empty string to a call, that call
    again with a blank string (``BLANK``) as a statement of its own.

    Seen (textstats/empty-text, "crashes with ZeroDivisionError ... return 0.0 when the text
    has no words"): a result guarding ``if text`` passed every probe of ``""``, and still
    crashed on a text of spaces, committed as a success. A blank text is no different input to
    most code that empty text breaks, and only the call is repeated, not the assertion: its
    value for a blank string may rightly differ, its crash may not. Used only when the request
    names an exception to stop (see :func:`stopped_exceptions`)."""
    tree = ast.parse(script)
    body: list[ast.stmt] = []
    for statement in tree.body:
        body.append(statement)
        if not isinstance(statement, ast.Assert):
            continue
        for call in _calls_with_empty_string(statement):
            blank = _BlankStrings().visit(copy.deepcopy(call))
            body.append(ast.Expr(value=blank))
    if len(body) == len(tree.body):
        return script
    module = ast.Module(body=body, type_ignores=[])
    return ast.unparse(ast.fix_missing_locations(module)) + "\n"


def _calls_with_empty_string(statement: ast.stmt) -> list[ast.Call]:
    """The calls of ``statement`` given ``""`` as an argument, outside lambdas."""
    found: list[ast.Call] = []
    lambdas = {
        id(n) for lam in ast.walk(statement) if isinstance(lam, ast.Lambda) for n in ast.walk(lam)
    }
    for node in ast.walk(statement):
        if not isinstance(node, ast.Call) or id(node) in lambdas:
            continue
        arguments = [*node.args, *(keyword.value for keyword in node.keywords)]
        if any(isinstance(a, ast.Constant) and a.value == "" for a in arguments):
            found.append(node)
    return found


class _BlankStrings(ast.NodeTransformer):
    """The call with each of its ``""`` arguments made ``BLANK``."""

    def visit_Call(self, node: ast.Call) -> ast.Call:
        node.args = [_blank(a) for a in node.args]
        for keyword in node.keywords:
            keyword.value = _blank(keyword.value)
        return node


def _blank(node: ast.expr) -> ast.expr:
    if isinstance(node, ast.Constant) and node.value == "":
        return ast.Constant(BLANK)
    return node
