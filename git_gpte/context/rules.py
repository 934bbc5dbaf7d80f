"""What must never be sent by accident: the rules both the file selection and the index apply.

Files that usually hold credentials (rule 5 of the design: never sent unless named explicitly)
and files over the size limit are left out unless a pathspec names them literally. Pure
functions on paths; no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence

from .secret_files import SECRET_RULES, looks_secret, secret_content, secret_rule_for

__all__ = [
    "DEFAULT_MAX_FILE_BYTES",
    "SECRET_PATTERNS",
    "explicit_paths",
    "looks_secret",
    "secret_content_reason",
    "secret_reason",
]

DEFAULT_MAX_FILE_BYTES = 200_000

# The secret-file rules: one table (secret_files.SECRET_RULES), also shown in README.md.
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
    if held is None:
        return None
    return f"looks like a secret: holds {held} (name it explicitly to send it)"


def explicit_paths(pathspecs: Sequence[str]) -> set[str]:
    """Pathspecs that name one file literally (no glob, no magic): the user asked for them."""
    return {p for p in pathspecs if not p.startswith(":") and not (_GLOB_CHARS & set(p))}
