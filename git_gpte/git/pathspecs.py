"""Which paths of a commit a set of pathspecs (and an ignore file) selects.

Full pathspec syntax (globs, ``:(exclude)``, ``:(literal)``…) is git's own: ``git ls-files``
runs on a temporary index loaded from the commit's tree, never on the user's index.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import GitCommandError, UsageError
from .repo import Repository


@dataclass
class Matched:
    """``paths``: what the pathspecs select (None: no pathspecs, so every file); ``ignored``:
    the selected paths the ignore file excludes."""

    paths: list[str] | None = None
    ignored: set[str] = field(default_factory=set)


def match_paths(
    repo: Repository, rev: str, pathspecs: Sequence[str] = (), ignore_file: Path | None = None
) -> Matched:
    """Paths of ``rev`` matching ``pathspecs`` (a pathspec matching nothing is a UsageError)
    and those excluded by ``ignore_file`` (gitignore syntax)."""
    matched = Matched()
    if not pathspecs and ignore_file is None:
        return matched
    with repo.temporary_index(rev) as env:

        def ls_files(*args: str) -> list[str]:
            out = repo._git("ls-files", "-z", "--full-name", *args, env=env, strip=False)
            return [p for p in out.split("\0") if p]

        if pathspecs:
            try:
                matched.paths = ls_files("--error-unmatch", "--", *pathspecs)
            except GitCommandError as exc:
                unmatched = str(exc).split("error: ", 1)[-1]
                unmatched = unmatched.split(" Did you forget", 1)[0]  # they are not sent anyway
                raise UsageError(
                    f"pathspec did not match any tracked file at {rev[:12]}: {unmatched}"
                ) from None
        if ignore_file is not None:
            matched.ignored = set(
                ls_files("-c", "-i", f"--exclude-from={ignore_file}", "--", *pathspecs)
            )
    return matched
