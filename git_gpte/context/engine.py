"""``select``: list the candidates, update the index, rank, pack. The one place that opens the
index, so a broken index file is handled here: moved aside, rebuilt, and the query re-run."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence

from ..git.repo import Repository
from .index import ensure_indexed, list_candidates
from .model import ContextSelection
from .pack import pack
from .rank import rank
from .rules import DEFAULT_MAX_FILE_BYTES
from .store import IndexStore


def run_select(
    repo: Repository,
    commit: str,
    request: str,
    budget: int,
    pathspecs: Sequence[str] = (),
    *,
    map_share: float = 0.1,
    max_file_bytes: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> ContextSelection:
    candidates = list_candidates(
        repo, commit, pathspecs, max_bytes=max_file_bytes or DEFAULT_MAX_FILE_BYTES
    )
    map_budget = int(budget * max(0.0, min(map_share, 0.5)))
    directory = repo.state_dir()
    for attempt in range(2):
        store = IndexStore(directory)
        try:
            ensure_indexed(repo, store, candidates.files, progress)
            ranking = rank(store, candidates.files, request)
        except sqlite3.DatabaseError:
            store.close()
            if attempt:
                raise
            IndexStore.discard(directory)
            continue
        finally:
            store.close()
        break
    skipped = dict(candidates.skipped)
    for path in ranking.binary:
        skipped[path] = "binary or not UTF-8"
    picks, entries = pack(ranking, budget - map_budget, map_budget)
    return ContextSelection(
        commit=commit,
        request=request,
        budget=budget,
        picks=tuple(picks),
        map=tuple(entries),
        skipped=skipped,
        candidates=len(ranking.files),
        tokens_exact=False,
    )
