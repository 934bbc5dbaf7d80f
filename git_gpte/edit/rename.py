"""Completing a rename the reply made in one place only.

Asked to rename a function and update its callers, small models rename the definition and
leave the callers (in the same module and in the modules importing it) on the old name. When a
module's edit removed a top-level function or class and added one that is the same definition
under another name, the rename is certain; the places still using the old name are then
renamed too, the way an editor's rename does: the uses the module no longer resolves, the
imports of the old name from that module elsewhere, and their uses. Nothing else is touched,
and the checks run on the result as on any edit. Pure functions on text.

They also do the opposite: rename the callers and leave the definition. When every line that
uses the new (undefined) name is a line of the original with the old name in its place, the
definition is renamed to match (:func:`use_renames`), and the rest follows as above. When the
callers are in another module, which now imports the new name from a module still defining the
old one, the request decides (:func:`requested_rename`): it must name both, and the old name
must be the one definition of that module the importer imported before.

And they write the definition under its new name as a new one, leaving the old one as it was
(ledger/rename-interest, in the definitions format: ``accrued_interest`` appended, and
``calculate_interest`` untouched beside it). When the request renames OLD to NEW, the edit added
NEW and left OLD exactly as it was, the new definition takes the old one's place
(:func:`renamed_beside`); its callers follow as above.
"""

from __future__ import annotations

import ast
import builtins
import copy
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .pycheck import module_names, resolve_relative


@dataclass(frozen=True)
class Renamed:
    """One file changed to complete a rename: its new text and how many places changed."""

    path: str
    text: str
    old: str
    new: str
    places: int


def _definitions(tree: ast.Module) -> dict[str, ast.stmt]:
    return {
        node.name: node
        for node in tree.body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    }


def _same_but_name(old: ast.stmt, new: ast.stmt) -> bool:
    """Whether ``new`` is ``old`` under another name (docstring and body identical)."""
    renamed = copy.copy(old)
    renamed.name = new.name  # type: ignore[attr-defined]
    return ast.dump(renamed) == ast.dump(new)


def renames(before: str, after: str, instruction: str = "") -> dict[str, str]:
    """Old name -> new name of the top-level definitions the edit renamed and left otherwise
    alone (each pairing unique), from a module's text before and after; and, when
    ``instruction`` names exactly one definition the edit removed and one it added ("rename
    get_cols to numeric_cols"), that pair too, whatever else the edit changed in it."""
    try:
        old_tree, new_tree = ast.parse(before), ast.parse(after)
    except (SyntaxError, ValueError):
        return {}
    old_defs, new_defs = _definitions(old_tree), _definitions(new_tree)
    gone = {n: d for n, d in old_defs.items() if n not in new_defs}
    added = {n: d for n, d in new_defs.items() if n not in old_defs}
    found: dict[str, str] = {}
    for old_name, old_def in gone.items():
        matches = [n for n, d in added.items() if _same_but_name(old_def, d)]
        if len(matches) == 1:
            found[old_name] = matches[0]
    used = list(found.values())
    found = {o: n for o, n in found.items() if used.count(n) == 1}
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", instruction))
    named_gone = [n for n in gone if n in words and n not in found]
    named_added = [n for n in added if n in words and n not in found.values()]
    if len(named_gone) == 1 and len(named_added) == 1:
        found[named_gone[0]] = named_added[0]
    return found


def renamed_beside(before: str, after: str, instruction: str) -> tuple[str, str, str] | None:
    """(text, old, new): ``after`` with the top-level definition NEW it added moved into the
    place of OLD, which it left exactly as ``before`` had it, when ``instruction`` renames OLD
    to NEW (``requested_name``). None when there is no such pair, or more than one."""
    try:
        old_tree, new_tree = ast.parse(before), ast.parse(after)
    except (SyntaxError, ValueError):
        return None
    old_defs, new_defs = _definitions(old_tree), _definitions(new_tree)
    pairs = [
        (old, new)
        for old in old_defs
        if (new := requested_name(instruction, old)) is not None
        and new in new_defs
        and new not in old_defs
        and old in new_defs
        and ast.dump(new_defs[old]) == ast.dump(old_defs[old])
    ]
    if len(pairs) != 1:
        return None
    old, new = pairs[0]
    lines = after.split("\n")
    (o_start, o_end), (n_start, n_end) = _lines_of(new_defs[old]), _lines_of(new_defs[new])
    moved = lines[n_start:n_end]
    while n_start > 0 and not lines[n_start - 1].strip() and n_start > o_end:
        n_start -= 1  # the blank lines that set the added definition apart go with it
    if n_start >= o_end:
        lines[n_start:n_end] = []
        lines[o_start:o_end] = moved
    else:
        lines[o_start:o_end] = moved
        lines[n_start:n_end] = []
    text = "\n".join(lines)
    try:
        ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    return text, old, new


def _lines_of(node: ast.stmt) -> tuple[int, int]:
    """The 0-based line span of a top-level definition, decorators included."""
    decorators = getattr(node, "decorator_list", [])
    start = min([node.lineno, *(d.lineno for d in decorators)]) - 1
    return start, node.end_lineno or node.lineno


def use_renames(before: str, after: str) -> dict[str, str]:
    """Old name -> new name where the edit renamed a top-level definition at its uses only:
    the new name is bound nowhere in the module, the old one is still defined there, and every
    line using the new name is a line of the original with the old name in its place."""
    try:
        old_tree, new_tree = ast.parse(before), ast.parse(after)
    except (SyntaxError, ValueError):
        return {}
    bound = bound_names(new_tree) | bound_names(old_tree) | set(dir(builtins))
    unbound = {
        n.id
        for n in ast.walk(new_tree)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in bound
    }
    defined = set(_definitions(new_tree)) & set(_definitions(old_tree))
    old_lines = set(before.split("\n"))
    found: dict[str, str] = {}
    for new in sorted(unbound):
        using = [line for line in after.split("\n") if re.search(rf"\b{new}\b", line)]
        olds = [
            old
            for old in sorted(defined)
            if all(re.sub(rf"\b{new}\b", old, line) in old_lines for line in using)
        ]
        if using and len(olds) == 1 and olds[0] not in found:
            found[olds[0]] = new
    return found


def requested_rename(
    instruction: str, new: str, defined: Iterable[str], imported_before: Iterable[str]
) -> str | None:
    """The old name of a module's definition a request renames to ``new``: the request names
    both, and it is the only such definition the importer imported before the edit."""
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", instruction))
    if new not in words:
        return None
    before = set(imported_before)
    olds = sorted({name for name in defined if name != new and name in words and name in before})
    return olds[0] if len(olds) == 1 else None


def requested_name(instruction: str, old: str) -> str | None:
    """The new name a request gives ``old``: "rename apply_discount to discounted_amount",
    "rename get_cols in pkg/loader.py to numeric_cols" (None when it gives none)."""
    between = r"`?[^\n]{0,60}?"  # "in pkg/loader.py", a closing backtick
    arrow = r"(?:\b(?:to|into)|->|→)\s+`?"
    name = r"([A-Za-z_][A-Za-z0-9_]*)"
    found = re.search(rf"\b{re.escape(old)}\b{between}{arrow}{name}", instruction)
    return found.group(1) if found and found.group(1) != old else None


def misnamed_renames(
    originals: Mapping[str, str], changes: Mapping[str, str | None], instruction: str
) -> dict[str, str]:
    """Name the reply gave -> name the request gives, where the reply renamed a definition the
    request renames, but to a name of its own (asked for ``discounted_amount``, a small model
    wrote ``apply_discounted_amount``, everywhere). Only a name that is new (in no original
    file, not in the request) is replaced, and only by a name no edited file uses yet: the
    rename is then exactly the one asked for."""
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", instruction))
    texts = [t for t in changes.values() if t is not None]
    found: dict[str, str] = {}
    for path, text in changes.items():
        if text is None or path not in originals or not path.endswith(".py"):
            continue
        for old, given in renames(originals[path], text).items():
            wanted = requested_name(instruction, old)
            if wanted is None or given == wanted or given in words:
                continue
            pattern = re.compile(rf"\b{re.escape(given)}\b")
            if any(pattern.search(o) for o in originals.values()):
                continue
            if any(re.search(rf"\b{re.escape(wanted)}\b", t) for t in texts):
                continue
            found[given] = wanted
    return found


def rename_everywhere(text: str, names: Mapping[str, str]) -> tuple[str, int]:
    """``text`` with each name in ``names`` replaced as a whole word, and how many places."""
    places = 0
    for old, new in names.items():
        text, count = re.subn(rf"\b{re.escape(old)}\b", new, text)
        places += count
    return text, places


def top_level_names(text: str) -> set[str]:
    """The module's top-level functions and classes (none when it does not parse)."""
    try:
        return set(_definitions(ast.parse(text)))
    except (SyntaxError, ValueError):
        return set()


def imported_names(text: str) -> set[str]:
    """Every name a module imports with ``from ... import`` (none when it does not parse)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return set()
    return {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }


def rename_definitions(text: str, names: Mapping[str, str]) -> str:
    """``text`` with the top-level definitions in ``names`` (old -> new) renamed where they are
    defined (their uses are left to :func:`complete_renames`)."""
    tree = ast.parse(text)
    lines = text.split("\n")
    for old, node in _definitions(tree).items():
        if old in names:
            line = lines[node.lineno - 1]
            lines[node.lineno - 1] = re.sub(
                rf"^(\s*(?:async\s+)?(?:def|class)\s+){old}\b", rf"\g<1>{names[old]}", line
            )
    return "\n".join(lines)


def bound_names(tree: ast.Module) -> set[str]:
    """Every name the file binds anywhere (definitions, assignments, parameters, imports)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


def _replace_at(text: str, spots: list[tuple[int, int]], old: str, new: str) -> str:
    """``text`` with ``old`` replaced by ``new`` at each (line, column) spot (1-based lines,
    0-based columns as ast gives them, in characters of that line)."""
    lines = text.split("\n")
    for line, col in sorted(spots, reverse=True):
        current = lines[line - 1]
        if current[col : col + len(old)] == old:
            lines[line - 1] = current[:col] + new + current[col + len(old) :]
    return "\n".join(lines)


def _in_all(text: str, old: str, new: str) -> tuple[str, int]:
    """``old`` in the module's ``__all__`` (its exports, as strings) to ``new``: a module
    that no longer binds ``old`` cannot export it (``from ledger import *`` would fail)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return text, 0
    spots = [
        (item.lineno, item.col_offset + 1)
        for node in tree.body
        if isinstance(node, (ast.Assign, ast.AugAssign))
        and any(
            isinstance(t, ast.Name) and t.id == "__all__"
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
        )
        and isinstance(node.value, (ast.List, ast.Tuple))
        for item in node.value.elts
        if isinstance(item, ast.Constant) and item.value == old
    ]
    return _replace_at(text, spots, old, new), len(spots)


def _in_module(text: str, old: str, new: str) -> tuple[str, int]:
    """The renamed module's own uses of ``old`` (it no longer defines it)."""
    tree = ast.parse(text)
    if old in bound_names(tree):
        return text, 0
    spots = [
        (n.lineno, n.col_offset)
        for n in ast.walk(tree)
        if isinstance(n, ast.Name) and n.id == old and isinstance(n.ctx, ast.Load)
    ]
    return _replace_at(text, spots, old, new), len(spots)


def _in_importer(path: str, text: str, module: str, old: str, new: str) -> tuple[str, int]:
    """``from module import old`` (and the file's uses of it), ``module.old``, in another
    file: to ``new``. A file that already imports ``new`` from the module and still uses
    ``old``, bound nowhere in it, has those uses renamed too (seen: csvreport/cli.py's import
    changed by the reply, one call of the old name left)."""
    tree = ast.parse(text)
    names = module_names(module)
    spots: list[tuple[int, int]] = []
    imported_bare = False
    imported_new = False
    aliases: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            target = resolve_relative(path, node.module, node.level)
            for alias in node.names:
                if target in names and alias.name == old:
                    spots.append(_alias_spot(alias))
                    imported_bare = imported_bare or alias.asname is None
                elif target in names and alias.name == new and alias.asname is None:
                    imported_new = True
                elif f"{target}.{alias.name}" in names:  # from package import module
                    aliases.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in names:
                    aliases.add(alias.asname or alias.name)
    if imported_new and not imported_bare and old not in bound_names(tree):
        imported_bare = True  # its uses of old are the import's, left behind
    if imported_bare:
        others = bound_names(tree) - {old}
        if old in others:
            return text, 0  # the file binds the old name itself: not ours to touch
        spots += [
            (n.lineno, n.col_offset)
            for n in ast.walk(tree)
            if isinstance(n, ast.Name) and n.id == old
        ]
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and node.attr == old
            and ast.unparse(node.value) in aliases
            and node.end_lineno is not None
            and node.end_col_offset is not None
        ):
            spots.append((node.end_lineno, node.end_col_offset - len(old)))
    return _replace_at(text, spots, old, new), len(spots)


def _alias_spot(alias: ast.alias) -> tuple[int, int]:
    return alias.lineno, alias.col_offset


def complete_renames(
    before: Mapping[str, str],
    after: Mapping[str, str | None],
    others: Mapping[str, str],
    instruction: str = "",
) -> list[Renamed]:
    """The files to change so each rename the edit made (see :func:`renames`) reaches every
    place still using the old name. ``before``/``after``: the edited files' texts (None:
    deleted); ``others``: the other Python files that may use the names (as edited)."""
    out: list[Renamed] = []
    current = {p: t for p, t in {**others, **after}.items() if t is not None}
    # (module, old, new): a module whose name ``old`` is now ``new``. A module importing it
    # re-exports it (``ledger/__init__.py``: ``from .accounts import ...``), so the importers
    # of that module follow in turn (``from ledger import calculate_interest`` in the tests).
    pending = [
        (module, old, new)
        for module, text in after.items()
        if text is not None and module in before and module.endswith(".py")
        for old, new in renames(before[module], text, instruction).items()
    ]
    seen = set(pending)
    while pending:
        module, old, new = pending.pop(0)
        for path in sorted(current):
            if not path.endswith(".py"):
                continue
            try:
                if path == module:
                    changed, places = _in_module(current[path], old, new)
                else:
                    changed, places = _in_importer(path, current[path], module, old, new)
            except (SyntaxError, ValueError):
                continue
            if places or path == module:
                # the module's own __all__ too, when nothing else in it uses the name (seen:
                # boltons' strip_ansi, listed in strutils' __all__ and used nowhere there)
                changed, listed = _in_all(changed, old, new)
                places += listed
            if places and changed != current[path]:
                changed = _without_repeated_imports(changed)
                current[path] = changed
                out.append(Renamed(path, changed, old, new, places))
                if path != module and (path, old, new) not in seen:
                    seen.add((path, old, new))
                    pending.append((path, old, new))
    return out


def _without_repeated_imports(text: str) -> str:
    """One-line ``from m import a, a, b`` as ``from m import a, b``, and a one-line import
    repeated as a whole once: what renaming an import leaves where the model had already
    added the new name beside the old one."""
    tree = ast.parse(text)
    lines = text.split("\n")
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom) or node.lineno != node.end_lineno:
            continue
        seen: list[ast.alias] = []
        for alias in node.names:
            if all((a.name, a.asname) != (alias.name, alias.asname) for a in seen):
                seen.append(alias)
        if len(seen) == len(node.names) or node.end_col_offset is None:
            continue
        line = lines[node.lineno - 1]
        deduped = ast.unparse(ast.ImportFrom(node.module, seen, node.level))
        lines[node.lineno - 1] = line[: node.col_offset] + deduped + line[node.end_col_offset :]
    return _without_repeated_import_lines("\n".join(lines))


def _without_repeated_import_lines(text: str) -> str:
    """``text`` without a one-line top-level import that repeats an earlier one word for word
    (the answer imported the new name, a repair put the old import back, the rename made it
    the new one again)."""
    tree = ast.parse(text)
    seen: set[str] = set()
    drop: set[int] = set()
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)) and node.end_lineno == node.lineno:
            source = ast.unparse(node)
            drop |= {node.lineno} if source in seen else set()
            seen.add(source)
    lines = text.split("\n")
    return "\n".join(line for number, line in enumerate(lines, 1) if number not in drop)


# The words a request that asks for a rename and nothing else is made of, besides the two names
# and the paths: "Rename the function normalize_tags in todo/models.py to clean_tags and update
# every place that uses it."
_RENAME_ONLY = frozenset((
    "rename", "the", "a", "function", "class", "method", "helper", "in", "of", "to", "into",
    "and", "update", "change", "fix", "its", "their", "callers", "caller", "call", "calls",
    "sites", "site", "every", "all", "each", "place", "places", "that", "which", "uses", "use",
    "used", "using", "it", "usages", "usage", "references", "reference", "everywhere",
    "everything", "accordingly", "them", "also", "as", "well", "including", "module",
    "modules", "file", "files", "project", "code", "imports", "import", "exports", "__all__",
    "tests", "test",
))  # fmt: skip
# Each alternative starts where a run of its characters starts: tried inside the run too, a
# long run in the request ("a-a-a-...") took time growing with its square.
_PATH = re.compile(r"`?(?<![\w.-])[\w.-]*(?:/[\w.-]+)+`?|`?(?<![\w-])[\w-]+\.py`?")


def plain_rename(instruction: str) -> tuple[str, str] | None:
    """(old, new) of a request that asks to rename one name and nothing else; None for any
    request that asks for more (a rename and a change of behaviour is the model's to do)."""
    if not re.search(r"\brename\b", instruction, re.IGNORECASE):
        return None
    text = _PATH.sub(" ", instruction)
    words = re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text)
    names = [w for w in words if w.lower() not in _RENAME_ONLY]
    pairs = {(w, new) for w in names if (new := requested_name(instruction, w)) is not None}
    if len(pairs) != 1:
        return None
    ((old, new),) = pairs
    rest = {w.lower() for w in words} - {old.lower(), new.lower()}
    return (old, new) if rest <= _RENAME_ONLY else None
