"""What to run: a script from the repository, or a command line the user configured.

A script runs as ``bash <path>`` — an argument vector, never text pasted into a shell string.
A command line (``--command``, ``[run] test``/``build`` in gpt-engineer.toml) is the user's own
text and runs as ``bash -c <text>``, as typed.
"""

from __future__ import annotations

import posixpath
import shlex
from dataclasses import dataclass

from ..errors import UsageError

DEFAULT_ENTRYPOINT = "run.sh"


@dataclass(frozen=True)
class RunCommand:
    """``argv`` is relative to the checkout root; ``entrypoint`` is the script's repository path."""

    argv: tuple[str, ...]
    display: str
    source: str
    entrypoint: str | None = None

    @classmethod
    def script(cls, path: str, *, source: str = "--entrypoint") -> RunCommand:
        clean = normalize_entrypoint(path)
        # "./" keeps a name starting with "-" from being read as a bash option.
        arg = clean if not clean.startswith("-") else f"./{clean}"
        return cls(
            argv=("bash", arg),
            display=f"bash {shlex.quote(clean)}",
            source=source,
            entrypoint=clean,
        )

    @classmethod
    def shell(cls, text: str, *, source: str = "--command") -> RunCommand:
        if not text.strip():
            raise UsageError(f"the command from {source} is empty")
        return cls(argv=("bash", "-c", text), display=text, source=source)


def normalize_entrypoint(path: str) -> str:
    """A clean repository-relative path; absolute paths, ``..`` and ``.git`` are refused."""
    raw = path.replace("\\", "/").strip()
    if not raw:
        raise UsageError("the entrypoint path is empty")
    if raw.startswith("/"):
        raise UsageError(f"entrypoint {path!r} must be a path inside the repository, not absolute")
    clean = posixpath.normpath(raw)
    parts = clean.split("/")
    if clean in (".", "") or ".." in parts:
        raise UsageError(f"entrypoint {path!r} points outside the repository")
    if ".git" in parts:
        raise UsageError(f"entrypoint {path!r} is inside .git")
    return clean
