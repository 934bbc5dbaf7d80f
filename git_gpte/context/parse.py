"""One file's text -> its record in the index: chunks, definitions, imports, terms.

Chunks partition the file into pieces that can be sent on their own without cutting a
definition in half: a module header (docstring, imports, constants before the first
definition), each top-level function or class, and for a large class or impl block its own
header (the declaration, docstring and attributes) and each member; a long top-level statement
holding definitions (``if PY2:``, ``try:`` ... ``except ImportError:``, ``#ifdef``) likewise
(its opening lines, then each definition); a long function or method likewise (its head:
decorators, signature, docstring and first statements; then blocks of its body's statements,
"parts" whose parent is the head). Blank lines and comments
above a definition belong to it (an insertion just before a function lands in that function's
chunk). Statements between definitions join the next definition when short, or form blocks of
their own. Languages without a tree-sitter grammar here are cut into paragraphs.

tree-sitter is imported only here, and only when a file is parsed.
"""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypedDict

from . import terms as T
from .generated import generator_named
from .languages import SPECS, LanguageSpec, language_of
from .tokens import count_pieces

if TYPE_CHECKING:  # types only: tree-sitter itself is imported when a file is parsed
    from tree_sitter import Node, Parser

# A class/impl/module (or a statement holding definitions) longer than this is split into its
# header and members.
SPLIT_CONTAINER_LINES = 40
# Statements between definitions longer than this (non-blank lines) stand as a block.
GAP_BLOCK_LINES = 12
# A module header longer than this keeps the imports apart from the rest.
HEADER_SPLIT_LINES = 60
# Blocks of top-level statements are grouped up to this many lines.
BLOCK_LINES = 40
# How deep inside a top-level statement definitions are looked for: ``if WIN:`` / ``try:`` /
# ``else:`` / ``def`` is five levels of the syntax tree (at 3, such functions were left in one
# chunk with whatever came before the next definition found).
NESTED_DEPTH = 6
# A function or method longer than this is cut into parts at its body's statements: its head
# (decorators, signature, docstring, the first statements) and blocks of about BLOCK_LINES
# lines, each sent with the head's signature line. Taken whole or not at all, a 2-13 kB
# function did not fit a small budget beside the rest, or took a third of it for a change of
# three lines (bench/context_pack_sim.py: the near misses of the pool at 4k and 8k).
SPLIT_DEFINITION_LINES = 80
# A statement longer than SPLIT_DEFINITION_LINES (a table) is cut at the entries of the list
# it holds, found this many levels of the syntax tree down at most (``var x = map[..]..{``:
# declaration, spec, composite literal, literal value; or nested this deep).
ELEMENT_DEPTH = 4
# The syntax nodes whose entries a long table is cut at: Go's literal values, JavaScript's and
# TypeScript's arrays and objects, Python's lists, tuples, sets and dicts.
TABLE_NODES = frozenset({"literal_value", "array", "object", "list", "tuple", "set", "dictionary"})
# Paragraph chunks of text files.
TEXT_CHUNK_LINES = 40
# Larger files are chunked as text: parsing them buys little and costs time.
PARSE_MAX_BYTES = 1_000_000


@dataclass
class Chunk:
    """A contiguous run of lines (1-based, inclusive) that is sent whole or not at all."""

    start: int
    end: int
    kind: str  # header, function, class, method, block, text, ...
    name: str  # qualified: "Session.send"; "" for headers and blocks
    parent: int | None  # index of the enclosing container's header chunk
    signature: str  # the definition's first line, trimmed
    line: int  # the line of that definition (0 for headers and blocks)
    nbytes: int
    terms: dict[str, int]
    idents: list[str] = field(default_factory=list)
    pieces: int = 0  # tokens.count_pieces of its text: what it costs in o200k tokens


# A chunk as the index stores it: Chunk's fields in order (a JSON array).
ChunkRow = tuple[int, int, str, str, int | None, str, int, int, dict[str, int], list[str], int]


class FileRecordJson(TypedDict):
    """A FileRecord as the index stores it (compressed JSON)."""

    lang: str | None
    lines: int
    nbytes: int
    imports: list[str]
    defs: list[tuple[str, int]]
    terms: dict[str, int]
    pieces: int
    chunks: list[ChunkRow]
    generator: str | None


@dataclass
class FileRecord:
    """What the index keeps for one blob."""

    lang: str | None
    lines: int
    nbytes: int
    chunks: list[Chunk]
    imports: list[str]
    defs: list[tuple[str, int]]  # (simple name, chunk index)
    terms: dict[str, int]
    pieces: int = 0
    # The file its first lines say generated it, as they name it (generated.py).
    generator: str | None = None

    def to_json(self) -> FileRecordJson:
        return {
            "lang": self.lang,
            "lines": self.lines,
            "nbytes": self.nbytes,
            "imports": self.imports,
            "defs": self.defs,
            "terms": self.terms,
            "pieces": self.pieces,
            "chunks": [
                (
                    c.start,
                    c.end,
                    c.kind,
                    c.name,
                    c.parent,
                    c.signature,
                    c.line,
                    c.nbytes,
                    c.terms,
                    c.idents,
                    c.pieces,
                )
                for c in self.chunks
            ],
            "generator": self.generator,
        }

    @classmethod
    def from_json(cls, data: FileRecordJson) -> FileRecord:
        return cls(
            lang=data["lang"],
            lines=data["lines"],
            nbytes=data["nbytes"],
            imports=list(data["imports"]),
            defs=[(str(n), int(i)) for n, i in data["defs"]],
            terms=dict(data["terms"]),
            pieces=int(data["pieces"]),
            chunks=[Chunk(*row) for row in data["chunks"]],
            generator=data["generator"],
        )


def split_lines(text: str) -> list[str]:
    """Lines as git numbers them: split on newline, no phantom line after a final newline."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


# What a variable or a property is given that makes it a definition (JavaScript, TypeScript).
_FUNCTION_VALUES = frozenset(
    {"arrow_function", "function_expression", "function", "generator_function", "class"}
)


@functools.cache
def _parser(lang: str) -> Parser | None:
    try:
        from tree_sitter_language_pack import get_parser

        return get_parser(lang)  # type: ignore[arg-type]
    except Exception:  # grammar missing or not loadable: fall back to lexical chunks
        return None


@dataclass
class _Unit:
    start: int  # first line, including attached comments/decorators
    end: int
    kind: str
    name: str
    signature: str
    line: int
    members: list[_Unit]
    # Line spans of the body's statements, for a long definition cut into parts (see
    # SPLIT_DEFINITION_LINES); empty for any other.
    parts: list[tuple[int, int]] = field(default_factory=list)


def _node_name(node: Node, spec: LanguageSpec) -> str:
    name = node.child_by_field_name("name")
    if name is None and node.type == "impl_item":
        name = node.child_by_field_name("type")
    if name is None and node.type == "assignment_expression":
        return _assigned_name(node)
    if name is None and node.type == "type_declaration":
        for child in node.named_children:
            if child.type == "type_spec":
                name = child.child_by_field_name("name")
                break
    if name is None:
        decl = node.child_by_field_name("declarator")
        while decl is not None and decl.child_by_field_name("declarator") is not None:
            decl = decl.child_by_field_name("declarator")
        name = decl
    if name is None:
        return ""
    text = name.text.decode("utf-8", "replace") if name.text else ""
    return text.split("::")[-1].split(".")[-1].strip()


def _assigned_name(node: Node) -> str:
    """The name a function assigned to a property is known by: ``send`` of ``res.send = ...``
    and of ``Foo.prototype.send = ...``; none for ``module.exports = function ...``, which
    often wraps the whole module in one statement that no excerpt could then cut."""
    left = node.child_by_field_name("left")
    target = left.child_by_field_name("property") if left is not None else None
    if target is None or not target.text or target.text == b"exports":
        return ""
    return target.text.decode("utf-8", "replace")


def _definition(node: Node, spec: LanguageSpec) -> tuple[Node, str, str] | None:
    """(definition node, kind, name) when ``node`` is or wraps a definition."""
    if node.type in spec.wrappers:
        for child in node.named_children:
            found = _definition(child, spec)
            if found is not None:
                return found
        return None
    kind = spec.definitions.get(node.type)
    if kind is None:
        return None
    if node.type in ("variable_declarator", "assignment_expression"):
        value = node.child_by_field_name("value") or node.child_by_field_name("right")
        if value is None or value.type not in _FUNCTION_VALUES:
            return None
    bodiless = node.child_by_field_name("body") is None
    if bodiless and node.type in (
        "struct_specifier",
        "enum_specifier",
        "union_specifier",
        "class_specifier",
    ):
        return None
    name = _node_name(node, spec)
    if not name:
        return None
    return node, kind, name


def _members(node: Node, spec: LanguageSpec, depth: int = 0) -> list[Node]:
    """Definitions directly inside a container (through its body node)."""
    found: list[Node] = []
    for child in node.named_children:
        if _definition(child, spec) is not None:
            found.append(child)
        elif (
            depth < 2
            and child.named_child_count
            and (child.type.endswith(("body", "block", "declaration_list", "body_statement")))
        ):
            found.extend(_members(child, spec, depth + 1))
    return found


def _line_span(node: Node) -> tuple[int, int]:
    """A node's first and last line, 1-based; a node that ends at the start of a line (after its
    newline) ends on the line before."""
    start = node.start_point[0] + 1
    end = node.end_point[0] + 1
    if node.end_point[1] == 0 and end > start:
        end -= 1
    return start, end


def _statement_spans(node: Node, depth: int = 0) -> list[tuple[int, int]]:
    """A statement's line span; for a long one (a table: a slice literal of 1,400 lines of
    translations, a map of 170 validators) the spans of the elements of the longest list it
    holds, so that it is cut into blocks as a long function is and a change to one entry
    needs only that entry's block."""
    start, end = _line_span(node)
    if end - start + 1 <= SPLIT_DEFINITION_LINES or depth >= ELEMENT_DEPTH:
        return [(start, end)]
    elements = _elements(node)
    if len(elements) < 2:
        return [(start, end)]
    spans: list[tuple[int, int]] = []
    for element in elements:
        spans += _statement_spans(element, depth + 1)
    return spans


def _elements(node: Node) -> list[Node]:
    """The entries of the literal below ``node`` (itself included, a few levels down) that
    has the most of them starting on distinct lines. Only a literal's: a long loop or
    ``switch`` is code read as a whole, and stays one chunk as before."""
    best: list[Node] = []
    level = [node]
    for _ in range(ELEMENT_DEPTH):
        following: list[Node] = []
        for holder in level:
            children = holder.named_children
            starts = len({child.start_point[0] for child in children})
            if holder.type in TABLE_NODES and starts > len(best):
                best = children
            following.extend(children)
        level = following
    return best


def _first_line(lines: list[str], line: int) -> str:
    text = lines[line - 1].strip() if 0 < line <= len(lines) else ""
    return text[:160]


def _attach_leading(lines: list[str], start: int, floor: int, spec: LanguageSpec) -> int:
    """Move ``start`` up over comment lines directly above it (not past ``floor``), and over
    one blank line below a block comment (``*/``): a doc comment set apart from its function
    by a blank line (older JavaScript) still documents it."""
    line = start
    while line - 1 > floor:
        text = lines[line - 2].strip()
        comment = bool(text) and text.startswith(spec.comment_prefixes)
        apart = not text and line == start and line - 2 > floor and _ends_block(lines[line - 3])
        if not (comment or apart):
            break
        line -= 1
    return line


def _ends_block(text: str) -> bool:
    return text.rstrip().endswith("*/")


def _unit(node: Node, spec: LanguageSpec, lines: list[str], floor: int, top: bool) -> _Unit | None:
    found = _definition(node, spec)
    if found is None:
        return None
    inner, kind, name = found
    start, end = _line_span(node)
    start = _attach_leading(lines, start, floor, spec)
    sig_line = inner.start_point[0] + 1
    members: list[_Unit] = []
    if top and inner.type in spec.containers and end - start + 1 > SPLIT_CONTAINER_LINES:
        prev_end = sig_line
        for child in _members(inner, spec):
            sub = _unit(child, spec, lines, prev_end, top=False)
            if sub is not None and sub.start > prev_end and sub.end <= end:
                if sub.kind == "function":
                    sub.kind = "method"
                members.append(sub)
                prev_end = sub.end
    parts = [] if members or end - start + 1 <= SPLIT_DEFINITION_LINES else _body_spans(inner)
    return _Unit(start, end, kind, name, _first_line(lines, sig_line), sig_line, members, parts)


def _body_spans(node: Node) -> list[tuple[int, int]]:
    """The line spans of the statements of a definition's body (an arrow function's, for
    ``const f = () => {...}``), those starting after the definition's first line."""
    holder = node
    if node.type in ("variable_declarator", "assignment_expression"):
        holder = node.child_by_field_name("value") or node.child_by_field_name("right") or node
    body = holder.child_by_field_name("body")
    if body is None:
        return []
    if body.named_child_count == 1 and body.named_children[0].type == "statement_list":
        body = body.named_children[0]  # Go's block holds its statements in a list
    first = node.start_point[0] + 1
    spans = [span for child in body.named_children for span in _statement_spans(child)]
    return [span for span in spans if span[0] > first]


def _nested_definitions(node: Node, spec: LanguageSpec, depth: int = 0) -> list[Node]:
    """Definitions inside a statement (``if``/``try``/``#ifdef`` bodies), not inside others."""
    found: list[Node] = []
    for child in node.named_children:
        if _definition(child, spec) is not None:
            found.append(child)
        elif depth < NESTED_DEPTH and child.named_child_count:
            found.extend(_nested_definitions(child, spec, depth + 1))
    return found


def _compound_unit(node: Node, spec: LanguageSpec, lines: list[str], floor: int) -> _Unit | None:
    """A long top-level statement that holds definitions (``if PY2: def ...``, ``try: ...
    except ImportError: def ...``, ``#ifdef``) as a block whose definitions are chunks of
    their own, like a class's methods: otherwise the whole statement is one chunk that no
    small budget can take."""
    start, end = _line_span(node)
    if start <= floor or end - start + 1 <= SPLIT_CONTAINER_LINES:
        return None
    members: list[_Unit] = []
    prev_end = start
    for child in _nested_definitions(node, spec):
        sub = _unit(child, spec, lines, prev_end, top=False)
        if sub is not None and sub.start > prev_end and sub.end <= end:
            members.append(sub)
            prev_end = sub.end
    if not members:
        return None
    return _Unit(start, end, "block", "", _first_line(lines, start), start, members)


def _chunk(
    lines: list[str],
    start: int,
    end: int,
    kind: str,
    name: str,
    parent: int | None,
    signature: str,
    line: int = 0,
) -> Chunk:
    body = lines[start - 1 : end]
    text = "\n".join(body)
    nbytes = len(text.encode("utf-8")) + len(body)
    return Chunk(
        start,
        end,
        kind,
        name,
        parent,
        signature,
        line,
        nbytes,
        dict(T.count_terms(text)),
        sorted(T.identifiers(text)),
        count_pieces(text),
    )


def _statement_blocks(lines: list[str], spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Group consecutive statement spans into blocks of about BLOCK_LINES lines."""
    blocks: list[tuple[int, int]] = []
    for start, end in spans:
        if blocks and end - blocks[-1][0] + 1 <= BLOCK_LINES:
            blocks[-1] = (blocks[-1][0], end)
        else:
            blocks.append((start, end))
    return blocks


def _nonblank(lines: list[str], start: int, end: int) -> int:
    return sum(1 for line in lines[start - 1 : end] if line.strip())


def _is_import_line(text: str) -> bool:
    stripped = text.lstrip()
    return stripped.startswith(("import ", "from ", "#include", "use ", "require", "package "))


def _top_level(
    lines: list[str], root: Node, spec: LanguageSpec
) -> tuple[list[_Unit], list[tuple[int, int]]]:
    """The file's top-level definitions as units, and the line spans of its other top-level
    statements (what lies between the definitions)."""
    units: list[_Unit] = []
    statements: list[tuple[int, int]] = []
    comments: list[tuple[int, int]] = []  # held until the next node: a definition's own
    floor = 0
    for node in root.named_children:
        if node.type == "comment":
            comments.append(_line_span(node))
            continue
        unit = _unit(node, spec, lines, floor, top=True) or _compound_unit(node, spec, lines, floor)
        if unit is not None and unit.start > floor:
            statements += [(a, min(b, unit.start - 1)) for a, b in comments if a < unit.start]
            units.append(unit)
            floor = unit.end
        else:
            start, end = _line_span(node)
            statements += comments + (_statement_spans(node) if start > floor else [])
            floor = max(floor, end, *(last for _, last in comments))
        comments = []
    statements += comments
    return units, statements


def _spans_within(
    statements: list[tuple[int, int]], first: int, last: int
) -> list[tuple[int, int]]:
    return [(start, end) for start, end in statements if start >= first and end <= last]


def _header_split(lines: list[str], header_end: int, statements: list[tuple[int, int]]) -> int:
    """Where the module header's first chunk ends: after its imports when the header is long
    and holds more than imports (imports change with the code that uses them; a long run of
    constants after them need not come along)."""
    if header_end <= HEADER_SPLIT_LINES:
        return header_end
    within = _spans_within(statements, 1, header_end)
    imports_end = 0
    for start, end in within:
        if any(_is_import_line(line) for line in lines[start - 1 : end]):
            imports_end = end
    if not imports_end and within:  # no imports: after the first statement (a docstring)
        imports_end = within[0][1]
    return imports_end if 0 < imports_end < header_end else header_end


def _statement_chunks(
    lines: list[str], first: int, last: int, statements: list[tuple[int, int]]
) -> list[Chunk]:
    """Lines ``first`` to ``last`` (statements, no definitions) as blocks of about BLOCK_LINES
    lines, the last block reaching ``last``."""
    spans = _spans_within(statements, first, last) or [(first, last)]
    chunks: list[Chunk] = []
    cursor = first
    for start, end in _statement_blocks(lines, spans):
        block_end = max(end, start)
        chunks.append(
            _chunk(lines, cursor, block_end, "block", "", None, _first_line(lines, start))
        )
        cursor = block_end + 1
    if cursor <= last:
        _extend_last(chunks, lines, last)
    return chunks


def _module_header(
    lines: list[str], header_end: int, statements: list[tuple[int, int]]
) -> list[Chunk]:
    """Everything before the first definition: the header chunk, and blocks of what follows
    the imports when it was split off."""
    if header_end < 1:
        return []
    split_at = _header_split(lines, header_end, statements)
    header = _chunk(lines, 1, split_at, "header", "", None, "")
    if split_at >= header_end:
        return [header]
    return [header, *_statement_chunks(lines, split_at + 1, header_end, statements)]


def _gap_chunks(
    lines: list[str], first: int, last: int, statements: list[tuple[int, int]]
) -> list[Chunk]:
    """Statements between two definitions: blocks of their own when they are long; none when
    they are short (they then join the next definition's chunk)."""
    if last < first or _nonblank(lines, first, last) <= GAP_BLOCK_LINES:
        return []
    chunks: list[Chunk] = []
    cursor = first
    for start, end in _statement_blocks(lines, _spans_within(statements, first, last)):
        chunks.append(_chunk(lines, cursor, end, "block", "", None, _first_line(lines, start)))
        cursor = end + 1
    return chunks


def _unit_chunks(lines: list[str], unit: _Unit, first: int, last: int, index: int) -> list[Chunk]:
    """One definition's chunks over lines ``first`` to ``last``: one chunk (or a long one's
    parts), or for a container split in members its header chunk (at position ``index`` of the
    file's chunks, which the members name as their parent) and each member's, the last
    reaching ``last``."""
    if not unit.members:
        return _definition_chunks(lines, unit, first, last, unit.name, None, index)
    header_end = unit.members[0].start - 1
    chunks = [
        _chunk(lines, first, header_end, unit.kind, unit.name, None, unit.signature, unit.line)
    ]
    cursor = header_end + 1
    for number, member in enumerate(unit.members):
        member_end = last if number == len(unit.members) - 1 else member.end
        name = f"{unit.name}.{member.name}" if unit.name else member.name
        chunks += _definition_chunks(
            lines, member, cursor, member_end, name, index, index + len(chunks)
        )
        cursor = member_end + 1
    return chunks


def _definition_chunks(
    lines: list[str],
    unit: _Unit,
    first: int,
    last: int,
    name: str,
    parent: int | None,
    index: int,
) -> list[Chunk]:
    """A definition over lines ``first`` to ``last`` as one chunk, or, cut into parts (see
    SPLIT_DEFINITION_LINES), its head (at position ``index``, holding the name) and blocks of
    its body's statements of kind "part" whose parent is the head, the last reaching
    ``last``."""
    blocks = _statement_blocks(lines, unit.parts)
    if len(blocks) < 2:
        return [_chunk(lines, first, last, unit.kind, name, parent, unit.signature, unit.line)]
    head_end = blocks[0][1]
    chunks = [_chunk(lines, first, head_end, unit.kind, name, parent, unit.signature, unit.line)]
    cursor = head_end + 1
    for number, (start, end) in enumerate(blocks[1:], 2):
        part_end = last if number == len(blocks) else end
        chunks.append(_chunk(lines, cursor, part_end, "part", "", index, _first_line(lines, start)))
        cursor = part_end + 1
    return chunks


def definition_end(record: FileRecord, index: int) -> int:
    """The last line of the definition whose chunk is ``index``: its last part's, when it was
    cut into parts."""
    end = record.chunks[index].end
    for chunk in record.chunks[index + 1 :]:
        if chunk.kind != "part" or chunk.parent != index:
            break
        end = chunk.end
    return end


def _tree_chunks(lines: list[str], root: Node, spec: LanguageSpec) -> list[Chunk]:
    """A parsed file's chunks: the module header, each top-level definition with the short
    statements before it (long runs of statements as blocks of their own), then the tail; a
    last definition followed by few lines takes them."""
    units, statements = _top_level(lines, root, spec)
    if not units:
        return _text_chunks(lines, kind="header")
    chunks = _module_header(lines, units[0].start - 1, statements)
    cursor = chunks[-1].end + 1 if chunks else 1
    for unit in units:
        gap = _gap_chunks(lines, cursor, unit.start - 1, statements)
        chunks.extend(gap)
        cursor = gap[-1].end + 1 if gap else cursor
        end = unit.end if unit is not units[-1] else _last_definition_end(lines, unit.end)
        chunks.extend(_unit_chunks(lines, unit, cursor, end, len(chunks)))
        cursor = end + 1
    if cursor <= len(lines):
        chunks.extend(_statement_chunks(lines, cursor, len(lines), statements))
    return chunks


def _last_definition_end(lines: list[str], end: int) -> int:
    """The last definition reaches the end of the file when what follows it is short."""
    if len(lines) > end and _nonblank(lines, end + 1, len(lines)) <= GAP_BLOCK_LINES:
        return len(lines)
    return end


def _extend_last(chunks: list[Chunk], lines: list[str], end: int) -> None:
    last = chunks.pop()
    chunks.append(
        _chunk(lines, last.start, end, last.kind, last.name, last.parent, last.signature, last.line)
    )


def _text_chunks(lines: list[str], kind: str = "text") -> list[Chunk]:
    """Paragraph chunks: cut at a blank line once a chunk has grown, or at a hard limit."""
    chunks: list[Chunk] = []
    start = 1
    n = len(lines)
    for number in range(1, n + 1):
        size = number - start + 1
        at_blank = not lines[number - 1].strip()
        if (at_blank and size >= TEXT_CHUNK_LINES // 2) or size >= TEXT_CHUNK_LINES * 2:
            chunks.append(
                _chunk(
                    lines,
                    start,
                    number,
                    kind if not chunks else "text",
                    "",
                    None,
                    _first_line(lines, start),
                )
            )
            start = number + 1
    if start <= n:
        chunks.append(
            _chunk(
                lines, start, n, kind if not chunks else "text", "", None, _first_line(lines, start)
            )
        )
    return chunks


def parse_file(path: str, text: str) -> FileRecord:
    """The index record of one text file (pure: no I/O besides the parser library)."""
    lines = split_lines(text)
    lang = language_of(path)
    spec = SPECS.get(lang) if lang else None
    chunks: list[Chunk] = []
    if spec is not None and lines and len(text) <= PARSE_MAX_BYTES:
        parser = _parser(spec.name)
        if parser is not None:
            tree = parser.parse(text.encode("utf-8"))
            chunks = _tree_chunks(lines, tree.root_node, spec)
    if not chunks and lines:
        chunks = _text_chunks(lines)
        if spec is None:
            lang = None
    imports: list[str] = []
    if spec is not None:
        for pattern in spec.imports:
            for match in pattern.finditer(text):
                for item in match.group(1).split(","):
                    item = item.strip()
                    if item and item not in imports:
                        imports.append(item)
    defs = [(c.name.rsplit(".", 1)[-1], i) for i, c in enumerate(chunks) if c.name]
    file_terms: Counter[str] = Counter()
    for c in chunks:
        file_terms.update(c.terms)
    return FileRecord(
        lang=lang,
        lines=len(lines),
        nbytes=len(text.encode("utf-8")),
        chunks=chunks,
        imports=imports,
        defs=defs,
        terms=dict(file_terms),
        pieces=count_pieces(text),
        generator=generator_named(lines),
    )
