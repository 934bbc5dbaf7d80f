"""Where a project says its own version: the lines a release or a version bump changes.

"Version 0.14.0", "- bump version num", "prep for 0.8", "Release 3.7.2": such a request changes
the line that assigns the project's version (``__version__ = "0.13.4"`` in ``__init__.py``,
``version="0.7"`` in ``setup.py``, ``release = "1.14.1"`` in ``docs/conf.py``, ``"version":``
in ``package.json``, ``const Version = "v1.9.1"`` in Go), whatever else its words match: the
word "version" is common in code (alembic's migrations are all "versions"), and the file that
holds the line is a small ``__init__.py`` that matches nothing. ``git grep`` finds the lines
(:data:`VERSION_LINE`); this module keeps the files that assign a version once or twice (a
lock file or a page of examples assigns many: those are other packages' versions). Pure
functions; the ranking lifts the files and the chunks holding the lines
(rank_signals.version_holder, rank_signals.chunk_version).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# An assignment of a version string at the start of a line, for git grep -E (POSIX classes,
# no look-around): Python's __version__ / VERSION / version= / release =, JSON's "version":,
# Go's const Version =, JavaScript's export const VERSION =. The value starts with a digit
# after an optional v, quoted: a bare number is seldom a version (``version: 2`` of a CI
# configuration's schema).
VERSION_LINE = (
    "^[[:space:]]*((export[[:space:]]+)?(const|var|let)[[:space:]]+)?"
    '"?(__version__|__VERSION__|VERSION|[Vv]ersion|release)"?[[:space:]]*(:=|=|:)'
    "[[:space:]]*[\"'`]v?[0-9]+[.][0-9]+"
)
MAX_PER_FILE = 2  # version and release in a Sphinx conf.py; more: other packages' versions
MAX_FILES = 8  # the shallowest of them: a monorepo's packages each assign one

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
    """False when the version a request names is another program's (a dependency, a
    runtime); the caller has already found that it names a version or a release."""
    return _OTHER_VERSION.search(first_line) is None


def holders(found: Iterable[tuple[str, int]]) -> dict[str, tuple[int, ...]]:
    """The files that assign the project's version, and the lines, from ``git grep``'s
    (path, line) matches of :data:`VERSION_LINE`."""
    lines: dict[str, list[int]] = {}
    for path, line in found:
        lines.setdefault(path, []).append(line)
    kept = sorted(
        (path for path, at in lines.items() if len(at) <= MAX_PER_FILE),
        key=lambda path: (path.count("/"), path),
    )[:MAX_FILES]
    return {path: tuple(sorted(lines[path])) for path in sorted(kept)}
