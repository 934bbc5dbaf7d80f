"""The files of a tree that may be sent, kept between runs.

Listing a commit's files and applying the rules to each (symlinks, ``.gpteignore``, secrets,
sizes) is the same work every time the commit is the same, and on a 100,000-file repository it
is a fifth of a warm ``git gpte context`` (``bench/context_scale.py``: ``git ls-tree`` and the
rules, 1.3 s). The result depends on nothing but the tree, the pathspecs, the limits, the
ignore files' text and the rules' own code, so it is kept under a key made of exactly those, in
``.git/gpte/listings/``: a few small files, the newest kept, any of them safe to delete. A file
that cannot be read is ignored and written again; the listing is a cache, never a reason to
fail.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import pickle
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import GitCommandError, RepoError, UsageError
from ..git.pathspecs import IGNORE_FILE

if TYPE_CHECKING:
    from ..git.repo import Repository
    from .index import Listing

DIRECTORY = "listings"
# Listings kept: one per tree and set of pathspecs a user works on, the newest first.
KEPT = 8
# The modules whose rules decide the listing: their text is part of the key, so a new version
# of git-gpte never reads an old version's listing.
_RULE_MODULES = (
    "context/index.py",
    "context/rules.py",
    "context/secret_files.py",
    "context/languages.py",
    "context/listing_cache.py",
    "context/path_facts.py",
    "context/terms.py",
    "git/pathspecs.py",
    "git/repo.py",
)


def cached(
    repo: Repository,
    commit: str,
    pathspecs: Sequence[str],
    limits: tuple[int, int | None],
    compute: Callable[[], Listing],
) -> Listing:
    """``compute()``'s listing of ``commit``, from the cache when it holds it."""
    try:
        directory = repo.state_dir() / DIRECTORY
        key = _key(repo, commit, pathspecs, limits)
    except (RepoError, GitCommandError, UsageError, OSError):
        return compute()
    path = directory / f"{key}.pickle"
    with contextlib.suppress(Exception):  # unreadable, truncated, another version: computed
        with path.open("rb") as handle:
            found = pickle.load(handle)
        if _is_listing(found):
            with contextlib.suppress(OSError):
                os.utime(path)  # newest used: kept longest
            return found  # type: ignore[no-any-return]
    listing = compute()
    with contextlib.suppress(OSError):
        _store(directory, path, listing)
    return listing


def _key(
    repo: Repository, commit: str, pathspecs: Sequence[str], limits: tuple[int, int | None]
) -> str:
    """The tree and the committed ignore file by their ids (one git process), the work tree's
    ignore file by its text when ``commit`` is HEAD's (it counts then: see ``pathspecs``)."""
    tree, ignore = repo.object_ids([f"{commit}^{{tree}}", f"{commit}:{IGNORE_FILE}"])
    if tree is None:
        raise OSError(f"no tree for {commit}")
    digest = hashlib.sha256(_rules_digest())
    digest.update(repr((tree, ignore, list(pathspecs), limits)).encode())
    local = repo.root / IGNORE_FILE
    if local.is_file() and repo.resolve_commit("HEAD") == commit:
        digest.update(hashlib.sha256(local.read_bytes()).digest())
    return digest.hexdigest()[:40]


@functools.cache
def _rules_digest() -> bytes:
    package = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for name in _RULE_MODULES:
        digest.update((package / name).read_bytes())
    return digest.digest()


def _is_listing(found: object) -> bool:
    from .index import Listing

    return isinstance(found, Listing)


def _store(directory: Path, path: Path, listing: Listing) -> None:
    """Write ``listing`` whole or not at all, then drop all but the newest ``KEPT``."""
    directory.mkdir(exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=directory, suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            pickle.dump(listing, out, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    kept = sorted(directory.glob("*.pickle"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in kept[KEPT:]:
        with contextlib.suppress(OSError):
            old.unlink()
