"""What tree-sitter node types mean, per language: definitions, containers, imports.

One table instead of one module per language: every language is chunked and linked by the same
rules (a definition is a node with a name; a container is a definition whose members are
definitions; the module header is what precedes the first definition) and each row says how
its imports name files (its resolver), so a new language is a few lines here and nowhere
else. Files in languages not listed are still indexed, by lexical terms and paragraph chunks.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

# path suffix ("b/c.py", and a directory's as "b/") -> the commit's paths under it
Suffixes = Mapping[str, list[str]]
# (importing file, what its import statement names, suffixes) -> the files it most likely means
Resolver = Callable[[str, str, Suffixes], list[str]]


def _resolve_python(importer: str, target: str, by_suffix: Suffixes) -> list[str]:
    """``pkg.mod`` or a relative ``..mod`` as ``mod.py`` or ``mod/__init__.py``."""
    dots = len(target) - len(target.lstrip("."))
    module = target.lstrip(".").replace(".", "/")
    if dots:
        base = posixpath.dirname(importer)
        for _ in range(dots - 1):
            base = posixpath.dirname(base)
        stem = posixpath.join(base, module) if module else base
    else:
        stem = module
    out: list[str] = []
    for candidate in (stem + ".py", stem + "/__init__.py"):
        out.extend(by_suffix.get(candidate.strip("/"), []))
    return out


def _resolve_js(importer: str, target: str, by_suffix: Suffixes) -> list[str]:
    """A relative specifier, with the extensions and index files Node and bundlers try."""
    if not target.startswith("."):
        return []  # a package from node_modules, not a file of the commit
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(importer), target))
    out: list[str] = []
    for ext in ("", ".js", ".ts", ".tsx", ".jsx", ".mjs", "/index.js", "/index.ts"):
        out.extend(p for p in by_suffix.get(joined + ext, []) if p == joined + ext)
    return out


def _resolve_go(importer: str, target: str, by_suffix: Suffixes) -> list[str]:
    """An import path names a package, a directory: the longest tail of the path that is a
    directory of the commit (``github.com/o/r/internal/x`` -> ``internal/x/``), its non-test
    files. The standard library (no dot in the first element) links nothing."""
    parts = target.split("/")
    if "." not in parts[0]:
        return []
    for start in range(1, len(parts)):
        found = by_suffix.get("/".join(parts[start:]) + "/", [])
        if found:
            return [p for p in found if p.endswith(".go") and not p.endswith("_test.go")]
    return []


def _resolve_rust(importer: str, target: str, by_suffix: Suffixes) -> list[str]:
    name = target.replace("::", "/")
    name = name.removeprefix("crate/").removeprefix("self/").removeprefix("super/")
    return list(by_suffix.get(name + ".rs", [])) + list(by_suffix.get(name + "/mod.rs", []))


def _relative(importer: str, target: str) -> str:
    """``../x.h`` named in ``a/b/c.c`` is ``a/x.h``; anything else as it is."""
    if not target.startswith("."):
        return target
    return posixpath.normpath(posixpath.join(posixpath.dirname(importer), target))


def _resolve_include(importer: str, target: str, by_suffix: Suffixes) -> list[str]:
    return list(by_suffix.get(_relative(importer, target), []))


def _resolve_ruby(importer: str, target: str, by_suffix: Suffixes) -> list[str]:
    name = _relative(importer, target)
    return list(by_suffix.get(name + ".rb", []) or by_suffix.get(name, []))


def _resolve_java(importer: str, target: str, by_suffix: Suffixes) -> list[str]:
    return list(by_suffix.get(target.replace(".", "/") + ".java", []))


def _resolve_nothing(importer: str, target: str, by_suffix: Suffixes) -> list[str]:
    return []


@dataclass(frozen=True)
class LanguageSpec:
    """How to read one language's syntax tree."""

    name: str
    # node type -> kind shown to the user ("function", "class", "method", ...)
    definitions: dict[str, str]
    # definition types whose members are split into chunks of their own
    containers: frozenset[str]
    # nodes that wrap a definition (decorators, export, templates)
    wrappers: frozenset[str] = frozenset()
    # regexes whose group 1 is a module/file an import statement names
    imports: tuple[re.Pattern[str], ...] = ()
    comment_prefixes: tuple[str, ...] = ("//", "/*", "*")
    # what an import names -> the commit's files (see Resolver)
    resolve: Resolver = _resolve_nothing
    extra: dict[str, str] = field(default_factory=dict)


_PY_IMPORTS = (
    re.compile(r"^\s*from\s+(\.*[\w.]*)\s+import\b", re.M),
    re.compile(r"^\s*import\s+([\w.]+(?:\s*,\s*[\w.]+)*)", re.M),
)
_JS_IMPORTS = (
    re.compile(r"""^\s*import\b[^'"\n;]*?(?:from\s+)?['"]([^'"]+)['"]""", re.M),
    re.compile(r"""^\s*export\b[^'"\n;]*?from\s+['"]([^'"]+)['"]""", re.M),
    re.compile(r"""\brequire\(\s*['"]([^'"]+)['"]\s*\)"""),
)
_C_IMPORTS = (re.compile(r"""^\s*#\s*include\s+["<]([^">]+)[">]""", re.M),)

_JS_DEFS = {
    "function_declaration": "function",
    "generator_function_declaration": "function",
    "class_declaration": "class",
    "abstract_class_declaration": "class",
    "method_definition": "method",
    "variable_declarator": "function",
    "assignment_expression": "function",
    "interface_declaration": "interface",
    "type_alias_declaration": "type",
    "enum_declaration": "enum",
    "module": "module",
    "internal_module": "namespace",
}
_JS_CONTAINERS = frozenset(
    {"class_declaration", "abstract_class_declaration", "interface_declaration", "internal_module"}
)
# ``expression_statement``: CommonJS defines most functions by assignment (``res.send =
# function send(body) {...}``, ``Foo.prototype.bar = ...``), which parse.py reads as definitions.
_JS_WRAPPERS = frozenset(
    {"export_statement", "lexical_declaration", "variable_declaration", "expression_statement"}
)

_C_DEFS = {
    "function_definition": "function",
    "struct_specifier": "struct",
    "union_specifier": "struct",
    "enum_specifier": "enum",
    "class_specifier": "class",
    "namespace_definition": "namespace",
    "type_definition": "type",
}

SPECS: dict[str, LanguageSpec] = {
    "python": LanguageSpec(
        "python",
        {"function_definition": "function", "class_definition": "class"},
        frozenset({"class_definition"}),
        frozenset({"decorated_definition"}),
        _PY_IMPORTS,
        ("#",),
        _resolve_python,
    ),
    **{
        name: LanguageSpec(
            name, _JS_DEFS, _JS_CONTAINERS, _JS_WRAPPERS, _JS_IMPORTS, resolve=_resolve_js
        )
        for name in ("javascript", "typescript", "tsx")
    },
    "go": LanguageSpec(
        "go",
        {
            "function_declaration": "function",
            "method_declaration": "method",
            "type_declaration": "type",
        },
        frozenset(),
        frozenset(),
        (
            re.compile(r"""^\s*import\s+(?:\w+\s+)?"([^"]+)\"""", re.M),
            re.compile(r"""^\s+(?:\w+\s+)?"([^"]+)"\s*$""", re.M),
        ),
        resolve=_resolve_go,
    ),
    "rust": LanguageSpec(
        "rust",
        {
            "function_item": "function",
            "struct_item": "struct",
            "enum_item": "enum",
            "trait_item": "trait",
            "impl_item": "impl",
            "mod_item": "module",
            "macro_definition": "macro",
            "type_item": "type",
            "const_item": "const",
            "static_item": "static",
        },
        frozenset({"impl_item", "trait_item", "mod_item"}),
        frozenset(),
        (
            re.compile(r"^\s*(?:pub\s+)?mod\s+(\w+)\s*;", re.M),
            re.compile(r"^\s*(?:pub\s+)?use\s+([\w:]+)", re.M),
        ),
        resolve=_resolve_rust,
    ),
    "java": LanguageSpec(
        "java",
        {
            "class_declaration": "class",
            "interface_declaration": "interface",
            "enum_declaration": "enum",
            "record_declaration": "class",
            "method_declaration": "method",
            "constructor_declaration": "method",
            "annotation_type_declaration": "interface",
        },
        frozenset(
            {"class_declaration", "interface_declaration", "enum_declaration", "record_declaration"}
        ),
        frozenset(),
        (re.compile(r"^\s*import\s+(?:static\s+)?([\w.]+)", re.M),),
        resolve=_resolve_java,
    ),
    "c": LanguageSpec("c", _C_DEFS, frozenset(), frozenset(), _C_IMPORTS, resolve=_resolve_include),
    "cpp": LanguageSpec(
        "cpp",
        _C_DEFS,
        frozenset({"class_specifier", "struct_specifier", "namespace_definition"}),
        frozenset({"template_declaration"}),
        _C_IMPORTS,
        resolve=_resolve_include,
    ),
    "ruby": LanguageSpec(
        "ruby",
        {"method": "method", "singleton_method": "method", "class": "class", "module": "module"},
        frozenset({"class", "module"}),
        frozenset(),
        (re.compile(r"""^\s*require(?:_relative)?\s*\(?\s*['"]([^'"]+)['"]""", re.M),),
        ("#",),
        resolve=_resolve_ruby,
    ),
}

EXTENSIONS: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c",
    ".h": "cpp",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hpp": "cpp",
    ".hh": "cpp",
    ".hxx": "cpp",
    ".rb": "ruby",
}

# Files that are prose, data or configuration rather than code: ranked below code for an edit
# unless the request asks for them (see rank.py).
PROSE_EXTENSIONS = frozenset(
    {
        ".md", ".mdx", ".mdc", ".markdown", ".rst", ".txt", ".adoc", ".html", ".htm", ".css",
        ".svg", ".csv", ".json", ".lock",
    }
)  # fmt: skip


def language_of(path: str) -> str | None:
    """The language of a path by its extension, or None for lexical-only files."""
    ext = posixpath.splitext(path)[1].lower()
    return EXTENSIONS.get(ext)


# Names of a project's prose (README, LICENSE, CHANGES.rst, HISTORY.md, AUTHORS).
_PROSE_NAMES = (
    "changes", "changelog", "history", "news", "authors", "license", "readme", "contributing"
)  # fmt: skip


def _prose_named(path: str) -> bool:
    return posixpath.basename(path).lower().startswith(_PROSE_NAMES)


def is_prose(path: str) -> bool:
    """Prose by extension, or by a prose name on a file in no programming language: zap's
    ``internal/readme/readme.go`` writes the README and cobra's ``license_gpl_2.go`` holds a
    template, code about prose (see :func:`is_docs`)."""
    ext = posixpath.splitext(path.lower())[1]
    return ext in PROSE_EXTENSIONS or (_prose_named(path) and language_of(path) is None)


CONFIG_EXTENSIONS = frozenset(
    {
        ".yml", ".yaml", ".toml", ".ini", ".cfg", ".conf", ".in", ".cmd", ".bat", ".ps1", ".xml",
        ".jsonc", ".json5",
    }
)  # fmt: skip

# Folders that hold a project's own code, where a ``*.config.ts`` is code, not a tool's.
SOURCE_FOLDERS = frozenset({"src", "lib", "app", "source", "pkg", "internal"})


def is_config(path: str) -> bool:
    """Build, CI and tool configuration (ranked below code unless the request names it): by
    extension, a dot file or a file in a dot folder (``.github/``, ``.husky/pre-commit``), and
    a tool's configuration written as code outside the source tree (``vite.config.ts``,
    ``karma.conf.js``; an Angular ``src/app/app.config.ts`` is the application's code)."""
    lowered = path.lower()
    folders = lowered.split("/")[:-1]
    name = posixpath.basename(lowered)
    ext = posixpath.splitext(name)[1]
    return (
        ext in CONFIG_EXTENSIONS
        or name in ("makefile", "dockerfile")
        or name.startswith(".")
        or any(folder.startswith(".") for folder in folders)
        or (
            bool({"config", "conf"} & set(name.split(".")[1:-1]))
            and not set(folders) & SOURCE_FOLDERS
        )
    )


# Extensions that make a dotted word a file name ("setup.py") rather than a module path.
FILE_EXTENSIONS = frozenset(EXTENSIONS) | PROSE_EXTENSIONS | CONFIG_EXTENSIONS


def in_docs_tree(path: str) -> bool:
    """A file of a documentation tree (Sphinx's conf.py, doc build scripts)."""
    return any(p in ("doc", "docs", "documentation") for p in path.lower().split("/")[:-1])


def is_docs(path: str) -> bool:
    """Files of a documentation tree, and code named as prose (``readme.go``,
    ``license_mit.go``): code, but about the project's prose."""
    return in_docs_tree(path) or (_prose_named(path) and language_of(path) is not None)


VENDOR_DIRS = frozenset(
    {
        "vendor",
        "vendored",
        "_vendor",
        "third_party",
        "thirdparty",
        "external",
        "externals",
        "node_modules",
        "packages",
        "deps",
        "extern",
    }
)


def vendor_dir(path: str) -> str | None:
    """The vendored package a path lies in (``pkg/packages/urllib3/x.py`` -> ``urllib3``)."""
    parts = path.lower().split("/")
    for i, part in enumerate(parts[:-1]):
        if part in VENDOR_DIRS:
            return parts[i + 1].rsplit(".", 1)[0] if i + 1 < len(parts) else part
    return None


# Build output committed to the repository: bundles and compiled copies of the source. Not
# build/: in every repository of the pool and the projects scored outside it that has one, it
# holds the build's scripts (fastify's build/build-validation.js, hono's build/build.ts) or,
# under docs/, Sphinx's sources; on the pool 1 task-budget gained, none lost.
BUILT_DIRS = frozenset({"dist", "deno_dist"})


def is_built(path: str) -> bool:
    """Build output by its path: under dist/, or a minified file."""
    parts = path.lower().split("/")
    return any(p in BUILT_DIRS for p in parts[:-1]) or ".min." in parts[-1]


# Files that are data a tool writes, not text anyone edits by hand: lock files, logs, minified
# code, source maps. Their lines cost two to three times a line of code in tokens (hashes,
# base64, one 40,000-byte line), and a request about the code never needs them; the ones the
# pool's selections sent went over their budgets (bench/context_pool.py: 8 of 11 such runs).
LOCK_FILES = frozenset(
    {
        "package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "go.sum",
        "cargo.lock", "poetry.lock", "pipfile.lock", "composer.lock", "gemfile.lock",
        "mix.lock", "flake.lock", "bun.lockb", "uv.lock", "pdm.lock",
    }
)  # fmt: skip
DATA_EXTENSIONS = frozenset({".lock", ".log", ".map"})


# Type stubs and declarations: a module's types told apart from its code (typeshed's and
# multidict's ``.pyi``, a JavaScript package's hand-written ``index.d.ts``).
STUB_SUFFIXES = (".pyi", ".d.ts", ".d.mts", ".d.cts")


def is_stub(path: str) -> bool:
    """A type stub or declaration file, by its name."""
    return path.lower().endswith(STUB_SUFFIXES)


def declared_name(path: str) -> str | None:
    """The name (lower case, without its extension) of the module a stub or declaration file
    declares: ``index.d.ts`` gives ``index``, ``__init__.pyi`` ``__init__``; None for others."""
    name = posixpath.basename(path).lower()
    for suffix in STUB_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)] or None
    return None


def is_data(path: str) -> bool:
    """A lock file, a log, a source map or a minified file, by its name."""
    name = posixpath.basename(path).lower()
    ext = posixpath.splitext(name)[1]
    return name in LOCK_FILES or ext in DATA_EXTENSIONS or ".min." in name


# What a test file's own name adds to the name of the module it tests.
# Matched once, on the name as written (``CartTest``, not ``conftest``).
_TEST_AFFIX = re.compile(
    r"^[Tt]ests?_|_[Tt]ests?$|_spec$|\.test(?:-d)?$|\.spec$|(?<=[a-z0-9])Tests?$|^Test(?=[A-Z])"
)


def tested_name(path: str) -> str | None:
    """The name (lower case, without its extension) of the module a test file names as the one
    it tests: ``test_cart.py``, ``cart_test.go``, ``cart.test.ts``, ``cart.spec.js``,
    ``CartTest.java`` and ``__tests__/cart.js`` give ``cart``. None for a file that is not a
    test or whose name says nothing of the kind (``conftest.py``, ``tests/helpers.py``)."""
    if not is_test(path):
        return None
    parts = path.split("/")
    stem = parts[-1].rsplit(".", 1)[0]  # cart.test.ts: cart.test
    name = _TEST_AFFIX.sub("", stem, count=1)
    if name and name != stem:
        return name.lower()
    return stem.lower() if len(parts) > 1 and parts[-2] == "__tests__" else None


# What a test file's name ends with, before its extension; and, for code other than Python's,
# a test's name in JavaScript and TypeScript (tsd's index.test-d.ts, dtslint's
# commander-tests.ts) that a workflow (run-tests.yml) or a page (async-tests.md) may end with.
TEST_SUFFIXES = ("_test", "_spec", ".test", ".spec")
CODE_TEST_SUFFIXES = (".test-d", ".e2e", "-test", "-tests")

# Folders of tests and of what only tests read: Go's testdata/ (the go tool skips it), mypy's
# test-data/ (its type-checking cases), Jest's __mocks__/, end-to-end suites.
TEST_FOLDERS = frozenset(
    {
        "test", "tests", "testing", "spec", "specs", "__tests__", "testdata", "test-data",
        "test_data", "__mocks__", "e2e",
    }
)  # fmt: skip


# A folder named for its tests, holding code (hono's runtime_tests/, integration-tests/). Not
# for Python, whose own conventions (pytest's: tests/, test_*.py, *_test.py) are what its
# projects follow and what locbench counts: a Python project's ``*_tests`` folder or
# ``tests.py`` may be anything (jinja2/tests.py is Jinja's template tests, the feature).
_TEST_FOLDER_NAME = re.compile(r"[-_]tests?$")


def is_test(path: str) -> bool:
    """Test code by the conventions of most ecosystems (tests/ dirs, test_*.py, *_test.go,
    a.test.ts, a.spec.js, tsd's index.test-d.ts, dtslint's commander-tests.ts, ...)."""
    lower = path.lower()
    parts = lower.split("/")
    name = parts[-1]
    if any(p in TEST_FOLDERS for p in parts[:-1]):
        return True
    stemname = name.rsplit(".", 1)[0]
    language = language_of(path)
    # Go's tests are *_test.go only (testify's http/test_round_tripper.go is a helper of its
    # users' tests), pytest's test_*.py, *_test.py and conftest.py: a Python ``test.py`` is
    # collected by neither pytest nor unittest's discovery, and is often a module
    # (werkzeug.test) or the whole test suite of an old project changed with its code.
    prefixed = stemname.startswith("test_") and language != "go"
    if prefixed or stemname.endswith(TEST_SUFFIXES) or stemname == "conftest":
        return True
    if stemname == "test" and language not in ("python", "go"):
        return True
    if language in (None, "python"):  # a workflow, a page about tests, Python's
        return False
    return stemname.endswith(CODE_TEST_SUFFIXES) or any(
        _TEST_FOLDER_NAME.search(p) for p in parts[:-1]
    )
