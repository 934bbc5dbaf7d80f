"""Which paths of a commit a set of pathspecs (and an ignore file) selects.

Full pathspec syntax (globs, ``:(exclude)``, ``:(literal)``…) is git's own: ``git ls-files``
runs on a temporary index loaded from the commit's tree, never on the user's index.
"""

from __future__ import annotations

import contextlib
import tempfile
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


IGNORE_FILE = ".gpteignore"


def match_paths(
    repo: Repository, rev: str, pathspecs: Sequence[str] = (), ignore: str | None = IGNORE_FILE
) -> Matched:
    """Paths of ``rev`` matching ``pathspecs`` (a pathspec matching nothing is a UsageError)
    and those the ignore file (gitignore syntax) excludes.

    The ignore file is the one committed in ``rev`` (what is sent is that commit, whatever the
    work tree holds: ``--base``, ``--on``, a pull request's head) and, when ``rev`` is HEAD's
    commit, the work tree's too (an edit the user has not committed yet)."""
    matched = Matched()
    sources = _ignore_sources(repo, rev, ignore) if ignore else []
    if not pathspecs and not sources:
        return matched
    with repo.temporary_index(rev) as env, tempfile.TemporaryDirectory() as tmp:

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
        excludes = []
        for number, content in enumerate(sources):
            rules = Path(tmp) / f"ignore-{number}"
            rules.write_bytes(content)
            excludes.append(f"--exclude-from={rules}")
        if excludes:
            matched.ignored = set(ls_files("-c", "-i", *excludes, "--", *pathspecs))
    return matched


def _ignore_sources(repo: Repository, rev: str, name: str) -> list[bytes]:
    """The ignore file's contents: as committed in ``rev``, and the work tree's when ``rev``
    is HEAD's commit (the two are combined: a path either excludes stays out)."""
    found = []
    committed = [e for e in repo.tree_entries(rev, (f":(literal){name}",)) if e.path == name]
    if committed and committed[0].is_regular:
        found.append(repo.read_blob(committed[0].sha))
    local = repo.root / name
    if local.is_file() and repo.has_commits() and repo.resolve_commit("HEAD") == rev:
        with contextlib.suppress(OSError):  # unreadable: the committed rules still hold
            found.append(local.read_bytes())
    return found
