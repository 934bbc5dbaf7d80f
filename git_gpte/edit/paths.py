"""Paths written by an LLM: normalised, confined to the repository, resolved to tracked files.

An LLM path is untrusted input. :func:`check_path` rejects what could escape the repository or
touch git's own files; symlinks need the file system and are checked by the command that writes.
"""

from __future__ import annotations

import posixpath
from collections.abc import Container, Iterable

from ..errors import UnsafePathError

_DECORATION = "`'\"*"


_C_ESCAPES = {
    "a": 0x07,
    "b": 0x08,
    "t": 0x09,
    "n": 0x0A,
    "v": 0x0B,
    "f": 0x0C,
    "r": 0x0D,
    '"': 0x22,
    "\\": 0x5C,
}


def header_path(raw: str) -> str:
    """The path of a ``---``/``+++`` header line's rest, git's C quoting undone.

    git writes a path in double quotes with C escapes when it holds a quote, a backslash, a
    control character or (by default) a byte above 0x7f: ``\\303\\251`` are the UTF-8 bytes of
    ``é``, ``\\n`` is a newline. Read as plain text, those would become directories. Bytes that
    are not UTF-8 come back as lone surrogates, which :func:`check_path` refuses.
    """
    text = raw.strip()
    end = _closing_quote(text) if text.startswith('"') else -1
    if end < 0:
        return clean_path(raw)
    data = bytearray()
    i = 1
    while i < end:
        char = text[i]
        if char != "\\":
            data += char.encode("utf-8", "surrogateescape")
            i += 1
            continue
        nxt = text[i + 1]
        if nxt in "01234567":
            digits = text[i + 1 : i + 4]
            octal = digits[: len(digits) - len(digits.lstrip("01234567"))] or digits[:1]
            data.append(int(octal, 8) & 0xFF)
            i += 1 + len(octal)
        else:
            data.append(_C_ESCAPES.get(nxt, ord(nxt) if ord(nxt) < 0x80 else 0x3F))
            i += 2
    return data.decode("utf-8", "surrogateescape")  # what follows (a timestamp) is dropped


def _closing_quote(text: str) -> int:
    """Index of the quote that closes ``text``'s opening one, or -1."""
    i = 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == '"':
            return i
        i += 1
    return -1


def clean_path(raw: str) -> str:
    """The path as the reply meant it: quotes, markdown marks and timestamps removed."""
    path = raw.strip()
    if "\t" in path:  # `+++ b/x.py\t2024-01-01 ...`
        path = path.split("\t", 1)[0]
    path = path.strip().strip(_DECORATION).strip()
    return path


def check_path(path: str) -> str:
    """``path`` normalised to a repository-relative POSIX path, or :class:`UnsafePathError`.

    Refuses absolute paths (also ``C:\\`` and ``~`` ones), ``..`` that leaves the repository,
    anything in a ``.git`` directory (in any case, and in the spellings Windows reads as
    ``.git``: ``.git.``, ``git~1``), names with control characters, bytes that are not UTF-8 or
    spaces around them, and empty names. ``./a//b`` becomes ``a/b``; checking the result again
    gives the same result.
    """
    result = _check_once(path, path)
    while True:  # what cleaning uncovered (``./~``, ``x/`` + a backtick) is checked like the rest
        again = _check_once(result, path)
        if again == result:
            return result
        result = again


def _check_once(path: str, original: str) -> str:
    # Before any cleaning: a newline or tab inside a name (git's "a\\nb") is part of it, and no
    # file of that name is written (it could not even be named in a diff line again).
    shown = repr(original)
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in path.strip()):
        raise UnsafePathError(f"path with a control character in the reply: {shown}")
    if any(0xD800 <= ord(c) <= 0xDFFF for c in path):
        raise UnsafePathError(f"path that is not UTF-8 in the reply: {shown}")
    text = clean_path(path).replace("\\", "/")
    if not text or text in (".", "/"):
        raise UnsafePathError(f"empty path in the reply: {shown}")
    if text.startswith("/") or text.startswith("~") or (len(text) > 1 and text[1] == ":"):
        raise UnsafePathError(f"absolute path in the reply: {shown}")
    parts = [p for p in text.split("/") if p not in ("", ".")]
    depth = 0
    for part in parts:
        depth = depth - 1 if part == ".." else depth + 1
        if depth < 0:
            raise UnsafePathError(f"path leaves the repository: {shown}")
    norm = posixpath.normpath("/".join(parts))
    if norm in ("", ".") or norm.startswith("../"):
        raise UnsafePathError(f"path leaves the repository: {shown}")
    for part in norm.split("/"):
        if part != part.strip():
            raise UnsafePathError(f"path with a name that starts or ends with a space: {shown}")
        if part.rstrip(". ").lower() in (".git", "git~1"):
            raise UnsafePathError(f"path inside .git: {shown}")
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
