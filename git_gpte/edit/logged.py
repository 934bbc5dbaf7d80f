"""A print turned into a log call, as a request to log instead of printing asks.

"When a fenced code block is never closed, the block parser prints a warning to stderr. Log it
instead at WARNING level on a module-level logger (logging.getLogger(__name__)) and remove the
print": the 1.5B model added the logger and removed the print, and never logged (the own task
minimark/log-unclosed-fence, committed with exit 1, not verified). The change is mechanical once
the print is known: ``print(MESSAGE, file=sys.stderr)`` becomes ``logger.warning(MESSAGE)`` at
the level the request names, the module given ``import logging`` and a module-level logger when
it has none. Which print, the request's words say when they share words with one print's
message more than with the others (the warning about a code block never closed, not ``main``'s
error); each print left in doubt is one candidate, and pipeline/fix_search.py runs them
against the probe and the tests.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from dataclasses import dataclass

from .pycheck import is_get_logger
from .wholefile import parses

_ASKS = re.compile(
    r"\b(?:log(?:s|ged|ging)?|logger)\b.{0,120}?\b(?:instead|rather\s+than|in\s+place\s+of)\b|"
    r"\b(?:instead\s+of|rather\s+than|replace\w*|remove\w*)\b.{0,40}?\bprint",
    re.IGNORECASE | re.DOTALL,
)
_PRINTS = re.compile(r"\bprint", re.IGNORECASE)
# "the print() calls", "all prints", "every print": each of them.
_PLURAL = re.compile(
    r"\bprint(?:\(\))?\s+(?:calls|statements)\b|\b(?:all|every)\s+prints?\b|\bthe\s+prints\b",
    re.IGNORECASE,
)

_LEVELS = ("debug", "info", "warning", "error", "critical")
_WORD = re.compile(r"[a-z]{4,}")
# The keywords of print() a log call has no use for.
_PRINT_ONLY = {"file", "flush", "end", "sep"}


@dataclass(frozen=True)
class Logged:
    """One candidate: the file, the first print's line, how many prints, the level, and the
    file's text with it."""

    path: str
    line: int
    count: int
    level: str
    text: str


def asks_to_log(request: str) -> bool:
    """Whether the request asks for a print to become a log call."""
    return _PRINTS.search(request) is not None and _ASKS.search(request) is not None


def logged_prints(request: str, texts: Mapping[str, str]) -> list[Logged]:
    """The candidates in ``texts`` (only the files the request names by path, when it names
    any), at the level the request names (``warning`` when it names none): asked for "the
    print() calls", every print of a file as one candidate, when the request names at most one
    level; else each print alone, only those whose message shares the most words with the
    request when any shares some."""
    levels = [lv for lv in _LEVELS if re.search(rf"\b{lv}\b", request, re.I)]
    level = levels[0] if levels else "warning"
    named = {path: text for path, text in texts.items() if path in request}
    files = {path: tree for path, tree in _parsed(named or texts).items() if _prints(tree)}
    if _PLURAL.search(request):
        if len(levels) > 1:
            return []  # a level for each print: which one, the request says in words
        every = [_all_logged(path, texts[path], tree, level) for path, tree in files.items()]
        return [found for found in every if found is not None]
    words = set(_WORD.findall(request.lower()))
    scored: list[tuple[int, Logged]] = []
    for path, tree in files.items():
        for call in _prints(tree):
            changed = _logged(texts[path], tree, [call], level)
            if changed is not None:
                message = ast.unparse(call.args[0]).lower()
                shared = len(words & set(_WORD.findall(message)))
                scored.append((shared, Logged(path, call.lineno, 1, level, changed)))
    best = max((shared for shared, _ in scored), default=0)
    return [found for shared, found in scored if shared == best]


def _parsed(texts: Mapping[str, str]) -> dict[str, ast.Module]:
    trees = {}
    for path, text in sorted(texts.items()):
        try:
            trees[path] = ast.parse(text)
        except SyntaxError:
            continue
    return trees


def _all_logged(path: str, text: str, tree: ast.Module, level: str) -> Logged | None:
    calls = _prints(tree)
    changed = _logged(text, tree, calls, level)
    return Logged(path, calls[0].lineno, len(calls), level, changed) if changed else None


def _prints(tree: ast.Module) -> list[ast.Call]:
    """The statements ``print(one message, ...)`` of the module, in its order."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Expr) or not isinstance(node.value, ast.Call):
            continue
        call = node.value
        plain = all(k.arg in _PRINT_ONLY for k in call.keywords)
        if isinstance(call.func, ast.Name) and call.func.id == "print" and len(call.args) == 1:
            found += [call] if plain else []
    return sorted(found, key=lambda c: c.lineno)


def _logged(text: str, tree: ast.Module, calls: list[ast.Call], level: str) -> str | None:
    """``text`` with ``calls`` as log calls, and a logger for them; None when it will not do."""
    lines = text.splitlines(keepends=True)
    name = _logger_name(tree)
    for call in sorted(calls, key=lambda c: c.lineno, reverse=True):
        first, last = call.lineno, call.end_lineno or call.lineno
        if (
            lines[first - 1][: call.col_offset].strip()
            or lines[last - 1][call.end_col_offset or 0 :].strip()
        ):
            return None  # not a statement of its own lines
        indent = lines[first - 1][: call.col_offset]
        message = ast.get_source_segment(text, call.args[0])
        if message is None:
            return None
        lines[first - 1 : last] = [f"{indent}{name or 'logger'}.{level}({message})\n"]
    if name is None:
        at = _after_imports(tree)
        added = ["import logging\n"] if not _imports_logging(tree) else []
        lines[at:at] = [*added, "\n", "logger = logging.getLogger(__name__)\n"]
    result = "".join(lines)
    return result if parses(result) else None


def _logger_name(tree: ast.Module) -> str | None:
    """The module-level name bound to ``logging.getLogger(...)``, if any."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
            if isinstance(target, ast.Name) and is_get_logger(value):
                return target.id
    return None


def _imports_logging(tree: ast.Module) -> bool:
    return any(
        isinstance(node, ast.Import)
        and any(a.name == "logging" and not a.asname for a in node.names)
        for node in tree.body
    )


def _after_imports(tree: ast.Module) -> int:
    """The 0-based line after the module's last top-level import (or its docstring)."""
    last = 0
    for index, node in enumerate(tree.body):
        docstring = (
            index == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        )
        if isinstance(node, ast.Import | ast.ImportFrom) or docstring:
            last = node.end_lineno or node.lineno
    return last
