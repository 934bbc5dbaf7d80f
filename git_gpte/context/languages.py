"""What tree-sitter node types mean, per language: definitions, containers, imports.

One table instead of one module per language: every language is chunked and linked by the same
rules (a definition is a node with a name; a container is a definition whose members are
definitions; the module header is what precedes the first definition), so a new language is a
few lines here. Files in languages not listed are still indexed, by lexical terms and
paragraph chunks.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field


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
    "interface_declaration": "interface",
    "type_alias_declaration": "type",
    "enum_declaration": "enum",
    "module": "module",
    "internal_module": "namespace",
}
_JS_CONTAINERS = frozenset(
    {"class_declaration", "abstract_class_declaration", "interface_declaration", "internal_module"}
)
_JS_WRAPPERS = frozenset({"export_statement", "lexical_declaration", "variable_declaration"})

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
    ),
    "javascript": LanguageSpec("javascript", _JS_DEFS, _JS_CONTAINERS, _JS_WRAPPERS, _JS_IMPORTS),
    "typescript": LanguageSpec("typescript", _JS_DEFS, _JS_CONTAINERS, _JS_WRAPPERS, _JS_IMPORTS),
    "tsx": LanguageSpec("tsx", _JS_DEFS, _JS_CONTAINERS, _JS_WRAPPERS, _JS_IMPORTS),
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
    ),
    "c": LanguageSpec("c", _C_DEFS, frozenset(), frozenset(), _C_IMPORTS),
    "cpp": LanguageSpec(
        "cpp",
        _C_DEFS,
        frozenset({"class_specifier", "struct_specifier", "namespace_definition"}),
        frozenset({"template_declaration"}),
        _C_IMPORTS,
    ),
    "ruby": LanguageSpec(
        "ruby",
        {"method": "method", "singleton_method": "method", "class": "class", "module": "module"},
        frozenset({"class", "module"}),
        frozenset(),
        (re.compile(r"""^\s*require(?:_relative)?\s*\(?\s*['"]([^'"]+)['"]""", re.M),),
        ("#",),
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
    {".md", ".rst", ".txt", ".adoc", ".html", ".htm", ".css", ".svg", ".csv", ".json", ".lock"}
)


def language_of(path: str) -> str | None:
    """The language of a path by its extension, or None for lexical-only files."""
    ext = posixpath.splitext(path)[1].lower()
    return EXTENSIONS.get(ext)


def is_prose(path: str) -> bool:
    name = posixpath.basename(path).lower()
    ext = posixpath.splitext(name)[1]
    return ext in PROSE_EXTENSIONS or name.startswith(
        ("changes", "changelog", "history", "news", "authors", "license", "readme", "contributing")
    )


CONFIG_EXTENSIONS = frozenset(
    {".yml", ".yaml", ".toml", ".ini", ".cfg", ".conf", ".in", ".cmd", ".bat", ".ps1", ".xml"}
)


def is_config(path: str) -> bool:
    """Build, CI and tool configuration (ranked below code unless the request names it)."""
    name = posixpath.basename(path).lower()
    ext = posixpath.splitext(name)[1]
    return ext in CONFIG_EXTENSIONS or name.startswith(".") or name in ("makefile", "dockerfile")


# Extensions that make a dotted word a file name ("setup.py") rather than a module path.
FILE_EXTENSIONS = frozenset(EXTENSIONS) | PROSE_EXTENSIONS | CONFIG_EXTENSIONS


def is_docs(path: str) -> bool:
    """Files of a documentation tree (Sphinx's conf.py, doc build scripts)."""
    return any(p in ("doc", "docs", "documentation") for p in path.lower().split("/")[:-1])


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


def is_test(path: str) -> bool:
    """Test code by the conventions of most ecosystems (tests/ dirs, test_*.py, *_test.go, ...)."""
    lower = path.lower()
    parts = lower.split("/")
    name = parts[-1]
    if any(p in ("test", "tests", "testing", "spec", "specs", "__tests__") for p in parts[:-1]):
        return True
    stemname = name.rsplit(".", 1)[0]
    return (
        stemname.startswith("test_")
        or stemname.endswith(("_test", "_spec", ".test", ".spec"))
        or stemname in ("conftest", "test")
    )
