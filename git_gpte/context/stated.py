"""Lines a kind of request changes whatever its words: where the project states its version,
the Python versions it supports (and where its code checks them), its copyright year.

"Version 0.14.0", "- bump version num", "prep for 0.8" change the line assigning the project's
version (``__version__ = "0.13.4"`` in ``__init__.py``, ``version="0.7"`` in ``setup.py``,
``release = "1.14.1"`` in ``docs/conf.py``, ``"version":`` in ``package.json``, ``const Version
= "v1.9.1"`` in Go); "Add support for Python 3.10" the classifiers and ``python_requires`` of
``setup.py`` or ``pyproject.toml``, and "Drop Python 3.7" the ``sys.version_info`` checks
around the compatibility code too; "Update copyright year" the copyright lines. None of those
words finds such a line: "version" is common in code (alembic's migrations are all "versions"),
and the file stating it is a small ``__init__.py`` or ``setup.py`` that matches little else.
``git grep -F`` finds the lines holding a kind's words, and its pattern keeps those stating it;
a file stating more of them than the kind allows states other things' (a lock file's versions
of other packages). The ranking lifts the files and the chunks holding the lines
(rank_signals.stated_line and chunk_stated_line). Pure functions.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from typing import NamedTuple

from .languages import is_test
from .request import names_version

MAX_FILES = 8  # the shallowest files stating a kind: a monorepo's packages each state one


@dataclass(frozen=True)
class Statement:
    """A kind of line a kind of request changes."""

    reason: str  # why a file stating it is lifted ("holds the version")
    asks: Callable[[str], bool]  # whether a request's first line asks to change such lines
    words: tuple[str, ...]  # what every such line holds, for git grep -F
    line: re.Pattern[str]  # the lines, among those holding a word
    max_per_file: int  # a file stating more states other things'
    # Whether the files earlier releases changed come first (the project's own version among
    # its examples' own); code checking the Python version is not where releases are made.
    released_first: bool = True
    # Whether a test's lines count: a test skipped on an old Python is not the compatibility
    # code a request dropping that Python removes (and tests would crowd out the source).
    in_tests: bool = True

    def states(self, path: str, text: str) -> bool:
        """Whether ``text``, a line of ``path``, is such a line (git grep found it holding a
        word of this kind or of another asked with it)."""
        return (
            any(word in text for word in self.words)
            and self.line.search(text) is not None
            and (self.in_tests or not is_test(path))
        )


def stated_lines(
    found: Iterable[tuple[str, int]], max_per_file: int, releases: Collection[str] = ()
) -> dict[str, tuple[int, ...]]:
    """The files stating a kind, with their lines, from ``git grep``'s (path, line) matches of
    its pattern: those with at most ``max_per_file`` such lines; of those, the ones earlier
    releases changed (``releases``, past.release_weights) when there are any (flask's
    examples each have a ``setup.py`` with ``version="1.0.0"``, its docs quote a few, and
    only ``src/flask/__init__.py`` is the project's); the :data:`MAX_FILES` shallowest."""
    lines: dict[str, list[int]] = {}
    for path, line in found:
        lines.setdefault(path, []).append(line)
    few = [path for path, at in lines.items() if len(at) <= max_per_file]
    released = [path for path in few if path in releases]
    kept = sorted(released or few, key=lambda path: (path.count("/"), path))[:MAX_FILES]
    return {path: tuple(sorted(lines[path])) for path in sorted(kept)}


# A request about another program's version, not the project's: a dependency bump ("Bump ruff
# from 0.8.6 to 0.9.1", "Update x requirement from ~=1.2 to ~=1.3"), or a runtime it supports
# ("Add support for Python 3.10", "compatible with node v0.1.95", "Upgrade to TypeScript 3.9").
_OTHER_VERSION = re.compile(
    r"\bfrom\s+[~^=<>!]*v?\d+(?:\.\d+)+\S*\s+to\b"
    r"|\b(?:python|py|pypy\d?|cpython|node(?:js)?|go|golang|typescript|ts|java|ruby|rust|php"
    r"|perl|powershell|deno|bun|dotnet|kotlin|swift|scala|django|flask|react|vue|angular"
    r"|es)\s*v?\d+(?:\.\d+)*\b",
    re.IGNORECASE,
)


def about_own_version(first_line: str) -> bool:
    """A release or a bump of the project itself: its first line names a version number or
    a release (request.names_version), not another program's version (a dependency, a
    runtime)."""
    return names_version(first_line) and _OTHER_VERSION.search(first_line) is None


# Python's versions named: "Python 3.10", "python < 3.7", "PyPy3", "py37".
_PYTHONS = re.compile(r"\b(?:c?python|pypy)\s*[<>=]*\s*v?\d|\bpy3\d{1,2}\b", re.IGNORECASE)
# ... as what the project supports, not as code fixed for one ("Another python 3 fix").
_SUPPORT = re.compile(r"\b(?:support|drop|minimum|require|explicit|compat)", re.IGNORECASE)


def about_pythons(first_line: str) -> bool:
    """The request adds, drops or changes a supported Python version ("Add support for
    Python 3.10", "Drop Python 3.5 support", "Remove compat code for Python < 3.7")."""
    return _PYTHONS.search(first_line) is not None and _SUPPORT.search(first_line) is not None


_COPYRIGHT = re.compile(r"\bcopyright\b|\bnew\s+year\b", re.IGNORECASE)


def about_copyright(first_line: str) -> bool:
    """The request updates the copyright ("Update copyright year", "- happy new year")."""
    return _COPYRIGHT.search(first_line) is not None


# An assignment of a version string at the start of a line: Python's __version__ / VERSION /
# version= / release =, JSON's "version":, Go's const Version =, JavaScript's export const
# VERSION =. The value starts with a digit after an optional v, quoted: a bare number is
# seldom the project's version (``version: 2`` of a CI configuration's schema). Or Python's
# version as a tuple of numbers (``VERSION = (4, 2, 0, "final", 0)``, ``__version_info__ =
# version_info(3, 1, 1, "final", 1)``): without it, only the examples' own ``__version__ =
# "1.0"`` stated a version in pyparsing.
VERSION = Statement(
    reason="holds the version",
    asks=about_own_version,
    words=("version", "VERSION", "Version", "release"),
    line=re.compile(
        r"""^\s*(?:(?:export\s+)?(?:const|var|let)\s+)?"?(?:__version__|__VERSION__|VERSION"""
        r"""|[Vv]ersion|release)"?\s*(?::=|=|:)\s*["'`]v?\d+\.\d"""
        r"""|^(?:__version__|__version_info__|VERSION)\s*=\s*\w*\(\s*\d+\s*,\s*\d"""
    ),
    max_per_file=2,  # version and release in a Sphinx conf.py
)
# The Python versions a project supports: setup.py's and pyproject.toml's classifiers and
# python_requires / requires-python, tox's envlist, a workflow's python-version.
PYTHONS = Statement(
    reason="states the Python versions",
    asks=about_pythons,
    words=(
        "Programming Language :: Python ::",
        "python_requires",
        "requires-python",
        "envlist",
        "python-version",
    ),
    line=re.compile(
        r"Programming Language :: Python :: \d|python_requires|requires-python"
        r"|^\s*envlist\s*=|python-version"
    ),
    max_per_file=20,  # a classifier for each version
)
# The project's copyright with a year: a LICENSE's "Copyright (c) 2019 ...", Sphinx's
# ``copyright = "2010-2024, ..."``; not each module's "# Copyright (C) 2005-2016" comment, whose
# years a new year seldom changes (alembic's testing modules quote SQLAlchemy's).
COPYRIGHT = Statement(
    reason="states the copyright",
    asks=about_copyright,
    words=("Copyright", "copyright"),
    line=re.compile(r"^\s*(?:_*copyright_*\s*[:=]|Copyright).*(?:19|20)\d\d"),
    max_per_file=3,
)
# Code checking the running Python's version, which a request adding or dropping a Python
# changes with the classifiers: ``if sys.version_info >= (3, 7):`` around an import,
# ``PY_3_8_PLUS = sys.version_info[:2] >= (3, 8)``, ``if PY2:`` (starlette's "Remove compat code
# for Python < 3.7", attrs's "Drop Python 3.7"). Source only, wherever releases are made.
VERSION_CHECKS = Statement(
    reason="checks the Python version",
    asks=about_pythons,
    words=("version_info", "PY2", "PY3", "PY_"),
    line=re.compile(r"\bversion_info\b|\bPY_?[23](?:_?\d+)*(?:_?PLUS)?\b"),
    max_per_file=30,  # a compatibility module's
    released_first=False,
    in_tests=False,
)
STATEMENTS: tuple[Statement, ...] = (VERSION, PYTHONS, VERSION_CHECKS, COPYRIGHT)


def asked(request: str) -> tuple[Statement, ...]:
    """The kinds of line ``request`` asks to change, by its first line."""
    lines = request.strip().splitlines()
    return tuple(s for s in STATEMENTS if lines and s.asks(lines[0]))


class Held(NamedTuple):
    """The lines of a file stating what a request asks to change, and why they count."""

    lines: tuple[int, ...]
    reason: str
