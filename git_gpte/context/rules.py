"""What must never be sent by accident: the rules both the file selection and the index apply.

Files that usually hold credentials (rule 5 of the design: never sent unless named explicitly)
and files over the size limit are left out unless a pathspec names them literally. Pure
functions on paths; no I/O.
"""

from __future__ import annotations

import fnmatch
import posixpath
from collections.abc import Sequence

DEFAULT_MAX_FILE_BYTES = 200_000

# Base names that usually hold credentials.
SECRET_PATTERNS = (
    ".env",
    ".env.*",
    "*.env",
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    "*.jks",
    "*.keystore",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    ".netrc",
    ".pgpass",
    ".npmrc",
    ".pypirc",
    "credentials",
    "credentials.*",
    "*credentials*.json",
    "secrets.*",
    "*.secret",
    "*.secrets",
)

_GLOB_CHARS = set("*?[")


def looks_secret(path: str) -> bool:
    name = posixpath.basename(path).lower()
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in SECRET_PATTERNS)


def explicit_paths(pathspecs: Sequence[str]) -> set[str]:
    """Pathspecs that name one file literally (no glob, no magic): the user asked for them."""
    return {p for p in pathspecs if not p.startswith(":") and not (_GLOB_CHARS & set(p))}
