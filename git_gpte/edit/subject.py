"""The definition a request is about, left as it was while the edits changed other code.

"``generate_lorem_ipsum`` should raise ValueError when min is greater than max" is about one
function. Asked so on jinja, the 1.5B model changed ``_MissingType.__repr__`` and added a copy
of a constant another module defines, and left ``generate_lorem_ipsum`` as it was; asked that
humanize's ``metric`` refuse a precision under 1, it rewrote ``naturaldelta``, in another
module. Nothing else catches this where the project's tests cannot run: the result compiles,
defines every name, and its probe (written from the request) may fail only on its own.

A fix may rightly leave the named function's own lines as they were and change a helper it
calls, or a constant it reads; so the result is blamed only when every change lies outside what
the function reaches (the names it uses, followed through the definitions of the files up to
REACH_DEPTH steps), outside its own class, and outside module-level code other than imports and
named assignments.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Mapping

from .definitions import assigned_name, is_docstring
from .pycheck import Problem

# "NAME should ...", "`Class.method()` in path/to.py must ...", "Make NAME accept ...".
_SUBJECT = re.compile(
    r"^\s*`?(?P<name>(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*)(?:\(\))?`?(?:\s+in\s+\S+)?\s+"
    r"(?:should|must|shall|needs?\s+to|does\s+not|doesn't|do\s+not|don't|never|always|"
    r"raises|returns|fails|crashes|ignores|accepts|takes)\b",
    re.IGNORECASE,
)
_MAKE = re.compile(
    r"^\s*(?:make|let|have)\s+`?(?P<name>(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*)(?:\(\))?`?\s",
    re.IGNORECASE,
)
# The kind of the problem (see Problem): the edit loop puts the edits back on it, since they
# are all code the request is not about.
OFF_SUBJECT = "off-subject"
# How many steps from the named function its reach follows names through definitions: what it
# uses, and what those use. A third step took in nearly everything: on werkzeug it reached
# ``_log`` from ``import_string`` (through the exception class it raises), and the answer that
# changed only ``_log``'s level passed as a change to ``import_string``. None of the own tasks'
# reference solutions changes code further than two steps from the function the request names.
REACH_DEPTH = 2
# Module-level code that is neither an import nor a named assignment (see _units).
_MODULE = "<module>"

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_Function = ast.FunctionDef | ast.AsyncFunctionDef


def subject_unchanged(
    request: str, originals: Mapping[str, str], texts: Mapping[str, str]
) -> list[Problem]:
    """The one function or method the request opens with (see _SUBJECT), when the result left
    it as it was and changed only code it does not reach; else nothing. ``texts``: path ->
    Python source as edited; ``originals``: the same paths as they were. The problem's line
    is the function's line as it was: the edits are to be put back."""
    was = _subject(request, originals)
    if was is None or was[0] not in texts:
        return []
    path, owner, old = was
    now = [
        node
        for _, holder, node in functions({path: texts[path]})
        if holder == owner and node.name == old.name
    ]
    if len(now) != 1 or ast.dump(now[0]) != ast.dump(old):
        return []
    node = now[0]
    changed = _changed(originals, texts)
    if not changed or _MODULE in changed:
        return []
    if owner is not None and any(name.split(".")[0] == owner for name in changed):
        return []
    reach = _reach(node, texts)
    if any(name.rsplit(".", 1)[-1] in reach for name in changed):
        return []
    shown = ", ".join(sorted(changed)[:4]) + (", ..." if len(changed) > 4 else "")
    said = (
        f"the request asks for a change to {node.name}, and {node.name} is as it was: the "
        f"edits changed only code it does not use ({shown}); make the change in {node.name}"
    )
    return [Problem(OFF_SUBJECT, path, old.lineno, said)]


def _subject(request: str, texts: Mapping[str, str]) -> tuple[str, str | None, _Function] | None:
    """(path, its class or None, the function) for the name the request opens with, when the
    files define exactly one function or method of that name (in the class it names, if it
    names one)."""
    match = _SUBJECT.match(request) or _MAKE.match(request)
    if match is None:
        return None
    parts = match.group("name").split(".")
    name, owner = parts[-1], (parts[-2] if len(parts) > 1 else None)
    found = [
        (path, holder, node)
        for path, holder, node in functions(texts)
        if node.name == name and (owner is None or holder in (owner, None))
    ]
    if owner is not None and any(holder == owner for _, holder, _ in found):
        found = [entry for entry in found if entry[1] == owner]
    return found[0] if len(found) == 1 else None


def functions(texts: Mapping[str, str]) -> Iterator[tuple[str, str | None, _Function]]:
    """Each top-level function and method of a top-level class: (path, class or None, node)."""
    for path, text in sorted(texts.items()):
        tree = _parse(text)
        if tree is None:
            continue
        for node in tree.body:
            if isinstance(node, _FUNCTIONS):
                yield path, None, node
            elif isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, _FUNCTIONS):
                        yield path, node.name, item


def _changed(originals: Mapping[str, str], texts: Mapping[str, str]) -> set[str]:
    """The units (see _units) the edits changed, added or took out, over every file."""
    changed: set[str] = set()
    for path, text in texts.items():
        before = originals.get(path)
        if before == text:
            continue
        old, new = _units(before or ""), _units(text)
        if old is None or new is None:
            return {_MODULE}
        changed |= {key for key in old.keys() | new.keys() if old.get(key) != new.get(key)}
    return changed


def _units(text: str) -> dict[str, str] | None:
    """The parts of a module a change is said to touch, each as a string to compare: a
    function (``name``), a method (``Class.name``), the rest of a class (``Class``), a named
    module-level assignment (its name) and all other module-level code but imports together
    (_MODULE). None when the text does not parse."""
    tree = _parse(text)
    if tree is None:
        return None
    units: dict[str, str] = {}
    rest: list[str] = []
    for node in tree.body:
        if isinstance(node, _FUNCTIONS):
            units[node.name] = ast.dump(node)
        elif isinstance(node, ast.ClassDef):
            members = [item for item in node.body if isinstance(item, _FUNCTIONS)]
            for item in members:
                units[f"{node.name}.{item.name}"] = ast.dump(item)
            others = [item for item in node.body if item not in members]
            shape = [*node.decorator_list, *node.bases, *node.keywords, *others]
            units[node.name] = "".join(ast.dump(item) for item in shape)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        elif (target := assigned_name(node)) is not None:
            units[target] = ast.dump(node)
        elif not is_docstring(node):
            rest.append(ast.dump(node))
    if rest:
        units[_MODULE] = "".join(rest)
    return units


def _reach(node: ast.AST, texts: Mapping[str, str]) -> set[str]:
    """The names ``node`` uses (names and attributes), and those the definitions of these
    names in ``texts`` use in turn, up to REACH_DEPTH steps."""
    definitions: dict[str, list[ast.AST]] = {}
    for _, _, function in functions(texts):
        definitions.setdefault(function.name, []).append(function)
    for text in texts.values():
        tree = _parse(text)
        for top in tree.body if tree is not None else []:
            if isinstance(top, ast.ClassDef):
                definitions.setdefault(top.name, []).append(top)
            elif (target := assigned_name(top)) is not None:
                definitions.setdefault(target, []).append(top)
    reach: set[str] = set()
    todo = [node]
    for _ in range(REACH_DEPTH):
        names = {name for item in todo for name in _used(item)} - reach
        reach |= names
        todo = [d for name in names for d in definitions.get(name, [])]
    return reach


def _used(node: ast.AST) -> set[str]:
    found: set[str] = set()
    for item in ast.walk(node):
        if isinstance(item, ast.Name):
            found.add(item.id)
        elif isinstance(item, ast.Attribute):
            found.add(item.attr)
    return found


def _parse(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):
        return None
