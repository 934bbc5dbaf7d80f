"""Which files are sent to the model.

The tracked files at the base commit, narrowed by git pathspecs (full pathspec syntax: globs,
``:(exclude)`` and friends, matched by ``git ls-files`` on a temporary index of the base tree),
minus what must never leave the machine by accident: binary and non-UTF-8 files (never, even
when named), files over the size limit and files that look like secrets (unless named
explicitly), submodules and symlinks, and whatever ``.gpteignore`` (gitignore syntax) excludes.
Every file left out is reported with its reason, so nothing is skipped silently.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..context.rules import (  # the rules live with the index, which applies them too
    DEFAULT_MAX_FILE_BYTES,
    SECRET_PATTERNS,
    explicit_paths,
    looks_secret,
    secret_content_reason,
)
from ..errors import UsageError
from ..git.repo import Repository, TreeEntry, decode_text

__all__ = [
    "DEFAULT_MAX_FILE_BYTES",
    "SECRET_PATTERNS",
    "Selection",
    "explicit_paths",
    "looks_secret",
    "select_files",
    "to_top_pathspecs",
]


@dataclass
class Selection:
    """The files to send (path -> text) and the ones left out (path -> reason)."""

    files: dict[str, str] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    entries: dict[str, TreeEntry] = field(default_factory=dict)

    @property
    def total_bytes(self) -> int:
        return sum(len(text.encode("utf-8")) for text in self.files.values())


def to_top_pathspecs(repo: Repository, cwd: str, pathspecs: Sequence[str]) -> list[str]:
    """Pathspecs as typed in ``cwd``, rewritten relative to the repository root."""
    prefix = os.path.relpath(os.path.realpath(cwd), os.path.realpath(repo.root))
    out = []
    for spec in pathspecs:
        if spec.startswith(":") or prefix == ".":
            out.append(spec)
        elif prefix.startswith(".."):
            raise UsageError(f"pathspec {spec!r}: the current directory is outside the repository")
        else:
            out.append(posixpath.normpath(posixpath.join(prefix.replace(os.sep, "/"), spec)))
    return out


def select_files(
    repo: Repository,
    base: str,
    pathspecs: Sequence[str] = (),
    *,
    max_bytes: int = DEFAULT_MAX_FILE_BYTES,
) -> Selection:
    """Choose the files of ``base`` to send; ``pathspecs`` are relative to the repository root."""
    from ..context.index import eligible_entries

    selection = Selection()
    listing = eligible_entries(repo, base, pathspecs, max_bytes=max_bytes, index_max=None)
    selection.skipped.update(listing.skipped)
    named = listing.named
    for entry in listing.entries:
        path = entry.path
        text = decode_text(repo.read_blob(entry.sha))
        if text is None:
            selection.skipped[path] = "binary or not UTF-8"
            continue
        held = secret_content_reason(text) if path not in named else None
        if held is not None:
            selection.skipped[path] = held
            continue
        selection.files[path] = text
        selection.entries[path] = entry
    if not selection.files:
        if selection.skipped:
            reasons = "; ".join(f"{p}: {r}" for p, r in list(selection.skipped.items())[:5])
            raise UsageError(f"no file left to send ({reasons})")
        raise UsageError("no file to send: the selection is empty")
    return selection
