"""What a request literally asks of a named definition, checked on the result.

Three everyday requests can be checked without judging the code: "add a docstring to NAME"
leaves NAME with a docstring, "add type hints to A and B" leaves A and B annotated, and "in
NAME (a function or a file), replace the print() calls with logging" leaves no print() there.
Small models get them wrong in ways every other check passes (a docstring written at the top of
the module instead, the hints added to a neighbour, one print of two replaced): the result
compiles, the tests pass, the request is not done. Only requests of these shapes that name a
definition (or a file) found in the files are checked; anything else is left to the model and
to the user's check. Pure functions on text.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator, Mapping

from .pycheck import Problem

_NAME = r"`?([A-Za-z_]\w*)(?:\(\))?`?"
# "a docstring to Store.names": the method, not its class.
_DOCSTRING = re.compile(
    r"\bdoc-?strings?\s+(?:to|for|on|in)\s+(?:the\s+)?(?:function|method|class)?\s*"
    r"`?(?:[A-Za-z_]\w*\.)*" + _NAME.removeprefix("`?"),
    re.I,
)
_HINTS = re.compile(
    r"\b(?:type[- ]hints?|type annotations?|annotations)\s+(?:to|for|on|in)\s+(?:the\s+)?"
    r"(?:functions?|methods?)?\s*([^;:!?\n]+?)(?:\.(?:\s|$)|[;:!?\n]|$)",
    re.I,
)
# "add logging to hashkey", "add debug logging in `Cache.get`": the function that must log.
_LOGGING_IN = re.compile(
    r"\b(?:add|put)\w*\s+(?:some\s+)?(?:debug\s+)?logging\s+(?:to|in|into|inside)\s+"
    r"(?:the\s+)?(?:function\s+|method\s+)?`?(?:[A-Za-z_]\w*\.)*([A-Za-z_]\w*)",
    re.I,
)
# "replace the print() calls with logging", "turn the prints into log messages", "log ...
# instead of printing": within one sentence.
# (Within a sentence: a dot inside a word, ``todo/storage.py``, does not end it.)
_IN_SENTENCE = r"(?:[^.;!?\n]|\.(?=\w))*?"
_PRINTS_TO_LOGS = re.compile(
    rf"\b(?:replace|swap|turn|convert|change)\b{_IN_SENTENCE}\bprints?\b{_IN_SENTENCE}"
    rf"\b(?:with|into|to|by)\b{_IN_SENTENCE}\blog"
    rf"|\blog\w*\b{_IN_SENTENCE}\binstead of\s+(?:the\s+)?print",
    re.I,
)
# Where: "in load_text", "in inventory/store.py" (the sentence's own scope); a request that
# keeps some ("except the usage line", "keep the one for ...") is left to the model.
_IN_SCOPE = re.compile(
    r"\bin\s+(?:the\s+)?(?:function\s+|method\s+|file\s+)?`?([\w./]+?)`?(?:\(\))?[\s,:]",
    re.I,
)
# "put the tolerance 1e-9 in a module-level constant named EPSILON and use it everywhere":
# the literal, the constant's name, and a word saying every place.
_LITERAL = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?(?:[eE]-?\d+)?)(?![\w.])")
_CONSTANT = re.compile(r"\bconstant\s+(?:named\s+|called\s+)?`?([A-Z][A-Z0-9_]*)`?")
_EVERYWHERE = re.compile(
    r"\beverywhere\b|\bevery (?:place|use)|\ball (?:the )?(?:places|uses)", re.I
)
_KEEPING = re.compile(r"\b(?:except|but not|keep|leave|apart from|other than)\b", re.I)
_LISTED = re.compile(r"`?([A-Za-z_]\w*)(?:\(\))?`?")
# The sentence must ask for something to be added ("remove the docstring in X" asks the opposite).
_ADDING = re.compile(r"\b(?:add|write|put|give|include|insert|provide|document)\w*\b", re.I)
_SENTENCE_END = re.compile(r"[.!?;\n]\s")
_FILLER = frozenset({"and", "or", "the", "function", "functions", "method", "methods", "its"})
# "add a method categories() to InventoryStore", "add a function `slugify`", "add a to_dict()
# method to the Summary class": a definition the request asks for by name, and the class it
# goes in when one is named right after it. Postfix names need backticks or parentheses ("add a
# helper function" names nothing).
_KIND = r"(?:method|function|helper|property|classmethod|staticmethod)"
_TO_CLASS = r"(?:[^.;:!?\n]*?\bto\s+(?:the\s+)?(?:class\s+)?`?([A-Z]\w*)`?)?"
_ADDED_BEFORE = re.compile(
    rf"\b{_KIND}\s+(?:called\s+|named\s+)?`?([A-Za-z_]\w*)`?(?:\([^)]*\))?`?" + _TO_CLASS
)
# A special method is a method whatever the words around it: "add a __repr__ to Limiter".
_ADDED_DUNDER = re.compile(r"`?(__[a-z][a-z0-9_]*__)`?(?:\(\))?(?:\s+method)?" + _TO_CLASS)
_ADDED_AFTER = re.compile(
    rf"(?:`([A-Za-z_]\w*)(?:\([^)]*\))?`|\b([A-Za-z_]\w*)\([^)]*\))\s+{_KIND}\b" + _TO_CLASS
)
# Words in a name's place that are not names ("add a function that ...", "a helper function").
# fmt: off
_NOT_NAMES = frozenset({
    "that", "which", "to", "for", "in", "on", "with", "the", "a", "an", "and", "or", "called",
    "named", "returning", "taking", "so", "as", "of", "from", "into", "this", "it", "here",
    "there", "where", "when", "whose", "who", "if", "by", "at", "instead", "too", "also",
    "method", "function", "helper", "property", "classmethod", "staticmethod", "new",
})
# fmt: on
# Special names that are attributes, never methods a request asks to add.
# fmt: off
_DUNDER_ATTRIBUTES = frozenset({
    "__name__", "__qualname__", "__module__", "__doc__", "__dict__", "__file__", "__all__",
    "__version__", "__slots__", "__annotations__", "__class__", "__main__", "__path__",
})
# fmt: on


# A request that asks for tests to change: a verb of changing within a few words before a test
# or a test file ("add a test for X", "fix the failing unit tests", "update acronym_test.py"),
# not a mention in passing ("as they may be referenced from other code like unit tests", "take
# a look at the test cases in dot_dsl_test.py"), and not across a sentence's end.
_CHANGES_TESTS = re.compile(
    r"\b(?:add|write|fix|update|change|extend|adjust|amend|correct|create|remove|delete|rename|"
    r"rewrite|edit|modify|cover|improve|skip|mark|parametri[sz]e)\w*\b"
    r"(?:\s+[\w'`/-]+(?:\.\w+)*){0,4}?\s+(?:unit\s+|regression\s+)?`?[\w./-]*tests?\b",
    re.I,
)
# A rename: the tests that call the old name have to follow ("rename load to read"). Other
# words of change are too common in plain instructions ("punctuation can be removed").
_RENAMES = re.compile(r"\brenam(?:e|es|ed|ing)\b", re.I)


def asks_to_change_tests(request: str) -> bool:
    """Whether ``request`` asks for tests to be written or changed, or for a rename (the tests
    follow it)."""
    return bool(_CHANGES_TESTS.search(request) or _RENAMES.search(request))


# A request about what the code's statements do not hold: comments, wording, layout.
_ABOUT_TEXT = re.compile(
    r"\b(?:comments?|typos?|spelling|wording|format\w*|whitespace|blank lines?|indent\w*|"
    r"style|lint\w*|header|licen[cs]e|copyright)\b",
    re.I,
)


# ... or about documentation, which docstrings hold; or about imports.
_ABOUT_DOCS = re.compile(r"\bdoc(?:s|strings?|ument\w*)?\b", re.I)
_ABOUT_IMPORTS = re.compile(r"\bimport", re.I)


def asks_about_wording(request: str) -> bool:
    """Whether the request is about comments, docstrings, wording or layout: then a change to
    a docstring or a comment may be what it asks for."""
    return bool(_ABOUT_TEXT.search(request) or _ABOUT_DOCS.search(request))


def code_unchanged(
    request: str, originals: Mapping[str, str], changes: Mapping[str, str | None]
) -> list[Problem]:
    """The edits changed Python files but none of their code: each parses to what it was, its
    docstrings aside, and its imports, a name imported another way being the same name (only
    comments, blank lines, docstrings or the way a name is imported differ). Seen, committed
    as a success: a whole-file answer that shortened a few comment rulers and left the request
    undone; a fix of a date range that only took a blank line out of the function's
    docstring, and, asked again, only wrote ``date`` (newly imported) for ``dt.date``. Not
    for a request about comments, wording or layout (nor docstrings for one about
    documentation, nor imports for one about imports), nor when a file is added or deleted."""
    if not changes or _ABOUT_TEXT.search(request):
        return []
    keep_docs = bool(_ABOUT_DOCS.search(request))
    keep_imports = bool(_ABOUT_IMPORTS.search(request))
    for path, text in changes.items():
        if text is None or not path.endswith(".py") or path not in originals:
            return []
        try:
            before = _code(originals[path], keep_docs, keep_imports)
            if before != _code(text, keep_docs, keep_imports):
                return []
        except (SyntaxError, ValueError):
            return []
    return [Problem("request", path, None, CODE_UNCHANGED) for path in sorted(changes)]


CODE_UNCHANGED = (
    "only comments, blank lines, docstrings or imports differ from the file as it was: its "
    "code is unchanged, so the request is not done"
)


def code_without_docstrings(text: str) -> str:
    """``text`` parsed, without its docstrings, as a string to compare (comments are never in
    the tree); raises SyntaxError or ValueError when it does not parse."""
    return _code(text, keep_docs=False)


def _code(text: str, keep_docs: bool, keep_imports: bool = True) -> str:
    """``text`` parsed, as a string to compare; without its docstrings unless ``keep_docs``;
    unless ``keep_imports``, without its imports, each imported name written as what it
    names (``dt.date`` and ``date`` both ``datetime.date``)."""
    tree = ast.parse(text)
    if not keep_docs:
        for node in ast.walk(tree):
            if isinstance(node, _DOCUMENTED) and node.body and _is_docstring(node.body[0]):
                node.body = node.body[1:] or [ast.Pass()]
    if not keep_imports:
        tree = _Qualified(_imported_as(tree)).visit(tree)
    return ast.dump(tree)


def _imported_as(tree: ast.Module) -> dict[str, str]:
    """Each name the module's top-level imports bind, and the dotted name it stands for."""
    names: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    names[alias.asname] = alias.name
                else:
                    first = alias.name.split(".")[0]
                    names[first] = first
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return names


class _Qualified(ast.NodeTransformer):
    """Top-level imports taken out, the names they bind written as what they name."""

    def __init__(self, names: dict[str, str]) -> None:
        self.names = names
        self.local: list[set[str]] = []  # names the enclosing functions bind themselves

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        return self._scope(node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> ast.AST:
        return self._scope(node)

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        return self._scope(node)

    def _scope(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> ast.AST:
        """A function's own names (its parameters, what it assigns) stay as they are in it."""
        arguments = node.args
        bound = {
            a.arg
            for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                      *filter(None, [arguments.vararg, arguments.kwarg])]
        }  # fmt: skip
        bound |= {
            n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        }
        self.local.append(bound)
        self.generic_visit(node)
        self.local.pop()
        return node

    def visit_Module(self, node: ast.Module) -> ast.AST:
        node.body = [n for n in node.body if not isinstance(n, (ast.Import, ast.ImportFrom))]
        self.generic_visit(node)
        return node

    def visit_Name(self, node: ast.Name) -> ast.AST:
        own = any(node.id in bound for bound in self.local)
        if node.id in self.names and isinstance(node.ctx, ast.Load) and not own:
            return ast.Name(f"import:{self.names[node.id]}", ast.Load())
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.value, ast.Name) and node.value.id.startswith("import:"):
            return ast.Name(f"{node.value.id}.{node.attr}", ast.Load())
        return node


_DOCUMENTED = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def _is_docstring(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


# "Make average_word_length, average_sentence_length and flesch_reading_ease return 0.0 ...":
# the definitions a request lists (two or more) as what it makes do something.
_MAKE_LISTED = re.compile(
    r"\b(?:make|have|let)\s+(?:the\s+)?(?:functions?\s+|methods?\s+)?"
    r"((?:`?[A-Za-z_]\w*(?:\(\))?`?(?:\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+))+"
    r"`?[A-Za-z_]\w*(?:\(\))?`?)",
    re.I,
)


def listed_unchanged(
    request: str, originals: Mapping[str, str], texts: Mapping[str, str]
) -> list[Problem]:
    """The definitions a request lists as what it makes do something ("make A, B and C
    return 0.0 when ..."), each defined once in the files, that the result left as they were
    while it changed another of them. Seen: the 1.5B model asked to make three functions
    return 0.0 on an empty text changed two, and the tests passed (textstats/empty-text)."""
    problems: list[Problem] = []
    for match in _MAKE_LISTED.finditer(request):
        names = [n for n in _LISTED.findall(match.group(1)) if n.lower() not in _FILLER]
        found = {name: list(_definitions(texts, name)) for name in names}
        if len(names) < 2 or any(len(defs) != 1 for defs in found.values()):
            continue
        was = {name: list(_definitions(originals, name)) for name in names}
        same = [
            name
            for name in names
            if len(was[name]) == 1 and ast.dump(was[name][0][1]) == ast.dump(found[name][0][1])
        ]
        if not same or len(same) == len(names):
            continue
        for name in same:
            path, node = found[name][0]
            said = (
                f"the request asks for {name} to change too, and {name} is as it was: "
                f"make the change the request asks of it as well"
            )
            problems.append(Problem("request", path, node.lineno, said))
    return problems


_ANNOTATING = re.compile(r"\b(?:type|types|typing|typed|hints?|annotat\w*|mypy)\b", re.I)


def annotations_only(
    request: str, originals: Mapping[str, str], texts: Mapping[str, str]
) -> list[Problem]:
    """The functions and methods the request names whose only change is their type
    annotations (and docstring): nothing they do when they run changed. Seen, committed as a
    success: asked to make ``InventoryStore.save`` accept a ``pathlib.Path``, the model wrote
    ``path: str | pathlib.Path`` and kept ``path + ".tmp"`` (inventory/save-pathlib). Not for
    a request about types, hints or annotations."""
    from .definitions import parse_or_none, top_functions

    if _ANNOTATING.search(request):
        return []
    words = set(re.findall(r"\w+", request))
    problems = []
    for path, text in sorted(texts.items()):
        before, after = parse_or_none(originals.get(path) or ""), parse_or_none(text)
        if before is None or after is None:
            continue
        was = {_qualified(c, f): f for c, f in top_functions(before)}
        for holder, function in top_functions(after):
            name = _qualified(holder, function)
            old = was.get(name)
            if function.name not in words or old is None or ast.dump(old) == ast.dump(function):
                continue
            bare = _bare(old, annotated=True) != _bare(function, annotated=True)
            if bare and _bare(old) == _bare(function):
                said = (
                    f"the only change to {name} is its type annotations, which change nothing "
                    f"it does when it runs: make the change the request asks of {name}"
                )
                problems.append(Problem("request", path, function.lineno, said))
    return problems


# "a parameter raise_on_limit=True", "get_list(key, default=None, sep=",")": a parameter and
# the default the request writes for it, as code: after the word parameter (or argument), or
# in the parentheses of a call-like signature, whose name says which function it is for. Not
# anywhere else: "<ol start="3">" and "Point(x=0, y=0)" (a repr) write no default.
_VALUE = r"(\"[^\"\n]*\"|'[^'\n]*'|-?\d+(?:\.\d+)?|True|False|None)"
_PARAMETER_ASKED = re.compile(
    rf"\b(?:parameter|argument|keyword|kwarg|option)s?\s+`?([A-Za-z_]\w*)={_VALUE}(?![\w.])", re.I
)
_SIGNATURE = re.compile(r"\b([A-Za-z_]\w*)\(([^()\n]*)\)")
_IN_SIGNATURE = re.compile(rf"(?<![\w.])([A-Za-z_]\w*)\s*=\s*{_VALUE}(?![\w.])")


def _defaults_asked(request: str) -> dict[tuple[str | None, str], object]:
    """(function or None for any, parameter) -> the default the request writes for it."""
    found: list[tuple[str | None, str, str]] = [
        (None, name, spelled) for name, spelled in _PARAMETER_ASKED.findall(request)
    ]
    for function, inside in _SIGNATURE.findall(request):
        found += [(function, name, spelled) for name, spelled in _IN_SIGNATURE.findall(inside)]
    asked: dict[tuple[str | None, str], object] = {}
    for function, name, spelled in found:
        try:
            asked.setdefault((function, name), ast.literal_eval(spelled))
        except (ValueError, SyntaxError):
            continue  # a string the request writes that Python would not read ("\")
    return asked


def default_problems(
    request: str, originals: Mapping[str, str], texts: Mapping[str, str]
) -> list[Problem]:
    """A parameter the edits add or whose default they change, given another default than
    the one the request writes for it (see _PARAMETER_ASKED). Seen, committed as a success:
    asked to "add a parameter raise_on_limit=True", the model wrote ``raise_on_limit=False``
    and made the rest agree with it, so every check passed (ratelimit/decorator-no-raise).
    Parameters the edits leave as they were are not judged: another function may have its
    own default."""
    from .definitions import parse_or_none, top_functions

    asked = _defaults_asked(request)
    if not asked:
        return []
    problems = []
    for path, text in sorted(texts.items()):
        after = parse_or_none(text)
        if after is None:
            continue
        before = parse_or_none(originals.get(path) or "")
        was = {_qualified(c, f): _defaults(f) for c, f in top_functions(before)} if before else {}
        for holder, function in top_functions(after):
            old = was.get(_qualified(holder, function), {})
            for name, value in _defaults(function).items():
                key = (function.name, name) if (function.name, name) in asked else (None, name)
                if key not in asked or (name in old and old[name] == value):
                    continue
                if value is _NOT_LITERAL or value == asked[key]:
                    continue
                said = (
                    f"the request asks for {name}={asked[key]!r}, and "
                    f"{_qualified(holder, function)} gives {name} the default {value!r}"
                )
                problems.append(Problem("request", path, function.lineno, said))
    return problems


_NOT_LITERAL = object()


def _defaults(function: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, object]:
    """Each parameter's default value (a marker when it is not a literal)."""
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    with_default = positional[len(positional) - len(args.defaults) :]
    pairs = list(zip(with_default, args.defaults, strict=True))
    keywords = zip(args.kwonlyargs, args.kw_defaults, strict=True)
    pairs += [(a, d) for a, d in keywords if d is not None]
    out: dict[str, object] = {}
    for arg, default in pairs:
        try:
            out[arg.arg] = ast.literal_eval(default)
        except (ValueError, TypeError, SyntaxError, RecursionError):
            out[arg.arg] = _NOT_LITERAL
    return out


def _qualified(holder: ast.ClassDef | None, function: ast.AST) -> str:
    name = getattr(function, "name", "")
    return f"{holder.name}.{name}" if holder is not None else name


def _bare(function: ast.FunctionDef | ast.AsyncFunctionDef, annotated: bool = False) -> str:
    """The function as a string to compare, without its docstrings, and without its
    annotations unless ``annotated``."""
    tree = ast.parse(ast.unparse(function))
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and not annotated:
            node.annotation = None
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            node.returns = node.returns if annotated else None
            if node.body and _is_docstring(node.body[0]):
                node.body = node.body[1:] or [ast.Pass()]
    return ast.dump(tree)


def request_problems(request: str, texts: Mapping[str, str]) -> list[Problem]:
    """What the result (``texts``: path -> Python source as edited) leaves undone of what
    ``request`` names: a definition still without the docstring, the type hints or the
    logging it asks for (seen on cachetools: asked to add logging to ``hashkey``, the 1.5B
    model logged in ``_HashedTuple.__hash__``, and it was committed as a success)."""
    problems: list[Problem] = []
    for name in _docstring_names(request):
        problems += _lacking(
            list(_definitions(texts, name)),
            lambda node: bool(ast.get_docstring(node)),
            f"the request asks for a docstring on {name}, and {name} still has none "
            f"(a docstring is the first statement inside {name}'s body)",
        )
    for name in _hint_names(request):
        functions: list[tuple[str, Definition]] = [
            (path, node)
            for path, node in _definitions(texts, name)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        ]
        problems += _lacking(
            functions,
            lambda node: (
                isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _annotated(node)
            ),
            f"the request asks for type hints on {name}, and {name} still has none "
            "(annotate its parameters and its return value in its def line)",
        )
    for name in dict.fromkeys(m.group(1) for m in _LOGGING_IN.finditer(request)):
        problems += _lacking(
            list(_definitions(texts, name)),
            _logs,
            f"the request asks for logging in {name}, and {name} still logs nothing "
            f"(call the logger inside {name}'s body)",
        )
    return problems + print_problems(request, texts) + literal_problems(request, texts)


def checked_by_kind(request: str) -> bool:
    """Whether the request is of a kind these checks judge on their own, whatever the code
    does: a docstring, type hints, logging in a named function, prints made log calls, a
    literal made a constant. What else a request asks changes what the code does, which only
    running it can judge (see pipeline/improve.py: a result no probe checked is not verified)."""
    return bool(
        _docstring_names(request)
        or _hint_names(request)
        or _LOGGING_IN.search(request)
        or _PRINTS_TO_LOGS.search(request)
        or _constant_asked(request)
    )


def _lacking(
    found: list[tuple[str, Definition]], has: Callable[[Definition], bool], text: str
) -> list[Problem]:
    """A problem at the first of the definitions ``found`` when none of them ``has`` what
    the request asks; none when there is no such definition."""
    if not found or any(has(node) for _, node in found):
        return []
    path, node = found[0]
    return [Problem("request", path, node.lineno, text)]


def _logs(node: ast.AST) -> bool:
    """Whether a definition calls anything named like a log (``logger.debug``, ``_log``)."""
    return any(
        isinstance(call, ast.Call) and "log" in ast.unparse(call.func).lower()
        for call in ast.walk(node)
    )


def literal_problems(request: str, texts: Mapping[str, str]) -> list[Problem]:
    """The literal a request moves into a named constant "everywhere", still written out
    elsewhere in a file defining that constant (a small model replaced it in two places of
    three: geometry/epsilon-constant)."""
    asked = _constant_asked(request)
    if asked is None:
        return []
    name, _, spelled = asked
    problems: list[Problem] = []
    for path, text in sorted(texts.items()):
        left = sorted(node.lineno for node in _leftovers(path, text, asked)[0])
        if left:
            problems.append(
                Problem(
                    "request",
                    path,
                    left[0],
                    f"the request asks for {name} everywhere instead of the literal "
                    f"{spelled}, and the literal is still written out here",
                )
            )
    return problems


def complete_constant(request: str, path: str, text: str) -> tuple[str, int]:
    """``text`` with the literal a request moves into a named constant "everywhere" replaced
    by the constant's name where the file defines it at module level and still writes the
    literal out, and how many places were replaced. The 1.5B model, told which line still
    held it, wrote two unchanged classes back twice (geometry/epsilon-constant): the rest of
    such a change is mechanical. A place evaluated before the constant is assigned (a default
    value, a decorator, a class body above it) is left for the check to report."""
    asked = _constant_asked(request)
    if asked is None:
        return text, 0
    nodes, ready = _leftovers(path, text, asked)
    places = [n for n in nodes if id(n) in ready and n.lineno == n.end_lineno]
    lines = text.splitlines(keepends=True)
    for node in sorted(places, key=lambda n: (n.lineno, n.col_offset), reverse=True):
        raw = lines[node.lineno - 1].encode("utf-8")
        end = node.end_col_offset or node.col_offset
        lines[node.lineno - 1] = (raw[: node.col_offset] + asked[0].encode() + raw[end:]).decode(
            "utf-8"
        )
    return "".join(lines), len(places)


def constant_named(request: str) -> str | None:
    """The name of the one constant ``request`` speaks of ("a constant WORDS_PER_MINUTE"), if
    it names exactly one."""
    names = set(_CONSTANT.findall(request))
    return names.pop() if len(names) == 1 else None


def _constant_asked(request: str) -> tuple[str, object, str] | None:
    """(name, value, the literal as the request spells it) when ``request`` asks to put one
    literal in a named constant and use it everywhere."""
    names, literals = _CONSTANT.findall(request), _LITERAL.findall(request)
    if len(names) != 1 or len(set(literals)) != 1 or not _EVERYWHERE.search(request):
        return None
    return names[0], ast.literal_eval(literals[0]), literals[0]


def _leftovers(
    path: str, text: str, asked: tuple[str, object, str]
) -> tuple[list[ast.Constant], set[int]]:
    """The numbers equal to the asked literal outside the constant's module-level assignment
    in a file that has one, and the ids of those a name can stand for (evaluated after the
    assignment: below it, or in a function's body)."""
    name, value, _ = asked
    tree = _parse(path, text)
    defining = [
        node
        for node in (tree.body if tree else [])
        if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
    ]
    if tree is None or not defining:
        return [], set()
    own = {id(n) for node in defining for n in ast.walk(node)}
    nodes = [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant)
        and type(n.value) in (int, float)
        and n.value == value
        and id(n) not in own
    ]
    assigned = min(node.end_lineno or node.lineno for node in defining)
    later = {
        id(n)
        for function in ast.walk(tree)
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        for statement in (function.body if isinstance(function.body, list) else [function.body])
        for n in ast.walk(statement)
    }
    return nodes, {id(n) for n in nodes if id(n) in later or n.lineno > assigned}


def print_problems(request: str, texts: Mapping[str, str]) -> list[Problem]:
    """A print() call left where the request asks for logging instead: in the function or
    the file it names (a request naming neither is not checked: a program may print by
    design)."""
    if not _PRINTS_TO_LOGS.search(request) or _KEEPING.search(request):
        return []
    problems: list[Problem] = []
    for scope in dict.fromkeys(_IN_SCOPE.findall(request + " ")):
        for path, node, label in _scopes(texts, scope.rstrip(".")):
            line = _first_print(node)
            if line is not None:
                problems.append(
                    Problem(
                        "request",
                        path,
                        line,
                        f"the request asks for logging instead of print() in {label}, and "
                        f"{label} still calls print() here",
                    )
                )
    return problems


def _scopes(texts: Mapping[str, str], scope: str) -> Iterator[tuple[str, ast.AST, str]]:
    """The file ``scope`` names (a path, or a module's file name), else the functions of
    that name, each parsed, with how to name it."""
    files = [p for p in sorted(texts) if p == scope or p.endswith("/" + scope)]
    for path in files:
        tree = _parse(path, texts[path])
        if tree is not None:
            yield path, tree, path
    if not files and scope.isidentifier():
        for path, node in _definitions(texts, scope):
            yield path, node, scope


# "... and remove the print", "drop the print() calls": within one sentence, not negated.
_PRINTS_GO = re.compile(
    rf"\b(?:remove|drop|delete|get rid of)\b{_IN_SENTENCE}\bprint(?:s\b|\(\)|\b)", re.I
)
_NEGATED = re.compile(r"\bnot\b|n't\b|\bnever\b", re.I)


def prints_kept(request: str, before: Mapping[str, str], after: Mapping[str, str]) -> list[Problem]:
    """The request asks for print() calls to go (removed, or replaced with logging) without
    saying where, and the files sent and edited call print() as often as before. Seen
    (minimark/log-unclosed-fence): "… the block parser prints a warning to stderr. Log it
    instead at WARNING level on a module-level logger and remove the print": a logger added,
    the print left, and the result committed as the fix. Where the request says where, see
    :func:`print_problems`; a request keeping some prints is left to the model."""
    found = [*_PRINTS_GO.finditer(request), *_PRINTS_TO_LOGS.finditer(request)]
    # each ask from the start of its sentence: "do not remove the print" asks the opposite
    asks = [request[request.rfind(".", 0, m.start()) + 1 : m.end()] for m in found]
    if not asks or any(_NEGATED.search(ask) for ask in asks) or _KEEPING.search(request):
        return []
    lines = {path: _print_lines(path, text) for path, text in after.items()}
    was = sum(len(_print_lines(path, text)) for path, text in before.items())
    now = sum(len(found) for found in lines.values())
    if not now or now < was:
        return []
    path = next(p for p, found in sorted(lines.items()) if found)
    return [
        Problem(
            "request",
            path,
            lines[path][0],
            "the request asks for print() calls to go, and the files call print() as often "
            "as before: this one is still here",
        )
    ]


def _print_lines(path: str, text: str) -> list[int]:
    tree = _parse(path, text)
    return sorted(_print_calls(tree)) if tree is not None else []


def _print_calls(node: ast.AST) -> list[int]:
    """The lines of the ``print(...)`` calls under ``node``."""
    return [
        call.lineno
        for call in ast.walk(node)
        if isinstance(call, ast.Call)
        and isinstance(call.func, ast.Name)
        and call.func.id == "print"
    ]


def _first_print(node: ast.AST) -> int | None:
    """The line of the first ``print(...)`` call under ``node``."""
    lines = _print_calls(node)
    return min(lines) if lines else None


def _parse(path: str, text: str) -> ast.Module | None:
    if not path.endswith(".py"):
        return None
    try:
        return ast.parse(text, filename=path)
    except (SyntaxError, ValueError):
        return None


def added_definitions(request: str) -> list[tuple[str, str | None]]:
    """The functions or methods ``request`` asks to add by name, each with the class it names
    for it (None: none named)."""
    found: list[tuple[str, str | None]] = []
    matches = (_ADDED_BEFORE, _ADDED_AFTER, _ADDED_DUNDER)
    for match in (m for pattern in matches for m in pattern.finditer(request)):
        name = next(group for group in match.groups()[:-1] if group)
        if name.lower() in _NOT_NAMES or not _asks_to_add(request, match):
            continue
        if name in _DUNDER_ATTRIBUTES or request[max(0, match.start() - 1)] in "(.":
            continue  # getLogger(__name__), func.__name__: a use, not a method to add
        found.append((name, match.groups()[-1]))
    return list(dict.fromkeys(found))


def missing_definitions(request: str, texts: Mapping[str, str]) -> list[Problem]:
    """A function or method the request asks to add by name that the result (``texts``: the
    Python files, as edited, where it could be) does not define; seen, a CLI calling
    ``store.categories()`` that was never written: no check sees an attribute that does not
    exist. Named with a class the files define, it has to be in that class."""
    problems: list[Problem] = []
    for name, owner in added_definitions(request):
        defined = list(_definitions(texts, name))
        found = _definitions(texts, owner) if owner else iter(())
        classes = [(path, node) for path, node in found if isinstance(node, ast.ClassDef)]
        if classes:
            inside = any(
                isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name
                for _, cls in classes
                for node in cls.body
            )
            if inside:
                continue
            path, cls = classes[0]
            said = f"the request asks for a method {name} in {owner}, and {owner} has none"
            problems.append(Problem("request", path, cls.lineno, said))
        elif not defined:
            said = f"the request asks to add {name}, and no file defines it"
            problems.append(Problem("request", "", None, said))
    return problems


def _docstring_names(request: str) -> list[str]:
    found = (m.group(1) for m in _DOCSTRING.finditer(request) if _asks_to_add(request, m))
    return list(dict.fromkeys(found))


def _hint_names(request: str) -> list[str]:
    names: list[str] = []
    for match in _HINTS.finditer(request):
        if not _asks_to_add(request, match):
            continue
        for word in _LISTED.findall(match.group(1)):
            if word.lower() not in _FILLER:
                names.append(word)
    return list(dict.fromkeys(names))


Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def _asks_to_add(request: str, match: re.Match[str]) -> bool:
    """Whether the sentence holding ``match`` asks to add something before it names it."""
    before = request[: match.start()]
    ends = [m.end() for m in _SENTENCE_END.finditer(before)]
    return _ADDING.search(before[ends[-1] if ends else 0 :]) is not None


def _definitions(texts: Mapping[str, str], name: str) -> Iterator[tuple[str, Definition]]:
    """Every function or class called ``name`` in the Python files, at any depth."""
    for path, text in sorted(texts.items()):
        tree = _parse(path, text)
        if tree is None:
            continue
        for node in ast.walk(tree):
            kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
            if isinstance(node, kinds) and node.name == name:
                yield path, node


def _annotated(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether a function has any type hint (``self`` and ``cls`` need none)."""
    args = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
    args += [a for a in (node.args.vararg, node.args.kwarg) if a is not None]
    named = [a for a in args if a.arg not in ("self", "cls")]
    return node.returns is not None or any(a.annotation is not None for a in named)
