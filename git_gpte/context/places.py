"""Where a failing program's output points: (path, line) pairs naming tracked files.

Tracebacks and compiler, linter and test-runner messages name the failing places as
``File "/tmp/.../wt-1a2b/src/app.py", line 12`` (Python), ``src/app.py:12:5`` (most tools) or
``at main (src/app.js:12:5)`` (JavaScript). Those are the strongest hints heal has of what to
show the model, so each is matched to a tracked file (an absolute path in a temporary worktree
ends with the tracked path) and shown whatever the ranking says; a request that pastes such
output (an issue's traceback) points at the same places, and the ranking sends them
(rank_signals.chunk_named_place). Pure functions.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Places taken from one output: the last ones (the innermost frames of a traceback) count most.
MAX_PLACES = 8
# Where an installed copy of a package lives: the rest of its path is the package's own.
INSTALL_FOLDERS = ("site-packages/", "dist-packages/", "node_modules/")

# A path starts where a run of path characters starts (a match starting inside the run would
# start at its beginning anyway): tried at every character, a long line of output without a
# place took time growing with its square (100,000 characters: minutes).
_PLACE = re.compile(
    r"""(?<![\w.@+~/\\-])(?P<path>[\w.@+~/\\-]*[\w-]\.[A-Za-z][\w]{0,7})["']?"""
    r"""(?:,\s*line\s+|:|\()(?P<line>\d+)"""
)


def output_places(output: str, tracked: Iterable[str]) -> list[tuple[str, int]]:
    """The (tracked path, line) pairs ``output`` names, innermost (last) first, at most
    :data:`MAX_PLACES`."""
    named_places = list(_PLACE.finditer(output))
    if not named_places:  # most requests: the tracked paths need not be gone through
        return []
    paths = set(tracked)
    by_name: dict[str, list[str]] = {}
    for known in paths:
        by_name.setdefault(known.rsplit("/", 1)[-1], []).append(known)
    found: list[tuple[str, int]] = []
    for match in named_places:
        named = match.group("path").replace("\\", "/").lstrip("./")
        line = int(match.group("line"))
        tracked_path = _tracked(named, paths, by_name)
        if tracked_path is not None and line > 0 and (tracked_path, line) not in found:
            found.append((tracked_path, line))
    return list(reversed(found))[:MAX_PLACES]


def _tracked(named: str, paths: set[str], by_name: dict[str, list[str]]) -> str | None:
    if named in paths:
        return named
    same_name = by_name.get(named.rsplit("/", 1)[-1], [])
    matches = [p for p in same_name if named.endswith("/" + p)]
    if matches:
        return max(matches, key=len)
    if "/" not in named:
        return same_name[0] if len(same_name) == 1 else None
    return _installed(named, same_name)


def _installed(named: str, same_name: list[str]) -> str | None:
    """The tracked file an installed copy's path names: ``.../site-packages/click/core.py``
    is ``src/click/core.py`` (what follows the last install folder, when one tracked file
    ends with it)."""
    marker = max((named.rfind(m) + len(m) for m in INSTALL_FOLDERS if m in named), default=-1)
    if marker < 0:
        return None
    rest = named[marker:]
    found = [path for path in same_name if path == rest or path.endswith("/" + rest)]
    return found[0] if len(found) == 1 else None
