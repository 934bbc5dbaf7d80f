"""What must never be sent by accident: the rules both the file selection and the index apply.

Files that usually hold credentials (rule 5 of the design: never sent unless named explicitly)
and files over the size limit are left out unless a pathspec names them literally. Pure
functions on paths; no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from .secret_files import SECRET_RULES, looks_secret, secret_content, secret_rule_for

__all__ = [
    "DEFAULT_MAX_FILE_BYTES",
    "SECRET_PATTERNS",
    "explicit_paths",
    "ineligible",
    "looks_secret",
    "secret_content_reason",
    "secret_reason",
]

DEFAULT_MAX_FILE_BYTES = 200_000

# The secret-file rules: one table (secret_files.SECRET_RULES), also shown in docs/context.md.
SECRET_PATTERNS = tuple(rule.pattern for rule in SECRET_RULES)

_GLOB_CHARS = set("*?[")


def secret_reason(path: str) -> str | None:
    """Why ``path`` is left out as a likely secret (its name or location), or None."""
    rule = secret_rule_for(path)
    if rule is None:
        return None
    return f"looks like a secret: {rule.pattern} holds {rule.holds} (name it explicitly to send it)"


def secret_content_reason(text: str) -> str | None:
    """Why a file with this text is left out as a likely secret (a key in it), or None."""
    held = secret_content(text)
    return None if held is None else secret_reason_for(held)


def secret_reason_for(held: str) -> str:
    """The reason given for a file holding ``held`` ("a private key")."""
    return f"looks like a secret: holds {held} (name it explicitly to send it)"


def explicit_paths(pathspecs: Sequence[str]) -> set[str]:
    """Pathspecs that name one file literally (no glob, no magic): the user asked for them."""
    return {p for p in pathspecs if not p.startswith(":") and not (_GLOB_CHARS & set(p))}


def narrows(pathspecs: Sequence[str]) -> bool:
    """Whether ``pathspecs`` choose files (a path, folder or glob), not only leave some out
    (``:(exclude)x``, ``:!x``, ``:^x``): the files such pathspecs choose are the ones asked for."""
    return any(not re.match(r":(!|\^|\([^)]*exclude[^)]*\))", p) for p in pathspecs)


# Characters that would let a file's name rewrite the request it is written into: line breaks
# and other C0/C1 controls (a name "x\n```\n\nRequest: ..." would close the fence and plant a
# request), and the marks that reorder text when shown.
_UNSAFE_NAME = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def name_reason(path: str) -> str | None:
    """Why a file cannot be named in a request (its name), or None."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:  # surrogate escapes: bytes git holds that are not UTF-8
        return "file name is not UTF-8"
    if _UNSAFE_NAME.search(path):
        return "file name holds a control or text-direction character"
    return None


class _Entry(Protocol):
    @property
    def size(self) -> int: ...

    @property
    def is_regular(self) -> bool: ...


def ineligible(
    path: str,
    entry: _Entry,
    *,
    named: bool,
    ignored: bool,
    max_bytes: int,
    index_max: int | None = None,
) -> str | None:
    """Why the file at ``path`` is not sent (or indexed), or None: the one rule the whole-file
    selection and the context index both apply, in this order. ``named``: a pathspec named it
    literally (the user asked: secrets and size limits give way); ``ignored``: .gpteignore
    excludes it."""
    reason = name_reason(path)
    if reason is not None:
        return reason
    if not entry.is_regular:
        return "symlink or submodule"
    if ignored and not named:
        return "excluded by .gpteignore"
    secret = secret_reason(path)
    if secret is not None and not named:
        return secret
    if index_max is not None and entry.size > index_max:
        return f"{entry.size:,} bytes, too big to index"
    if entry.size > max_bytes and not named:
        return over_limit_reason(entry.size, max_bytes)
    return None


def over_limit_reason(size: int, max_bytes: int) -> str:
    return f"{size:,} bytes, over the {max_bytes:,}-byte limit"
