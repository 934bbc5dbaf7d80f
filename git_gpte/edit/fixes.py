"""Fixes of a known shape, for a request whose words name the shape: the candidates, one table.

Program repair's fix templates, each tried only when the request says what kind of bug it is: a
comparison one step off ("exactly at", "inclusive": edit/boundary.py), a word compared in one
case only ("case-insensitive"), a value with the wrong sign ("comes out negative", "always
positive"), a division by zero ("ZeroDivisionError ... return 0.0"), a new parameter to pass
down ("add a parameter ... instead of the fixed prefix": edit/passdown.py), a value written bare
where the others are escaped ("like the rest": edit/unwrapped.py), a print made a log call
("log it instead ... remove the print": edit/logged.py), a new flag that returns a value in
place of a raise ("returns None instead of raising": edit/switch.py). Shown the function,
the 1.5B model writes it back unchanged, or guards ``if not text`` where the text was blank but
not empty, while the fix is one of a handful of mechanical changes to the functions the request
names and those they call. Which one, only running code can tell (pipeline/fix_search.py runs
each against the probe and the tests); this module finds the candidates and makes each, on the
code as it was. Nothing here guesses what the request means beyond its shape: a candidate no
check passes is never taken.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

from .boundary import MAX_CANDIDATES, Flip, asks_boundary, boundary_flips
from .boundary import searched_functions as _searched
from .logged import asks_to_log, logged_prints
from .offsets import indent_unit, insert_at
from .passdown import asked_parameter, chains, passed_down
from .switch import asked_switch, switched
from .unwrapped import asks_like_the_rest, unwrapped_values

_Function = ast.FunctionDef | ast.AsyncFunctionDef
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_DIVIDES = (ast.Div, ast.FloorDiv, ast.Mod)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)

_CASE = re.compile(
    r"\b(?:case[- ]insensitive(?:ly)?|in\s+any\s+case|any\s+case|regardless\s+of\s+(?:the\s+)?"
    r"case|ignor(?:e|es|ed|ing)\s+(?:the\s+)?case|(?:upper|lower|mixed)[- ]?case)\b",
    re.IGNORECASE,
)
_SIGN = re.compile(
    r"\b(?:comes?\s+out|is|are|returns?|gives?|becomes?)\s+negative\b|"
    r"\b(?:always|never)\b[^.]{0,40}?\b(?:positive|non-?negative|negative)\b|"
    r"\babsolute\s+value\b",
    re.IGNORECASE,
)
_ZERO = re.compile(r"\bZeroDivisionError\b|\bdivi(?:de|ded|des|sion)\s+by\s+zero\b", re.IGNORECASE)
# What a guarded division gives instead, as the request says it: "return 0.0 when ...".
_VALUE = re.compile(r"\b(?:return|returns|give|gives|be)\s+(-?\d+(?:\.\d+)?|None)\b")
# Returned expressions that abs() cannot take or never changes.
_NOT_NUMBERS = {"list", "tuple", "dict", "set", "sorted", "zip", "str", "repr", "len", "abs",
                "bool", "iter", "reversed", "enumerate", "map", "filter", "format"}  # fmt: skip


@dataclass(frozen=True)
class Fix:
    """One candidate: where (1-based line), the function it is in, what it changes (a phrase),
    and the file's text with it."""

    path: str
    line: int
    function: str
    change: str
    text: str

    def describe(self) -> str:
        return f"{self.change} in {self.function} ({self.path}:{self.line})"


Candidate = Fix | Flip


@dataclass(frozen=True)
class Template:
    """One shape of fix: whether a request asks for it, its candidates on the files as they
    were, how to say what is tried (``trying``, given how many) and found (``tried``, as in
    "found by trying ..."), and what one candidate is when only the tests allow it
    (``only``: "the only ... the tests allow"); whether the tests may choose alone when no
    probe can (``tests_alone``; see pipeline/fix_search.py's _by_the_tests)."""

    name: str
    asks: Callable[[str], bool]
    candidates: Callable[[str, Mapping[str, str]], list[Candidate]]
    trying: Callable[[int], str]
    tried: str
    only: str
    tests_alone: bool = False


def _flips(request: str, texts: Mapping[str, str]) -> list[Candidate]:
    return list(boundary_flips(request, texts))


def case_folds(request: str, texts: Mapping[str, str]) -> list[Candidate]:
    """For each function searched (see boundary.searched_functions) and each name it compares
    with ``in``, ``==`` against a string, or looks up (``d[name]``, ``d.get(name)``): every
    such use of the name lower-cased, as one candidate."""
    fixes: list[Candidate] = []
    for path, qualified, node, _ in _searched(request, texts):
        uses: dict[str, list[ast.Name]] = {}
        for name in _compared_names(node):
            uses.setdefault(name.id, []).append(name)
        for found, names in uses.items():
            text = _wrapped(texts[path], names, "", ".lower()")
            change = f"`{found}` lower-cased where it is compared"
            fixes.append(Fix(path, names[0].lineno, qualified, change, text))
    return fixes[:MAX_CANDIDATES]


def _compared_names(node: _Function) -> Iterator[ast.Name]:
    for item in ast.walk(node):
        if isinstance(item, ast.Compare):
            sides = [item.left, *item.comparators]
            for op, left, right in zip(item.ops, sides, sides[1:], strict=False):
                if isinstance(op, ast.In | ast.NotIn) and isinstance(left, ast.Name):
                    yield left
                elif isinstance(op, ast.Eq | ast.NotEq):
                    yield from _name_against_string(left, right)
        elif isinstance(item, ast.Subscript) and isinstance(item.slice, ast.Name):
            yield item.slice
        elif (
            isinstance(item, ast.Call)
            and isinstance(item.func, ast.Attribute)
            and item.func.attr == "get"
            and item.args
            and isinstance(item.args[0], ast.Name)
        ):
            yield item.args[0]


def _name_against_string(left: ast.expr, right: ast.expr) -> Iterator[ast.Name]:
    for name, other in ((left, right), (right, left)):
        if isinstance(name, ast.Name) and isinstance(other, ast.Constant):
            yield from [name] if isinstance(other.value, str) else []


def abs_returns(request: str, texts: Mapping[str, str]) -> list[Candidate]:
    """Each ``return EXPR`` of the functions searched whose value may be a number, as
    ``return abs(EXPR)``: one candidate each."""
    fixes: list[Candidate] = []
    for path, qualified, node, _ in _searched(request, texts):
        for item in _own_nodes(node):
            if isinstance(item, ast.Return) and item.value and _may_be_number(item.value):
                text = _wrapped(texts[path], [item.value], "abs(", ")")
                change = "the value returned made positive with abs()"
                fixes.append(Fix(path, item.lineno, qualified, change, text))
    return fixes[:MAX_CANDIDATES]


def passed_parameters(request: str, texts: Mapping[str, str]) -> list[Candidate]:
    """The parameter the request asks to add in place of a fixed value (see edit/passdown.py),
    passed down each chain of calls to a parameter defaulting to that value: one candidate per
    chain."""
    asked = asked_parameter(request)
    if asked is None:
        return []
    fixes: list[Candidate] = []
    for path, text in sorted(texts.items()):
        for chain in chains(text, asked):
            changed = passed_down(text, asked, chain)
            if changed is None:
                continue
            start, *between, end = chain.functions
            via = f" through {', '.join(node.name for node in between)}" if between else ""
            change = f"`{asked.parameter}` passed down{via} to {end.name}'s `{chain.target}`"
            fixes.append(Fix(path, start.lineno, start.name, change, changed))
    return fixes


def switched_raises(request: str, texts: Mapping[str, str]) -> list[Candidate]:
    """The flag the request asks to add (see edit/switch.py), returning its value where the
    function it names raised the exception: every raise guarded, then each alone."""
    switch = asked_switch(request)
    if switch is None:
        return []
    fixes: list[Candidate] = []
    for path, text in sorted(texts.items()):
        for found in switched(text, switch):
            change = (
                f"`{switch.flag.parameter}` added, {switch.value} returned in place of "
                f"{found.guarded} raise(s) of {switch.exception}"
            )
            fixes.append(Fix(path, found.line, found.function, change, found.text))
    return fixes[:MAX_CANDIDATES]


def wrapped_values(request: str, texts: Mapping[str, str]) -> list[Candidate]:
    """Each value a function writes into its f-strings bare where it puts others through a
    function the request's words name (see edit/unwrapped.py), put through it too."""
    fixes: list[Candidate] = []
    for found in unwrapped_values(request, texts):
        change = f"`{found.name}` put through {found.helper}() as the other values there"
        fixes.append(Fix(found.path, found.line, found.function, change, found.text))
    return fixes[:MAX_CANDIDATES]


def logged_calls(request: str, texts: Mapping[str, str]) -> list[Candidate]:
    """Each print the request's words point at, made a log call (see edit/logged.py)."""
    fixes: list[Candidate] = []
    for found in logged_prints(request, texts):
        what = "the print" if found.count == 1 else f"the {found.count} prints"
        change = f"{what} made logger.{found.level}()"
        fixes.append(Fix(found.path, found.line, "the module", change, found.text))
    return fixes[:MAX_CANDIDATES]


def _may_be_number(value: ast.expr) -> bool:
    if isinstance(value, ast.BinOp | ast.Name | ast.Attribute | ast.Subscript):
        return True
    if isinstance(value, ast.UnaryOp):
        return isinstance(value.op, ast.USub | ast.UAdd)
    if isinstance(value, ast.Call):
        func = value.func
        called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        return called not in _NOT_NUMBERS
    return False


def zero_guards(request: str, texts: Mapping[str, str]) -> list[Candidate]:
    """Every division of the functions the request names guarded: before the statement that
    divides, ``if not DIVISOR: return VALUE``, VALUE as the request says it ("return 0.0 when
    the text has no words"). One candidate for the named functions; a second with the functions
    they call as well, when those divide too. None when the request says no value."""
    said = _VALUE.search(request)
    if said is None:
        return []
    value = said.group(1)
    searched = list(_searched(request, texts))
    named = [entry for entry in searched if entry[3]]
    fixes: list[Candidate] = []
    for group in (named, searched):
        fix = _guarded(group, texts, value)
        if fix is not None and all(fix.text != other.text for other in fixes):
            fixes.append(fix)
    return fixes


def _guarded(
    entries: list[tuple[str, str, _Function, bool]], texts: Mapping[str, str], value: str
) -> Fix | None:
    """The files of ``entries`` with each division guarded (see zero_guards); None when none
    divides. One file at a time: a candidate changes one file."""
    inserts: dict[str, list[tuple[int, str]]] = {}
    where: tuple[str, int, str] | None = None
    for path, qualified, node, _ in entries:
        if where is not None and where[0] != path:
            continue
        guards = _guards(texts[path], node, value)
        if guards:
            inserts.setdefault(path, []).extend(guards)
            where = where or (path, guards[0][0], qualified)
    if where is None:
        return None
    path, line, qualified = where
    lines = texts[path].splitlines(keepends=True)
    for row, guard in sorted(inserts[path], reverse=True):
        lines.insert(row - 1, guard)
    change = f"each division guarded, giving {value} when its divisor is zero"
    return Fix(path, line, qualified, change, "".join(lines))


def _guards(text: str, node: _Function, value: str) -> list[tuple[int, str]]:
    """(line, guard lines) to insert before each statement of ``node`` that divides by
    something not a constant: statements in loops or nested functions are left alone (a
    return there would end more than the division)."""
    unit = indent_unit(node)
    lines = text.splitlines()
    guards: list[tuple[int, str]] = []
    done: set[str] = set()
    for statement in _straight_statements(node.body):
        divisors = [_condition(text, d) for d in _divisors(statement)]
        divisors = [d for d in dict.fromkeys(divisors) if d and d not in done]
        if not divisors:
            continue
        row = lines[statement.lineno - 1]
        if row[: statement.col_offset].strip():
            continue
        done.update(divisors)
        indent = row[: statement.col_offset]
        test = " or ".join(f"not {d}" for d in divisors)
        guards.append((statement.lineno, f"{indent}if {test}:\n{indent}{unit}return {value}\n"))
    return guards


def _straight_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of ``body`` and of the ``if``, ``with`` and ``try`` blocks in it, not of
    loops or nested definitions."""
    for statement in body:
        if isinstance(statement, ast.If | ast.With | ast.Try):
            if isinstance(statement, ast.If):
                yield statement  # its test runs first: a divisor it shares is guarded there
            for part in ("body", "orelse", "finalbody"):
                yield from _straight_statements(getattr(statement, part, []))
            for handler in getattr(statement, "handlers", []):
                yield from _straight_statements(handler.body)
        elif not isinstance(statement, (ast.For, ast.AsyncFor, ast.While, *_SCOPES)):
            yield statement


def _divisors(statement: ast.stmt) -> Iterator[ast.expr]:
    """The divisors of the divisions in ``statement``'s own expressions (an ``if``'s test, not
    its body), outside comprehensions and lambdas, whose names are bound only inside."""
    if isinstance(statement, ast.If):
        roots: list[ast.AST] = [statement.test]
    else:
        roots = [statement]
    stack = roots
    while stack:
        item = stack.pop()
        if isinstance(item, (*_COMPREHENSIONS, ast.Lambda)):
            continue
        if isinstance(item, ast.BinOp) and isinstance(item.op, _DIVIDES):
            yield from _unless_constant(item.right)
        if isinstance(item, ast.AugAssign) and isinstance(item.op, _DIVIDES):
            yield from _unless_constant(item.value)
        stack.extend(ast.iter_child_nodes(item))


def _unless_constant(divisor: ast.expr) -> list[ast.expr]:
    return [] if isinstance(divisor, ast.Constant) else [divisor]


def _condition(text: str, divisor: ast.expr) -> str:
    """What is zero when ``divisor`` is: ``len(ws)`` is zero when ``ws`` is empty."""
    if (
        isinstance(divisor, ast.Call)
        and isinstance(divisor.func, ast.Name)
        and divisor.func.id == "len"
        and len(divisor.args) == 1
        and not divisor.keywords
    ):
        divisor = divisor.args[0]
    source = ast.get_source_segment(text, divisor) or ""
    if "\n" in source:
        return ""
    simple = isinstance(divisor, ast.Name | ast.Attribute | ast.Call | ast.Subscript)
    return source if simple else f"({source})"


def _own_nodes(node: _Function) -> Iterator[ast.AST]:
    """The nodes of ``node``'s body, not of the functions, lambdas and classes inside it."""
    stack: list[ast.AST] = list(node.body)
    while stack:
        item = stack.pop()
        if isinstance(item, _SCOPES):
            continue
        yield item
        stack.extend(ast.iter_child_nodes(item))


def _wrapped(text: str, nodes: list[ast.Name] | list[ast.expr], before: str, after: str) -> str:
    """``text`` with each node's source between ``before`` and ``after``; the last first, so
    that the positions of the others hold."""
    lines = text.splitlines(keepends=True)
    spans = sorted(
        {(n.lineno, n.col_offset, n.end_lineno or n.lineno, n.end_col_offset or 0) for n in nodes},
        reverse=True,
    )
    for first, start, last, end in spans:
        lines[last - 1] = insert_at(lines[last - 1], end, after)
        lines[first - 1] = insert_at(lines[first - 1], start, before)
    return "".join(lines)


TEMPLATES: tuple[Template, ...] = (
    Template(
        "boundary",
        asks_boundary,
        _flips,
        lambda n: f"the other strictness of {n} comparison(s) of the functions the request names",
        "the comparisons of the functions the request names",
        "comparison of the functions the request names whose other strictness",
        tests_alone=True,
    ),
    Template(
        "case",
        lambda request: _CASE.search(request) is not None,
        case_folds,
        lambda n: f"{n} value(s) the functions the request names compare, lower-cased",
        "the values the functions the request names compare, lower-cased",
        "lower-cased value of the functions the request names that",
    ),
    Template(
        "sign",
        lambda request: _SIGN.search(request) is not None,
        abs_returns,
        lambda n: f"abs() of {n} value(s) the functions the request names return",
        "abs() of the values the functions the request names return",
        "abs() of a value the functions the request names return that",
    ),
    Template(
        "zero",
        lambda request: _ZERO.search(request) is not None,
        zero_guards,
        lambda n: f"{n} way(s) of guarding the divisions of the functions the request names",
        "guards on the divisions of the functions the request names",
        "guarding of the divisions of the functions the request names that",
    ),
    Template(
        "passdown",
        lambda request: asked_parameter(request) is not None,
        passed_parameters,
        lambda n: f"{n} way(s) of passing the new parameter down to the value it replaces",
        "the ways of passing the new parameter down to the value it replaces",
        "way of passing the new parameter down that",
        tests_alone=True,
    ),
    Template(
        "unwrapped",
        asks_like_the_rest,
        wrapped_values,
        lambda n: f"{n} value(s) written bare where the others go through a function first",
        "the values written bare where the others go through a function first",
        "value written bare where the others go through a function that",
    ),
    Template(
        "logged",
        asks_to_log,
        logged_calls,
        lambda n: f"{n} print(s) made log calls",
        "the prints made log calls",
        "print made a log call that",
        tests_alone=True,
    ),
    Template(
        "switch",
        lambda request: asked_switch(request) is not None,
        switched_raises,
        lambda n: f"{n} way(s) of returning the value the new flag asks for in place of a raise",
        "the ways of returning the value the new flag asks for in place of a raise",
        "way of returning the value the new flag asks for in place of a raise that",
        tests_alone=True,
    ),
)


def asked_templates(request: str) -> list[Template]:
    """The templates whose shape the request's words name."""
    return [template for template in TEMPLATES if template.asks(request)]
