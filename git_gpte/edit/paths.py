"""Paths written by an LLM: normalised, confined to the repository, resolved to tracked files.

An LLM path is untrusted input. :func:`check_path` rejects what could escape the repository or
touch git's own files; symlinks need the file system and are checked by the command that writes.
"""

from __future__ import annotations

import posixpath
from collections.abc import Container, Iterable

from ..errors import UnsafePathError

_DECORATION = "`'\"*"


def clean_path(raw: str) -> str:
    """The path as the reply meant it: quotes, markdown marks and timestamps removed."""
    path = raw.strip()
    if "\t" in path:  # `+++ b/x.py\t2024-01-01 ...`
        path = path.split("\t", 1)[0]
    path = path.strip().strip(_DECORATION).strip()
    return path


def check_path(path: str) -> str:
    """``path`` normalised to a repository-relative POSIX path, or :class:`UnsafePathError`.

    Refuses absolute paths (also ``C:\\`` ones), ``..`` that leaves the repository, anything in
    ``.git/`` and empty names. ``./a//b`` becomes ``a/b``.
    """
    text = clean_path(path).replace("\\", "/")
    if not text or text in (".", "/"):
        raise UnsafePathError(f"empty path in the reply: {path!r}")
    if "\0" in text:
        raise UnsafePathError(f"path with a NUL byte in the reply: {path!r}")
    if text.startswith("/") or text.startswith("~") or (len(text) > 1 and text[1] == ":"):
        raise UnsafePathError(f"absolute path in the reply: {path!r}")
    parts = [p for p in text.split("/") if p not in ("", ".")]
    depth = 0
    for part in parts:
        depth = depth - 1 if part == ".." else depth + 1
        if depth < 0:
            raise UnsafePathError(f"path leaves the repository: {path!r}")
    norm = posixpath.normpath("/".join(parts))
    if norm in ("", ".") or norm.startswith("../"):
        raise UnsafePathError(f"path leaves the repository: {path!r}")
    if any(part.lower() == ".git" for part in norm.split("/")):
        raise UnsafePathError(f"path inside .git: {path!r}")
    return norm


def resolve_path(path: str, exists: Container[str], known_paths: Iterable[str]) -> tuple[str, str]:
    """(path to use, how it was resolved or "") for a checked path.

    A path that exists is used as is. Otherwise, in order: a stray ``a/``/``b/`` prefix is dropped
    when the rest exists; a bare or partial path (``events.py``) becomes the one tracked path that
    ends with it, when exactly one does. Anything else is returned unchanged (a new file).
    """
    known = list(known_paths)
    known_set = set(known)

    def present(candidate: str) -> bool:
        return candidate in known_set or candidate in exists

    if present(path):
        return path, ""
    if path[:2] in ("a/", "b/") and present(path[2:]):
        return path[2:], f"dropped the '{path[:2]}' prefix"
    for candidate in (path, path[2:] if path[:2] in ("a/", "b/") else None):
        if not candidate:
            continue
        suffix = "/" + candidate
        matches = [k for k in known if k.endswith(suffix)]
        if len(matches) == 1:
            return matches[0], f"resolved {candidate!r} to the tracked file {matches[0]!r}"
    return path, ""
