"""Which way a comparison's truth goes: whether it lets something in or keeps it out.

"The period should include both its start and its end date": of the three comparisons
``build_statement`` makes, turning any one to its other strictness passes the project's tests
(ledger/statement-end-date): ``end < start`` guarding a ``raise``, ``start <= date`` and
``date < end`` choosing the transactions that go in. A request to include a boundary asks for
more to be let in: a comparison whose truth lets in made true more often (``<`` to ``<=``), or
one whose truth keeps out (its ``if`` only raises, continues or breaks) made true less often.
The other two candidates do the reverse, and are not what was asked. A comparison whose use
says neither (a returned value, a loop's test) is left in doubt. Pure functions of the text.
"""

from __future__ import annotations

import ast
import re

# The request asks for a boundary to be let in; and words that say the opposite.
_INCLUDE = re.compile(r"\b(?:includ(?:e|es|ed|ing)|inclusive(?:ly)?)\b", re.IGNORECASE)
_EXCLUDE = re.compile(
    r"\b(?:exclud(?:e|es|ed|ing)|exclusive(?:ly)?|not\s+(?:be\s+)?included|no\s+longer)\b",
    re.IGNORECASE,
)
_KEEPS_OUT = (ast.Raise, ast.Continue, ast.Break)


def asks_to_include(request: str) -> bool:
    """Whether the request asks for a boundary to be let in, and says nothing the other way."""
    return _INCLUDE.search(request) is not None and _EXCLUDE.search(request) is None


def lets_more_in(text: str, line: int, column: int, wider: bool) -> bool | None:
    """Whether turning the comparison whose operator is at ``line`` (1-based), character
    ``column`` lets more in: ``wider`` says the new operator holds more often (``<=``, ``>=``).
    None when its use says neither, or it cannot be found."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    row = text.splitlines()[line - 1] if line <= len(text.splitlines()) else ""
    offset = len(row[:column].encode("utf-8"))
    compare = _innermost_compare(tree, line, offset)
    if compare is None:
        return None
    lets_in = _lets_in(compare, _parents(tree))
    return None if lets_in is None else lets_in == wider


def _innermost_compare(tree: ast.Module, line: int, offset: int) -> ast.Compare | None:
    found: ast.Compare | None = None
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare) or node.end_lineno is None:
            continue
        start, end = (node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset or 0)
        if start <= (line, offset) < end and (found is None or _within(node, found)):
            found = node
    return found


def _within(inner: ast.expr, outer: ast.expr) -> bool:
    return (inner.lineno, inner.col_offset) >= (outer.lineno, outer.col_offset)


def _parents(tree: ast.Module) -> dict[ast.AST, ast.AST]:
    return {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def _lets_in(compare: ast.Compare, parents: dict[ast.AST, ast.AST]) -> bool | None:
    """Whether the comparison's truth lets in (True) or keeps out (False); None when unsaid."""
    node: ast.AST = compare
    negated = False
    while True:
        parent = parents.get(node)
        if isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not):
            negated = not negated
        elif isinstance(parent, ast.BoolOp):
            pass
        elif isinstance(parent, ast.comprehension) and node in parent.ifs:
            return not negated
        elif isinstance(parent, ast.If) and node is parent.test:
            if all(isinstance(s, _KEEPS_OUT) for s in parent.body):
                return negated
            if len(parent.body) == 1 and isinstance(parent.body[0], ast.Return):
                return None
            return not negated
        else:
            return None
        node = parent
