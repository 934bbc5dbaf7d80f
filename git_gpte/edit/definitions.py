"""Placing a Python block by the definitions it holds, not by its lines.

Asked for a long module, a small model writes back the function it changed, whole, and nothing
else; asked for the whole file, it often does the same. Such a block cannot replace the file
(the rest would be lost) and is no diff either, but its definitions say where each part goes:
a top-level function or class replaces the one of the same name, a method (under its class line,
or alone) replaces the class's method of that name, a new definition is added after the last
one, a new import after the last import, a module-level assignment replaces the one of the same
name. An elision comment ("# ... existing code") between definitions loses nothing, since only
what the block holds is placed (a class with one is never replaced whole); one inside a function
means the function is not all there. Anything that cannot be placed that way refuses the whole
block, with the reason; nothing is guessed. Pure functions on text.
"""

from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field

_DEF = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_Function = ast.FunctionDef | ast.AsyncFunctionDef
# "# ... existing code ...", "# rest of the class unchanged": the block is not the definition.
# From the line's first "#" (a later one would find nothing more): tried from every "#", a
# line of them took time growing with its square.
_ELISION = re.compile(
    r"^[^#]*#.*(?:\.\.\.|…|\b(?:rest of|existing|remains? (?:the same|unchanged)|unchanged)\b)",
    re.IGNORECASE,
)


class NotPlaceable(Exception):
    """The block cannot be placed by its definitions; the message says why."""


@dataclass
class Placed:
    """The file's new text and what was done, for the report."""

    text: str
    replaced: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    unwrapped: list[str] = field(default_factory=list)
    unmarked: str = ""  # what taking off the diff markers the block copied did (see _unmarked)

    def note(self) -> str:
        parts = []
        if self.replaced:
            parts.append("replaced " + ", ".join(self.replaced))
        if self.added:
            parts.append("added " + ", ".join(self.added))
        if self.unwrapped:
            parts.append("the file's functions taken out of " + ", ".join(self.unwrapped))
        said = "the block is the file's own code, unchanged"
        if parts:
            said = "placed by its definitions: " + "; ".join(parts)
        return f"{self.unmarked}; {said}" if self.unmarked else said


@dataclass
class _Edit:
    start: int  # 0-based first line replaced (== end: an insertion before ``start``)
    end: int  # 0-based line after the last one replaced
    lines: list[str]
    order: int = 0  # among insertions at one place, the block's order
    header: bool = False  # an import or module-level name inserted after the imports


def place_definitions(current: str, block: str, request: str = "") -> Placed:
    """``current`` with the definitions of ``block`` in place (see the module docstring);
    raises :class:`NotPlaceable`. ``request`` tells which class a method written alone
    belongs to when several classes have a method of its name (see :func:`_owner_by_request`)."""
    try:
        tree = ast.parse(current)
    except (SyntaxError, ValueError) as err:
        raise NotPlaceable(f"the file does not parse ({err.__class__.__name__})") from None
    placed = Placed(current)
    code = _parse_block(_unmarked(block, current, placed), _own_comments(current))
    code = _unwrapped(code, tree, placed)
    lines = current.split("\n")
    edits: list[_Edit] = []
    for node in code.tree.body:
        edits.extend(_place(node, code, tree, lines, placed, request))
    if not placed.replaced and not placed.added:
        if code.tree.body and not edits and _all_copied(code, tree, lines):
            return placed  # the file's own code, copied: nothing to place, nothing lost
        raise NotPlaceable("the block holds no function or class of the file, nor a new one")
    edits += _spacing(edits, lines)
    for order, edit in enumerate(edits):
        edit.order = order
    for edit in sorted(edits, key=lambda e: (e.start, e.end, e.order), reverse=True):
        lines[edit.start : edit.end] = edit.lines
    text = "\n".join(lines)
    try:
        ast.parse(text)
    except (SyntaxError, ValueError):
        raise NotPlaceable("placed by its definitions, the file would not parse") from None
    placed.text = text
    return placed


def _unmarked(block: str, current: str, placed: Placed) -> str:
    """``block`` with the diff markers it copied taken off, when it does not parse and that
    makes it parse (see :mod:`git_gpte.edit.diffmarks`). A retry after a failing check shows
    the edits so far as a diff; asked for the function again, the 1.5B model wrote it with
    ``-    if not count:`` and ``+    if not count.strip():`` among its plain lines, twice,
    and both answers were refused as Python that does not parse (ratelimit/parse-rate-errors)."""
    from .diffmarks import unmark_diff
    from .wholefile import parses

    if any(parses(text) for text in (block, textwrap.dedent(block))):
        return block
    repair = unmark_diff(current, block)
    if repair is None:
        return block
    placed.unmarked = repair.detail
    return repair.text


def _unwrapped(code: _Block, tree: ast.Module, placed: Placed) -> _Block:
    """The block with each new function that only wraps the file's own functions replaced by
    them, at the top level. A small model imitated the prompt's example: the function it
    fixed nested in a ``def changed_function(argument):`` of its own, beside ``...``
    (settings/bool-case). The wrapper must be new, hold nothing but definitions, ``...``,
    ``pass`` and a docstring, and at least one of its definitions must be the file's."""
    ours = {n.name for n in tree.body if isinstance(n, _DEF)}
    spans: list[tuple[int, int, list[str]]] = []
    for node in code.tree.body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.name in ours:
            continue
        inner = [item for item in node.body if isinstance(item, _DEF)]
        rest = [item for item in node.body if not isinstance(item, _DEF)]
        if not any(item.name in ours for item in inner):
            continue
        if not all(is_docstring(item) or _is_filler(item) for item in rest):
            continue
        text: list[str] = []
        for item in inner:
            text += [*textwrap.dedent("\n".join(_source(item, code.lines))).split("\n"), "", ""]
        start, end = span(node)
        spans.append((start, end, text))
        placed.unwrapped.append(node.name)
    if not spans:
        return code
    lines = list(code.lines)
    for start, end, text in reversed(spans):
        lines[start:end] = text
    return _parse_block("\n".join(lines), code.own)


def _is_filler(node: ast.stmt) -> bool:
    """``...`` or ``pass`` standing for code left out."""
    return isinstance(node, ast.Pass) or (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and node.value.value is Ellipsis
    )


def _copied(node: ast.stmt, block: list[str], tree: ast.Module, lines: list[str]) -> bool:
    """Whether the block's statement is one of the file's as it is, or differs from it only
    in trailing white space (a copied docstring's blank line gained the indentation: minimark;
    replacing the function for that would be a change nobody asked for)."""
    dump = ast.dump(node)
    if any(ast.dump(n) == dump for n in tree.body) or _already_imported(node, tree):
        return True
    text = [line.rstrip() for line in _source(node, block)]
    return any(
        type(n) is type(node) and [line.rstrip() for line in _source(n, lines)] == text
        for n in tree.body
    )


def _already_imported(node: ast.stmt, tree: ast.Module) -> bool:
    """Whether ``node`` is an import of names the module's own imports already bind, from the
    same place: ``from dataclasses import dataclass`` over ``from dataclasses import
    dataclass, field``. Written above a copied excerpt, it was taken for the whole change,
    and an unchanged module was committed as the fix (ledger/statement-end-date)."""

    def bound(n: ast.stmt) -> set[tuple[str, int, str, str]]:
        if isinstance(n, ast.ImportFrom):
            return {(n.module or "", n.level, a.name, a.asname or a.name) for a in n.names}
        if isinstance(n, ast.Import):
            return {("", -1, a.name, a.asname or a.name) for a in n.names}
        return set()

    names = bound(node)
    return bool(names) and names <= set().union(*(bound(n) for n in tree.body))


def _all_copied(block: _Block, tree: ast.Module, lines: list[str]) -> bool:
    """Whether every statement of the block is one of the file's, unchanged (a small model
    writes back a file it was shown, as it is: that is no edit, and no error either)."""
    return all(_copied(node, block.lines, tree, lines) for node in block.tree.body)


def _spacing(edits: list[_Edit], lines: list[str]) -> list[_Edit]:
    """Blank lines after what was inserted after the imports, where code follows at once (two
    before a definition)."""
    out = []
    for at in sorted({edit.start for edit in edits if edit.header}):
        following = lines[at] if at < len(lines) else ""
        if following.strip():
            definition = following.startswith(("def ", "class ", "async def ", "@"))
            out.append(_Edit(at, at, ["", ""] if definition else [""]))
    return out


@dataclass
class _Block:
    tree: ast.Module
    lines: list[str]
    # Classes with an elision line among their members ("# ... existing code"): only the
    # members the block holds are placed, never the class whole.
    elided: frozenset[str] = frozenset()
    own: frozenset[str] = frozenset()  # the file's own comment lines (see _elided_classes)


def _parse_block(block: str, own: frozenset[str] = frozenset()) -> _Block:
    for text in (block, textwrap.dedent(block)):
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            continue
        lines = text.split("\n")
        return _Block(tree, lines, _elided_classes(lines, own), own)
    raise NotPlaceable("the block is not Python that parses")


def _own_comments(text: str) -> frozenset[str]:
    """The comment lines of ``text``, stripped: a block that copies one of them copies the
    file's code, however much it reads like an elision (more-itertools' ``# islice(..., 1,
    None) -> x_0, e, x_1, ...`` inside ``intersperse``)."""
    return frozenset(line.strip() for line in text.split("\n") if line.lstrip().startswith("#"))


def _elided_classes(lines: list[str], own: frozenset[str] = frozenset()) -> frozenset[str]:
    """The classes whose members an elision line stands between. An elision line between
    definitions (at the top level, or among a class's members) leaves nothing of theirs out:
    each definition the block holds is placed alone, and the rest of the file stays. One
    inside a function stands for code of that function, which the block then does not hold:
    :class:`NotPlaceable`. A comment line the file has (``own``) is none."""
    classes: set[str] = set()
    for number, line in enumerate(lines):
        if not _ELISION.search(line) or not line.lstrip().startswith("#"):
            continue
        if line.strip() in own:
            continue
        indent = len(line) - len(line.lstrip())
        if indent == 0:
            continue
        header = next(
            (
                above.strip()
                for above in reversed(lines[:number])
                if above.strip()
                and not above.lstrip().startswith(("#", "@"))
                and len(above) - len(above.lstrip()) < indent
            ),
            "",
        )
        match = re.match(r"class\s+(\w+)", header)
        if match is None:
            raise NotPlaceable(f"the block leaves code out ({line.strip()!r})")
        classes.add(match.group(1))
    return frozenset(classes)


_HEADER = re.compile(r"(?:@.*|class\s+\w+.*:|(?:async\s+)?def\s+\w+.*:)\s*(?:#.*)?")


def only_elided(block: str) -> str | None:
    """The elision line of a Python block that holds nothing but class or function lines and
    elision lines ("class StockLevel:" over "# ...existing code..."), else None: such a block
    changes nothing, though it does not parse. The 1.5B model wrote one for a file it did not
    need to change; refused as an excerpt, it then copied another class's method into that
    class to have something to write (inventory/low-stock-boundary)."""
    lines = [line.strip() for line in block.split("\n") if line.strip()]
    elisions = [line for line in lines if line.startswith("#") and _ELISION.search(line)]
    if not elisions or not all(line in elisions or _HEADER.fullmatch(line) for line in lines):
        return None
    return elisions[0]


def span(node: ast.stmt) -> tuple[int, int]:
    """0-based first line (its decorators included) and the line after its last."""
    first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
    return first - 1, node.end_lineno or node.lineno


def _source(node: ast.stmt, lines: list[str]) -> list[str]:
    start, end = span(node)
    return lines[start:end]


def _place(
    node: ast.stmt,
    code: _Block,
    tree: ast.Module,
    lines: list[str],
    placed: Placed,
    request: str = "",
) -> list[_Edit]:
    """Where one top-level statement of the block goes in the file."""
    block = code.lines
    if _copied(node, block, tree, lines):
        return []  # copied as it is
    if isinstance(node, _DEF):
        return _place_definition(node, code, tree, lines, placed, request)
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        placed.added.append(f"`{ast.unparse(node)}`")
        at = _after_imports(tree)
        return [_Edit(at, at, _source(node, block), header=True)]
    name = assigned_name(node)
    if name is not None:
        old = [n for n in tree.body if assigned_name(n) == name]
        if len(old) == 1:
            placed.replaced.append(name)
            start, end = span(old[0])
            return [_Edit(start, end, _source(node, block))]
        placed.added.append(name)
        at = _after_imports(tree)
        return [_Edit(at, at, ["", *_source(node, block)], header=True)]
    if _is_main_guard(node):
        old = [n for n in tree.body if _is_main_guard(n)]
        if old:
            placed.replaced.append("the __main__ block")
            start, end = span(old[0])
            return [_Edit(start, end, _source(node, block))]
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
        return []  # a docstring of the excerpt, not the module's
    raise NotPlaceable(
        f"line {node.lineno} of the block is neither a definition, an import nor an "
        "assignment: where it goes cannot be told"
    )


def _place_definition(
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef,
    code: _Block,
    tree: ast.Module,
    lines: list[str],
    placed: Placed,
    request: str = "",
) -> list[_Edit]:
    block = code.lines
    _refuse_stub(node, tree)
    old = [n for n in tree.body if isinstance(n, _DEF) and n.name == node.name]
    if len(old) > 1:
        raise NotPlaceable(f"the file defines {node.name} more than once")
    elided = isinstance(node, ast.ClassDef) and node.name in code.elided
    if elided and not old:
        raise NotPlaceable(f"the block leaves code out of the new class {node.name}")
    if old:
        target = old[0]
        if (
            isinstance(node, ast.ClassDef)
            and isinstance(target, ast.ClassDef)
            and (elided or _members(target) - _members(node) or _lacks_own_lines(node, target))
        ):
            # the class line and some of its methods: those are what changes
            return _place_members(node, block, target, lines, placed)
        placed.replaced.append(node.name)
        start, end = span(target)
        return [_Edit(start, end, _source(node, block))]
    owners = [n for n in tree.body if isinstance(n, ast.ClassDef) and node.name in _members(n)]
    if not isinstance(node, ast.ClassDef) and len(owners) > 1 and _takes_self(node):
        owners = _owner_by_request(owners, node, request)
    if not isinstance(node, ast.ClassDef) and len(owners) == 1:
        # A method written alone, without its class line.
        member = _member(owners[0], node.name)
        assert member is not None  # it is one of the class's members
        placed.replaced.append(f"{owners[0].name}.{node.name}")
        return [_replace_member(member, node, block, lines)]
    owner = _owner_of_method(node, tree)
    if owner is not None:
        # A new method written without its class line: at module level it would be a function
        # nobody can call as ``obj.name()`` (seen: ``def get_list(self, ...)`` for Settings).
        placed.added.append(f"{owner.name}.{node.name}")
        at = span(owner)[1]
        indent = _indent_of(lines[span(owner.body[-1])[0]])
        return [_Edit(at, at, ["", *_reindent(_source(node, block), node, indent)])]
    placed.added.append(node.name)
    at = _end_of_definitions(tree)
    return [_Edit(at, at, ["", "", *_source(node, block)])]


def methods_home(before: str, after: str) -> tuple[str, list[str]] | None:
    """``after`` with each new top-level function taking ``self`` (one ``before`` did not
    have) moved into its class (see :func:`_owner_of_method`), and the names moved; None
    when there is none. A whole file written back with ``def __repr__(self)`` at its end, at
    module level (ratelimit/limiter-repr): nobody could call it as a method there."""
    try:
        old_tree, tree = ast.parse(before), ast.parse(after)
    except (SyntaxError, ValueError):
        return None
    had = {n.name for n in old_tree.body if isinstance(n, _DEF)}
    lines = after.split("\n")
    edits: list[_Edit] = []
    names: list[str] = []
    for node in tree.body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.name in had:
            continue
        owner = _owner_of_method(node, tree)
        if owner is None or node.name in _members(owner):
            continue
        indent = _indent_of(lines[span(owner.body[-1])[0]])
        try:
            method = _reindent(_source(node, lines), node, indent)
        except NotPlaceable:
            continue
        home, (start, end) = span(owner)[1], span(node)
        while start > home and not lines[start - 1].strip():
            start -= 1  # the blank lines that set it apart go with it
        edits += [_Edit(start, end, []), _Edit(home, home, ["", *method])]
        names.append(node.name)
    if not names:
        return None
    for edit in sorted(edits, key=lambda e: (e.start, e.end), reverse=True):
        lines[edit.start : edit.end] = edit.lines
    moved = "\n".join(lines)
    try:
        ast.parse(moved)
    except (SyntaxError, ValueError):
        return None
    return moved, names


def _owner_by_request(
    owners: list[ast.ClassDef], node: ast.FunctionDef | ast.AsyncFunctionDef, request: str
) -> list[ast.ClassDef]:
    """The one class of ``owners`` (several, each with a method named as ``node``, which
    takes ``self``) that ``node`` is written for: the only one the request names, or else
    the only one whose code knows every ``self.attribute`` it uses. Raises
    :class:`NotPlaceable` when neither tells: at module level the function would be one
    nobody calls. Seen: asked that ``Cache.__init__`` refuse a negative size, the 1.5B model
    wrote ``def __init__(self, maxsize, ...)`` alone, in a module of seven classes with an
    ``__init__``, and it was added as a function at the module's end."""
    named = [c for c in owners if re.search(rf"(?<!\w){re.escape(c.name)}\b", request)]
    if len(named) == 1:
        return named
    knowing = _knowing(owners, node)
    if len(knowing) == 1:
        return knowing
    classes = ", ".join(c.name for c in owners[:4]) + (", ..." if len(owners) > 4 else "")
    raise NotPlaceable(
        f"{node.name}(self, ...) is a method of several classes of the file ({classes}): "
        "write it under its class line"
    )


def _owner_of_method(node: ast.stmt, tree: ast.Module) -> ast.ClassDef | None:
    """The class a new function taking ``self`` first belongs to: the file's only class, or
    the only one whose code knows every ``self.attribute`` the function uses. None for
    anything else."""
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    params = [*node.args.posonlyargs, *node.args.args]
    if not params or params[0].arg != "self":
        return None
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    if len(classes) <= 1:
        return classes[0] if classes else None
    knowing = _knowing(classes, node)
    return knowing[0] if len(knowing) == 1 else None


def _knowing(classes: list[ast.ClassDef], node: ast.AST) -> list[ast.ClassDef]:
    """The classes whose code knows every ``self.attribute`` ``node`` uses (none when it uses
    none)."""
    used = _self_attributes(node)
    return [c for c in classes if used and used <= _self_attributes(c) | _members(c)]


def _self_attributes(node: ast.AST) -> set[str]:
    """The ``X`` of every ``self.X`` in ``node``."""
    return {
        n.attr
        for n in ast.walk(node)
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self"
    }


def _place_members(
    node: ast.ClassDef, block: list[str], target: ast.ClassDef, lines: list[str], placed: Placed
) -> list[_Edit]:
    """A class line with some of its methods: each replaces the method of that name, a new one
    goes after the class's last statement."""
    edits = []
    for item in node.body:
        if isinstance(item, _DEF):
            _refuse_stub(item, target)
            member = _member(target, item.name)
            if member is not None:
                placed.replaced.append(f"{node.name}.{item.name}")
                edits.append(_replace_member(member, item, block, lines))
                continue
            placed.added.append(f"{node.name}.{item.name}")
            at = span(target)[1]
            indent = _indent_of(lines[span(target.body[-1])[0]])
            edits.append(_Edit(at, at, ["", *_reindent(_source(item, block), item, indent)]))
        elif not any(ast.dump(item) == ast.dump(mine) for mine in target.body):
            edits.extend(_place_field(item, node, block, target, lines, placed))
    return edits


def _place_field(
    item: ast.stmt,
    node: ast.ClassDef,
    block: list[str],
    target: ast.ClassDef,
    lines: list[str],
    placed: Placed,
) -> list[_Edit]:
    """A class-level statement of a class written in part: an attribute (a dataclass field)
    replaces the one of its name or follows the last one; a docstring is the excerpt's."""
    if is_docstring(item):
        return []
    name = assigned_name(item)
    if name is None:
        raise NotPlaceable(
            f"line {item.lineno} of the block changes {node.name} outside its methods and "
            "attributes: write the class whole"
        )
    old = [mine for mine in target.body if assigned_name(mine) == name]
    if len(old) == 1:
        placed.replaced.append(f"{node.name}.{name}")
        return [_replace_member(old[0], item, block, lines)]
    fields = [mine for mine in target.body if assigned_name(mine) is not None]
    after = fields[-1] if fields else target.body[0]
    # after the last attribute, else after the docstring, else first in the class
    at = span(after)[1] if fields or is_docstring(after) else span(after)[0]
    placed.added.append(f"{node.name}.{name}")
    indent = _indent_of(lines[span(target.body[0])[0]])
    return [_Edit(at, at, _reindent(_source(item, block), item, indent))]


def _replace_member(member: ast.stmt, item: ast.stmt, block: list[str], lines: list[str]) -> _Edit:
    start, end = span(member)
    indent = _indent_of(lines[start])
    return _Edit(start, end, _reindent(_source(item, block), item, indent))


def _reindent(source: list[str], node: ast.stmt, indent: str) -> list[str]:
    """The lines of ``node`` moved from its own indentation to ``indent``."""
    own = _indent_of(source[0]) if source else ""
    out = []
    for line in source:
        if not line.strip():
            out.append("")
        elif line.startswith(own):
            out.append(indent + line[len(own) :])
        else:
            raise NotPlaceable(f"the lines of {getattr(node, 'name', 'a method')} are indented "
                               "unevenly")  # fmt: skip
    return out


def _indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _members(node: ast.ClassDef) -> set[str]:
    return {item.name for item in node.body if isinstance(item, _DEF)}


def _lacks_own_lines(node: ast.ClassDef, target: ast.ClassDef) -> bool:
    """Whether a class written with the file's methods and no others leaves out its docstring
    or an attribute: it is then the class line and methods, as a retry shows a class (see
    definitions_at), and placing it whole would delete what it leaves out. (A class written
    with new methods too is a class rewritten: a dataclass turned into a plain class.)"""
    if _members(node) - _members(target):
        return False
    if is_docstring(target.body[0]) and not is_docstring(node.body[0]):
        return True
    fields = {name for item in target.body if (name := assigned_name(item)) is not None}
    return bool(fields - {name for item in node.body if (name := assigned_name(item)) is not None})


def _member(node: ast.ClassDef, name: str) -> ast.stmt | None:
    found = [item for item in node.body if isinstance(item, _DEF) and item.name == name]
    if len(found) > 1:
        raise NotPlaceable(f"{node.name} defines {name} more than once")
    return found[0] if found else None


def _refuse_stub(node: ast.stmt, scope: ast.Module | ast.ClassDef) -> None:
    """A definition whose body is only ``...`` or ``pass`` where the file's has more is a
    placeholder, not a change."""
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return
    if not is_stub(node):
        return
    old = [n for n in ast.walk(scope) if isinstance(n, _DEF) and n.name == node.name]
    if old and not is_stub(old[0]):
        raise NotPlaceable(f"{node.name} is written as a placeholder, its body left out")


def is_stub(node: ast.stmt) -> bool:
    """A function whose body (past its docstring) is only ``...`` or ``pass``."""
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    body = [s for s in node.body if not is_docstring(s)]
    return all(
        isinstance(s, ast.Pass)
        or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and s.value.value is ...)
        for s in body
    )


def parameter_names(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Every parameter a function names, ``*args`` and ``**kwargs`` too, but ``self`` and
    ``cls``: the inputs a check on a call may test."""
    arguments = function.args
    found = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    found += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
    return {a.arg for a in found} - {"self", "cls"}


def is_docstring(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def assigned_name(node: ast.stmt) -> str | None:
    """The one name a module-level assignment binds, else None."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
    elif isinstance(node, ast.AnnAssign):
        target = node.target
    else:
        return None
    return target.id if isinstance(target, ast.Name) else None


def _is_main_guard(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.If)
        and isinstance(node.test, ast.Compare)
        and isinstance(node.test.left, ast.Name)
        and node.test.left.id == "__name__"
    )


def _after_imports(tree: ast.Module) -> int:
    """Where a new import or module-level name goes: after the last import, else after the
    module's docstring, else first."""
    imports = [span(n)[1] for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    if imports:
        return max(imports)
    if tree.body and is_docstring(tree.body[0]):
        return span(tree.body[0])[1]
    return 0


def _end_of_definitions(tree: ast.Module) -> int:
    """Where a new definition goes: after the last one, before a ``__main__`` block."""
    ends = [span(n)[1] for n in tree.body if not _is_main_guard(n)]
    return max(ends, default=0)


# A request that may want a new module: then a block under a new path is what it says.
_NEW_MODULE = re.compile(
    r"\b(?:new|create\w*|add\w*\s+(?:a|the)\s+(?:module|file)|mov\w*|split\w*|extract\w*)\b",
    re.IGNORECASE,
)


def home_of_definitions(path: str, block: str, request: str, files: dict[str, str]) -> str | None:
    """The one file of ``files`` (path -> text: those the model was shown) that already
    defines every function and class of ``block``, a block the reply put under ``path``, a
    file that does not exist; None when there is no such single file, the block defines
    nothing, or the request may want a new module (it names ``path``'s file, or speaks of
    a new file, creating, moving, splitting or extracting). Seen: ``export_csv`` of
    ``ledger/accounts.py`` written under ``ledger/export_csv.py``, its helpers undefined."""
    name = path.rsplit("/", 1)[-1]
    if _NEW_MODULE.search(request) or name in request:
        return None
    try:
        tree = ast.parse(textwrap.dedent(block))
    except (SyntaxError, ValueError):
        return None
    names = {node.name for node in tree.body if isinstance(node, _DEF)}
    return _single_home(names, files, path) if names else None


def split_by_home(
    path: str, block: str, request: str, files: dict[str, str]
) -> dict[str, str] | None:
    """``block``, put under ``path``, a file that does not exist, as blocks for the files of
    ``files`` (those the model was shown) that define its definitions and module-level
    assignments, each going to the one file defining its name, its imports with each; None
    when it holds anything else, a name no single file defines, fewer than two homes, or the
    request may want a new module (see home_of_definitions). Seen: ``Task`` of
    ``todo/models.py`` and ``TaskStore`` and ``UPDATABLE`` of ``todo/storage.py`` written
    together under the prompt's example path ``path/to/file.py`` (todo/notes-field)."""
    name = path.rsplit("/", 1)[-1]
    if _NEW_MODULE.search(request) or name in request:
        return None
    text = textwrap.dedent(block)
    tree = parse_or_none(text)
    if tree is None:
        return None
    defined: dict[str, set[str]] = {}
    for other, source in sorted(files.items()):
        known = parse_or_none(source) if other.endswith(".py") and other != path else None
        if known is not None:
            names = {n for node in known.body if (n := _definition_name(node))}
            defined[other] = names
    lines = text.split("\n")
    imports: list[str] = []
    parts: dict[str, list[str]] = {}
    for node in tree.body:
        start, end = span(node)
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imports += lines[start:end]
            continue
        own = _definition_name(node)
        homes = [other for other, names in defined.items() if own in names] if own else []
        if len(homes) != 1:
            return None
        parts.setdefault(homes[0], []).extend(["", "", *lines[start:end]])
    if len(parts) < 2:
        return None
    return {home: "\n".join([*imports, *body]).strip("\n") + "\n" for home, body in parts.items()}


def _definition_name(node: ast.stmt) -> str | None:
    """The name a top-level function, class or one-name assignment defines."""
    return node.name if isinstance(node, _DEF) else assigned_name(node)


def home_of_imported(path: str, block: str, current: str, files: dict[str, str]) -> str | None:
    """The one other file of ``files`` that defines every function and class of ``block``, a
    block of definitions (and imports) the reply put under ``path``, an existing module whose
    text ``current`` imports each of those names and defines none: written there, they would
    shadow the import, which no request means. Seen: ``export_csv`` of ``ledger/accounts.py``
    written, right, under ``ledger/__init__.py``, which re-exports it."""
    tree = _definitions_only(block)
    try:
        here = ast.parse(current)
    except (SyntaxError, ValueError):
        return None
    if tree is None:
        return None
    names = {node.name for node in tree.body if isinstance(node, _DEF)}
    defined = {node.name for node in here.body if isinstance(node, _DEF)}
    if not names or not names <= _imported(here) or names & (defined | _imported(tree)):
        return None
    return _single_home(names, files, path)


def home_of_block(block: str, files: dict[str, str]) -> str | None:
    """The one file of ``files`` that defines every function and class of ``block``, a block
    of definitions (and imports) written with no path at all, beside several files shown.
    Seen: ``class SlidingWindowLimiter`` fixed under "### New Code" (ratelimit/window-boundary),
    no usable edit though one file defines it."""
    tree = _definitions_only(block)
    names = {node.name for node in tree.body if isinstance(node, _DEF)} if tree else set()
    return _single_home(names, files, "") if names else None


def home_of_methods(path: str, block: str, current: str, files: dict[str, str]) -> str | None:
    """The one other file of ``files`` whose one class has every function of ``block`` as a
    method, when the block, put under ``path`` (whose text is ``current``), holds only
    functions taking ``self`` that ``path`` neither defines nor has a class for. Seen:
    ``Ledger.transfer`` written as ``def transfer(self, …)`` under ``ledger/__init__.py``, which
    only imports ``Ledger``; there, ``self`` and its helpers were undefined."""
    tree = _definitions_only(block)
    try:
        here = ast.parse(current)
    except (SyntaxError, ValueError):
        return None
    if tree is None or not tree.body:
        return None
    functions = [n for n in tree.body if isinstance(n, _DEF[:2])]
    if len(functions) != len(tree.body) or not all(_takes_self(f) for f in functions):
        return None
    names = {f.name for f in functions}
    if names & (_top_level_names(here) | _method_names(here)):
        return None
    homes = []
    for other, text in sorted(files.items()):
        if other == path or not other.endswith(".py"):
            continue
        try:
            classes = [n for n in ast.parse(text).body if isinstance(n, ast.ClassDef)]
        except (SyntaxError, ValueError):
            continue
        homes += [other for c in classes if names <= _members(c)]
    return homes[0] if len(homes) == 1 else None


def _takes_self(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return bool(node.args.args) and node.args.args[0].arg == "self"


def _top_level_names(tree: ast.Module) -> set[str]:
    return {n.name for n in tree.body if isinstance(n, _DEF)} | _imported(tree)


def _method_names(tree: ast.Module) -> set[str]:
    return {name for n in tree.body if isinstance(n, ast.ClassDef) for name in _members(n)}


def _definitions_only(block: str) -> ast.Module | None:
    """``block`` parsed, when it holds only functions, classes and imports."""
    try:
        tree = ast.parse(textwrap.dedent(block))
    except (SyntaxError, ValueError):
        return None
    kinds = (*_DEF, ast.Import, ast.ImportFrom)
    return tree if all(isinstance(n, kinds) for n in tree.body) else None


def _imported(tree: ast.Module) -> set[str]:
    """The names a module's top-level ``from ... import`` statements bind."""
    return {
        alias.asname or alias.name
        for node in tree.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }


def _single_home(names: set[str], files: dict[str, str], path: str) -> str | None:
    """The one Python file of ``files`` other than ``path`` that defines all ``names``."""
    homes = []
    for other, text in sorted(files.items()):
        if not other.endswith(".py") or other == path:
            continue
        try:
            defined = {node.name for node in ast.parse(text).body if isinstance(node, _DEF)}
        except (SyntaxError, ValueError):
            continue
        if names <= defined:
            homes.append(other)
    return homes[0] if len(homes) == 1 else None


def requested_definitions(text: str, request: str) -> str:
    """The definitions of a module that the request names (``Polygon.area`` or ``area``: the
    method under its class line; ``parse_rate``: the function; ``Circle``: the class), as one
    block the definitions reader places; "" when it names none or the module does not parse.

    What a retry shows a model that copied a whole file back unchanged: the 1.5B model wrote a
    280-line module back twice as it was when asked to fix ``Polygon.area`` (geometry); shown
    only the definitions it had picked, it made such changes at once."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return ""
    words = set(re.findall(r"[A-Za-z_]\w*", request))
    classes = {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
    # "Polygon.area" names one class's method, not every ``area``.
    pairs = {p for p in re.findall(r"\b([A-Za-z_]\w*)\.([A-Za-z_]\w*)", request) if p[0] in classes}
    lines = text.split("\n")

    def source(node: ast.stmt) -> str:
        return "\n".join(_source(node, lines))

    blocks = []
    for node in tree.body:
        if isinstance(node, _DEF[:2]) and node.name in words:
            blocks.append(source(node))
        elif isinstance(node, ast.ClassDef):
            methods = [
                m
                for m in node.body
                if isinstance(m, _DEF[:2])
                and ((node.name, m.name) in pairs if pairs else m.name in words)
            ]
            if methods:
                header = "\n".join(lines[node.lineno - 1 : node.body[0].lineno - 1]).rstrip()
                blocks.append(header + "\n" + "\n\n".join(source(m) for m in methods))
            elif node.name in words:
                blocks.append(source(node))
    return "\n\n\n".join(blocks)


@dataclass(frozen=True)
class Around:
    """The definitions holding some lines of a module, as one block the definitions reader
    places (a method under its class line), and the name of the one holding each line."""

    block: str
    names: dict[int, str]


def definitions_changed(before: str, after: str) -> Around | None:
    """The functions, methods and assignments of ``after`` holding lines that differ from
    ``before`` (see definitions_at; a changed class attribute brings its class's attribute
    block); None when none changed or ``after`` does not parse. Other changes (an import
    added) are left out: they stay as they are.

    Assignments count because a request that adds a field changes a dataclass's fields, and
    often a schema string, as well as methods: shown the changed methods but not the new
    field, the 1.5B model wrote a property of that name into the class (todo/notes-field)."""
    changed = changed_lines(before, after)
    try:
        tree = ast.parse(after)
    except (SyntaxError, ValueError):
        return None
    count = after.count("\n") + 1
    inside = {
        line for line in changed if line <= count and _holder_or_attribute(tree, line) is not None
    }
    return definitions_at(after, inside, fields=True) if inside else None


def changed_lines(before: str, after: str) -> set[int]:
    """The lines of ``after`` (1-based) that differ from ``before``; a deletion marks the line
    after it (so the definition it was cut from counts as changed)."""
    import difflib

    old, new = before.split("\n"), after.split("\n")
    changed: set[int] = set()
    for tag, _, _, start, end in difflib.SequenceMatcher(None, old, new).get_opcodes():
        if tag != "equal":
            changed.update(range(start + 1, max(end, start + 1) + 1))
    return changed


def definitions_at(text: str, lines: Collection[int], *, fields: bool = False) -> Around | None:
    """The functions and methods of a module that hold ``lines`` (1-based), with the module's
    simple assignments they use (``logger = logging.getLogger(__name__)``) above them; None
    when the module does not parse or a line lies outside every function and method (an import,
    a class's own body), where no definition alone can fix it. With ``fields``, a line may
    also lie in a module-level assignment (shown whole) or a class attribute (shown with its
    class line and the class's other attributes), which the definitions reader places by name.

    What a retry shows when what is left to fix lies inside a few definitions: shown its whole
    file again, numbered, the 1.5B model began copying it line by line and was cut at once
    (inventory/store-logging, csvreport/sort-option), while shown only the definitions
    concerned it made such changes (settings/bool-case)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    source = text.split("\n")
    holders: dict[int, tuple[ast.ClassDef | None, ast.stmt]] = {}
    for line in lines:
        found = _holder_or_attribute(tree, line) if fields else _holder(tree, line)
        if found is None:
            return None
        holders[line] = found
    chosen = _with_attribute_blocks(list(holders.values()))
    parts: list[str] = []
    previous: ast.stmt | None = None
    for owner, node in chosen:
        body = "\n".join(_source(node, source))
        if owner is None:
            parts.append(body)
        elif parts and previous is not None and previous in owner.body:
            # the next member of the same class: attributes one to a line, methods spaced
            both = assigned_name(previous) is not None and assigned_name(node) is not None
            parts[-1] += ("\n" if both else "\n\n") + body
        else:
            top = min([owner.lineno, *(d.lineno for d in owner.decorator_list)])
            header = "\n".join(source[top - 1 : owner.body[0].lineno - 1]).rstrip()
            parts.append(header + "\n" + body)
        previous = node
    used = {node.id for _, held in chosen for node in ast.walk(held) if isinstance(node, ast.Name)}
    shown = {node for _, node in chosen}
    assigned = [
        "\n".join(_source(node, source))
        for node in tree.body
        if (name := assigned_name(node)) is not None
        and name in used
        and node.end_lineno == node.lineno
        and node not in shown
    ]
    names = {
        line: f"{owner.name}.{_definition_name(node)}" if owner else str(_definition_name(node))
        for line, (owner, node) in holders.items()
    }
    block = "\n\n\n".join(parts)
    return Around("\n".join(assigned) + "\n\n\n" + block if assigned else block, names)


def functions_in(text: str, ranges: Iterable[tuple[int, int]]) -> Around | None:
    """The functions and methods of a module that lie in ``ranges`` (1-based, inclusive: a
    context selection's excerpts), as :func:`definitions_at` gives them; None when no range
    holds one or the module does not parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    lines = {
        line
        for start, end in ranges
        for line in range(start, end + 1)
        if _holder(tree, line) is not None
    }
    return definitions_at(text, lines) if lines else None


def local_homes(text: str, name: str, outside: int) -> list[tuple[str, int]]:
    """The functions and methods of a module (qualified name, first line) that bind ``name``
    as a local of their own, other than the one holding line ``outside``.

    A small model copies a loop out of another function without the variable it fills (the
    1.5B model wrote ``found[key] = ...`` into ``load_settings``, ``found`` being
    ``read_environ``'s): shown the function the name belongs to, it can call it instead, or
    change it, rather than guess (settings/env-prefix)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    homes = []
    for owner, node in top_functions(tree):
        start, end = span(node)
        if start < outside <= end:
            continue
        arguments = node.args
        params = {a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]}
        stored = {
            n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        }
        if name in params | stored:
            qualified = f"{owner.name}.{node.name}" if owner is not None else node.name
            homes.append((qualified, node.lineno))
    return homes


def assigned_before(before: str, after: str, name: str, line: int) -> tuple[str, str] | None:
    """The function (qualified name) holding ``line`` of ``after`` and the first statement of
    its version in ``before`` that assigned ``name`` (one line, stripped), when the function
    used to set the name and the edit dropped that: the 1.5B model rewrote ``parse_rate``
    without ``seconds = UNITS[unit]`` and returned ``seconds`` all the same, three times
    (ratelimit/parse-rate-errors). None otherwise."""
    old, new = parse_or_none(before), parse_or_none(after)
    if old is None or new is None:
        return None
    held = _holder(new, line)
    if held is None:
        return None
    owner, function = held
    qualified = f"{owner.name}.{function.name}" if owner is not None else function.name
    for old_owner, old_function in top_functions(old):
        if (old_owner.name if old_owner else None, old_function.name) != (
            owner.name if owner else None,
            function.name,
        ):
            continue
        lines = before.split("\n")
        for node in ast.walk(old_function):
            if not isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                continue
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            named = any(isinstance(t, ast.Name) and t.id == name for t in targets)
            if named and node.lineno == node.end_lineno:
                return qualified, lines[node.lineno - 1].strip()
    return None


def written_blind(block: str, current: str, shown: Collection[str]) -> tuple[str, list[str]]:
    """``block`` without its top-level definitions and assignments that ``current`` has and
    that are not among the names ``shown``, and those names.

    A retry in a new conversation shows only some definitions ("the rest of the file stays as
    it is"); what else the answer writes of the file, it writes without having seen it. The
    1.5B model wrote ``DEFAULTS``, ``normalize_key`` and ``key_from_env`` of its own under
    "This part of the code remains unchanged" (settings/env-prefix), and a ``namedtuple`` in
    place of an exception class it was not shown (ratelimit/decorator-logging). New names and
    imports are the answer's own and stay. A block that does not parse is left whole."""
    tree, had = parse_or_none(block), parse_or_none(current)
    if tree is None or had is None:
        return block, []
    existing = _top_level_names(had) | {n for node in had.body if (n := assigned_name(node))}
    lines = block.split("\n")
    cut: list[tuple[int, int]] = []
    names: list[str] = []
    for node in tree.body:
        name = node.name if isinstance(node, _DEF) else assigned_name(node)
        if name is None or name in shown or name not in existing:
            continue
        cut.append(span(node))
        names.append(name)
    for start, end in reversed(cut):
        del lines[start:end]
    return "\n".join(lines), names


def parse_or_none(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):
        return None


def shown_names(block: str) -> set[str]:
    """The top-level names a block of definitions shows (functions, classes, assignments)."""
    tree = parse_or_none(textwrap.dedent(block))
    if tree is None:
        return set()
    return {
        n
        for node in tree.body
        if (n := node.name if isinstance(node, _DEF) else assigned_name(node))
    }


def function_names(block: str) -> set[str]:
    """The functions a block of definitions shows, a method as ``Class.method``."""
    tree = parse_or_none(textwrap.dedent(block))
    if tree is None:
        return set()
    return {f"{c.name}.{f.name}" if c else f.name for c, f in top_functions(tree)}


def top_functions(tree: ast.Module) -> list[tuple[ast.ClassDef | None, _Function]]:
    """The top-level functions and the methods of top-level classes."""
    out: list[tuple[ast.ClassDef | None, _Function]] = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.append((None, node))
        elif isinstance(node, ast.ClassDef):
            out += [
                (node, member)
                for member in node.body
                if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef))
            ]
    return out


def _holder(tree: ast.Module, line: int) -> tuple[ast.ClassDef | None, _Function] | None:
    """The top-level function, or the method under its class, whose lines hold ``line``."""
    found = _holder_or_attribute(tree, line)
    if found is None or not isinstance(found[1], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    return found[0], found[1]


def _holder_or_attribute(
    tree: ast.Module, line: int
) -> tuple[ast.ClassDef | None, ast.stmt] | None:
    """As _holder, or else the module-level assignment or class attribute holding ``line``."""
    for node in tree.body:
        start, end = span(node)
        if not start < line <= end:
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or assigned_name(node):
            return None, node
        if isinstance(node, ast.ClassDef):
            for member in node.body:
                first, last = span(member)
                if first < line <= last and (
                    isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef))
                    or assigned_name(member)
                ):
                    return node, member
        return None
    return None


def _with_attribute_blocks(
    found: list[tuple[ast.ClassDef | None, ast.stmt]],
) -> list[tuple[ast.ClassDef | None, ast.stmt]]:
    """``found`` in the order of the file, each once, and with every attribute of a class one
    of whose attributes is there: a field shown alone hides the order the others give."""
    chosen: list[tuple[ast.ClassDef | None, ast.stmt]] = []
    for owner, node in found:
        members = [node]
        if owner is not None and assigned_name(node) is not None:
            members = [m for m in owner.body if assigned_name(m) is not None]
        chosen.extend((owner, m) for m in members if (owner, m) not in chosen)
    return sorted(chosen, key=lambda pair: pair[1].lineno)
