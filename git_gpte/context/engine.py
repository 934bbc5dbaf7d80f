"""``select``: list the candidates, update the index, rank, pack. The one place that opens the
index, so a broken index file is handled here: moved aside, rebuilt, and the query re-run."""

from __future__ import annotations

import functools
import gc
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import ParamSpec, TypeVar

from ..errors import GitCommandError, RepoError
from ..git.history import PastCommit, RecentChanges
from ..git.repo import Repository, decode_text
from .exact import (
    Counter,
    EncodingUnavailable,
    O200k,
    RememberedCounts,
    Texts,
    bytes4,
    counted,
    fill,
    grown,
    o200k_counter,
)
from .index import Candidate, Candidates, ensure_indexed, list_candidates
from .model import ContextSelection, MapEntry, Pick, SymbolLocation
from .pack import Packing
from .parse import FileRecord, definition_end
from .past import DEPTH as PAST_DEPTH
from .past import release_weights
from .places import output_places
from .rank import Ranking, rank
from .recency import DEPTH, file_weights
from .request import names_version
from .reverted import MAX_PATHS as MAX_REVERTED_PATHS
from .reverted import Hunk, parse_hunks, reverted_ids, reverted_spans, reverted_subject
from .rules import DEFAULT_MAX_FILE_BYTES, narrows, secret_reason_for
from .stated import Held, asked, stated_lines
from .store import BlobFacts, DamagedRows, IndexBusy, IndexStore
from .tokens import token_mode
from .weights import WEIGHTS, Weights

T = TypeVar("T")
R = TypeVar("R")
P = ParamSpec("P")

_SECRET = "secret:"  # the start of a blob's status when its text holds a key (store.py)


def _with_index(repo: Repository, work: Callable[[IndexStore], T]) -> T:
    """``work`` on the repository's index. An index SQLite cannot read is moved aside and
    ``work`` runs once more on a fresh one; rows that cannot be read are deleted and ``work``
    runs once more, indexing those files again (a broken index is rebuilt, never fatal)."""
    try:
        directory: Path | None = repo.state_dir()
    except RepoError:
        directory = None  # .git cannot be written: an index in memory, for this run only
    for attempt in range(3):
        try:
            store = IndexStore(directory)
        except IndexBusy as exc:
            raise _busy(exc) from None
        try:
            return work(store)
        except IndexBusy as exc:
            raise _busy(exc) from None
        except DamagedRows:
            if attempt == 2:
                raise
        except sqlite3.DatabaseError:
            if attempt == 2:
                raise
            store.close()
            if directory is not None:
                IndexStore.discard(directory)
        finally:
            store.close()
    raise AssertionError("unreachable: the last attempt returns or raises")


def _busy(exc: IndexBusy) -> RepoError:
    return RepoError(
        f"the context index is in use: {exc}",
        hint="let the other git-gpte run finish; if none is running, delete that file "
        "(it is rebuilt)",
    )


def _history(repo: Repository, commit: str) -> RecentChanges:
    """What the latest commits changed; nothing when git cannot tell (a shallow or odd
    history is no reason to fail a selection)."""
    try:
        return repo.recent_changes(commit, DEPTH)
    except GitCommandError:
        return RecentChanges()


def _past(repo: Repository, commit: str, weights: Weights, request: str) -> tuple[PastCommit, ...]:
    """Earlier commits' subjects and paths (see past.py); nothing when no signal reads them
    for this request or git cannot tell."""
    if not weights.past and not (weights.release and names_version(request)):
        return ()
    try:
        return repo.past_commits(commit, PAST_DEPTH)
    except GitCommandError:
        return ()


def _reverted(
    repo: Repository, commit: str, request: str
) -> dict[str, tuple[tuple[int, int], ...]]:
    """Per file a request reverting a commit changes, the lines of it found (reverted.py);
    nothing when the request reverts no commit this history holds, or git cannot tell."""
    subject = reverted_subject(request)
    ids = reverted_ids(request)
    if not ids and subject is None:
        return {}
    try:
        found = [repo.commit_id(sha) for sha in ids] if ids else []
        if not any(found) and subject is not None:
            found = [repo.commit_with_subject(commit, subject, PAST_DEPTH)]
        hunks: dict[str, tuple[Hunk, ...]] = {}
        for sha in (sha for sha in found if sha is not None):
            for path, more in parse_hunks(repo.commit_diff(sha, 1)).items():
                hunks[path] = hunks.get(path, ()) + more
        if len(hunks) > MAX_REVERTED_PATHS:
            return {}  # a sweeping commit points nowhere; its files are not read
        paths = sorted(hunks)
        blobs = dict(
            zip(paths, repo.object_ids([f"{commit}:{path}" for path in paths]), strict=True)
        )
        read = dict(repo.read_blobs(sorted({blob for blob in blobs.values() if blob})))
    except GitCommandError:
        return {}
    texts = {path: decode_text(read[blob]) if blob else None for path, blob in blobs.items()}
    return reverted_spans(hunks, {path: text for path, text in texts.items() if text is not None})


def _stated(
    repo: Repository,
    commit: str,
    request: str,
    files: Sequence[Candidate],
    past: Sequence[PastCommit],
    weights: Weights,
) -> dict[str, Held]:
    """The files among ``files`` stating what the request asks to change (its version, its
    Python versions, its copyright: stated.py), with the lines; those earlier releases changed
    first (``past``). For most requests none, and no git grep."""
    statements = asked(request) if weights.stated or weights.chunk_stated else ()
    if not statements:
        return {}
    held: dict[str, Held] = {}
    paths = {c.path for c in files}
    releases = release_weights(past)
    # One git grep for every kind asked: each walks the whole tree (0.08 s on mypy's).
    words = tuple(dict.fromkeys(word for statement in statements for word in statement.words))
    try:
        holding = [(p, n, text) for p, n, text in repo.lines_holding(commit, words) if p in paths]
    except GitCommandError:  # git cannot tell: no such signal
        return {}
    for statement in statements:
        found = [(p, n) for p, n, text in holding if statement.states(p, text)]
        kept = stated_lines(
            found, statement.max_per_file, releases if statement.released_first else ()
        )
        for path, lines in kept.items():
            before = held.get(path)
            if before is None:
                held[path] = Held(lines, statement.reason)
            else:
                held[path] = before._replace(lines=tuple(sorted({*before.lines, *lines})))
    return held


def _places(request: str, files: Sequence[Candidate]) -> dict[str, tuple[int, ...]]:
    """Per file, the lines a traceback or an error message in the request names."""
    places: dict[str, tuple[int, ...]] = {}
    for path, line in output_places(request, (c.path for c in files)):
        places[path] = (*places.get(path, ()), line)
    return places


def _no_collector_pauses(work: Callable[P, R]) -> Callable[P, R]:
    """``work`` with the cyclic garbage collector off while it runs. A selection on a big
    repository makes hundreds of thousands of small objects without cycles (tree entries,
    candidates, scores), and the collector walks all of them again each time enough new ones
    were made: a quarter of a warm run on 100,000 files (bench/context_scale.py). Reference
    counting still frees everything; the collector runs again afterwards."""

    @functools.wraps(work)
    def without_pauses(*args: P.args, **kwargs: P.kwargs) -> R:
        enabled = gc.isenabled()
        gc.disable()
        try:
            return work(*args, **kwargs)
        finally:
            if enabled:
                gc.enable()

    return without_pauses


@_no_collector_pauses
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
    weights: Weights = WEIGHTS,
) -> ContextSelection:
    map_budget = int(budget * max(0.0, min(map_share, 0.5)))
    ranking, skipped = _ranking(repo, commit, request, pathspecs, max_file_bytes, progress, weights)
    packing = Packing(ranking, budget - map_budget, map_budget)
    picks, entries = packing.result()
    exact = False
    count = o200k_counter()
    if count is not None:
        filled = _with_index(
            repo,
            lambda store: _fill(
                store, ranking, packing, budget - map_budget, map_budget, _texts(repo), count
            ),
        )
        if filled is not None:
            picks, entries, exact = filled
    elif token_mode() == "bytes4":  # charged as packing counts already: only fill's growth
        texts = _texts(repo)(picks)
        picks = counted(grown(picks, texts, bytes4, budget - map_budget), texts, bytes4)
    return ContextSelection(
        commit=commit,
        request=request,
        budget=budget,
        picks=tuple(picks),
        map=tuple(entries),
        skipped=skipped,
        candidates=len(ranking.files),
        tokens_exact=exact,
    )


def _fill(
    store: IndexStore,
    ranking: Ranking,
    packing: Packing,
    budget: int,
    map_budget: int,
    texts: Texts,
    count: Counter,
) -> tuple[list[Pick], list[MapEntry], bool] | None:
    """:func:`fill`, counting o200k by way of the counts the index keeps (and keeping the new
    ones); None when the encoding cannot be loaded after all (the estimates stand)."""
    remembered = RememberedCounts(count, store) if isinstance(count, O200k) else None
    try:
        filled = fill(
            ranking, packing, budget, map_budget, texts, count if remembered is None else remembered
        )
    except EncodingUnavailable:
        return None
    if remembered is not None:
        remembered.keep()
    return filled


def run_best_definitions(
    repo: Repository, commit: str, request: str, pathspecs: Sequence[str], limit: int
) -> list[SymbolLocation]:
    """The definitions the request matches best, best first, at most ``limit``: of the chunks
    ranked as for a selection, the functions, methods and classes (a small class is one chunk)
    that match the request themselves (a member of a matching class, or a neighbour in a
    matching file, is not one)."""
    ranking, _ = _ranking(repo, commit, request, pathspecs, None, None, WEIGHTS)
    found: list[SymbolLocation] = []
    for scored in ranking.chunks:
        record = scored.file.record
        if record is None or not scored.reasons:
            continue
        chunk = record.chunks[scored.index]
        if chunk.kind in ("function", "method", "class"):  # a small class is one chunk
            path = scored.file.cand.path
            found.append(SymbolLocation(chunk.name, path, chunk.start, chunk.end, chunk.kind))
            if len(found) == limit:
                break
    return found


def _ranking(
    repo: Repository,
    commit: str,
    request: str,
    pathspecs: Sequence[str],
    max_file_bytes: int | None,
    progress: Callable[[int, int], None] | None,
    weights: Weights,
) -> tuple[Ranking, dict[str, str]]:
    """The candidates of ``commit`` ranked for ``request``, and the files left out, with why."""
    candidates = list_candidates(
        repo, commit, pathspecs, max_bytes=max_file_bytes or DEFAULT_MAX_FILE_BYTES, in_part=True
    )
    history = _history(repo, commit)
    past = _past(repo, commit, weights, request)
    reverted = _reverted(repo, commit, request)

    held: dict[str, str] = {}

    def work(store: IndexStore) -> Ranking:
        ensure_indexed(repo, store, candidates.files, progress)
        # The one content gate: a file holding a key is left out of what is ranked, listed and
        # sent, unless a pathspec named it.
        facts = store.facts([c.key for c in candidates.files])
        held.clear()
        held.update(_held_back(candidates, facts))
        files = [c for c in candidates.files if c.path not in held] if held else candidates.files
        recent = file_weights(history.commits)
        ranking = rank(
            store,
            files,
            request,
            recent,
            history.lines,
            weights=weights,
            facts=facts,
            past=past,
            reverted=reverted,
            places=_places(request, files) if weights.place or weights.chunk_place else {},
            stated=_stated(repo, commit, request, files, past, weights),
        )
        if narrows(pathspecs):  # the user chose these files: each counts as named
            for file_score in ranking.files:
                file_score.named = True
        return ranking

    ranking = _with_index(repo, work)
    skipped = {**candidates.skipped, **held}
    for path in ranking.binary:
        skipped[path] = "binary or not UTF-8"
    return ranking, skipped


def _held_back(candidates: Candidates, facts: BlobFacts) -> dict[str, str]:
    """The candidates whose text holds a key, each with what it holds, unless a pathspec named
    it. Found among the statuses that are not ``ok``: few files hold one, and asking each of
    100,000 was a twentieth of a warm run."""
    found = {key: status for key, status in facts.statuses.items() if status.startswith(_SECRET)}
    if not found:
        return {}
    return {
        c.path: secret_reason_for(found[c.key][len(_SECRET) :])
        for c in candidates.files
        if c.key in found and c.path not in candidates.named
    }


def _texts(repo: Repository) -> Callable[[Sequence[Pick]], dict[str, str]]:
    """The picked files' texts, read from the repository by their blobs."""

    def read(picks: Sequence[Pick]) -> dict[str, str]:
        paths: dict[str, list[str]] = {}
        for pick in picks:
            paths.setdefault(pick.blob, []).append(pick.path)
        out = {}
        for blob, data in repo.read_blobs(list(paths)):
            text = decode_text(data) or ""
            for path in paths[blob]:
                out[path] = text
        return out

    return read


def run_locate(
    repo: Repository,
    commit: str,
    names: Sequence[str],
    pathspecs: Sequence[str] = (),
    *,
    max_file_bytes: int | None = None,
) -> dict[str, list[SymbolLocation]]:
    candidates = list_candidates(
        repo, commit, pathspecs, max_bytes=max_file_bytes or DEFAULT_MAX_FILE_BYTES
    )
    by_key = {c.key: c for c in candidates.files}
    simple = sorted({name.rsplit(".", 1)[-1] for name in names if name})

    def work(store: IndexStore) -> tuple[dict[str, list[str]], dict[str, FileRecord]]:
        ensure_indexed(repo, store, candidates.files)
        definers = store.definers(simple, set(by_key))
        return definers, store.records(sorted({k for keys in definers.values() for k in keys}))

    definers, records = _with_index(repo, work)
    found: dict[str, list[SymbolLocation]] = {}
    for name in names:
        short = name.rsplit(".", 1)[-1]
        hits: list[SymbolLocation] = []
        for key in definers.get(short, []):
            record = records.get(key)
            if record is None:
                continue
            for def_name, index in record.defs:
                chunk = record.chunks[index]
                qualified = chunk.name or def_name
                if def_name != short or not (
                    qualified == name or qualified.endswith("." + name) or name == short
                ):
                    continue
                end = definition_end(record, index)
                hits.append(
                    SymbolLocation(qualified, by_key[key].path, chunk.start, end, chunk.kind)
                )
        hits.sort(key=lambda h: (h.name != name, h.path, h.start))
        found[name] = hits
    # A method of a small class has no chunk of its own: its class's chunk holds it.
    missing = [n for n, hits in found.items() if not hits and "." in n]
    if missing:
        outer = run_locate(
            repo,
            commit,
            [n.rsplit(".", 1)[0] for n in missing],
            pathspecs,
            max_file_bytes=max_file_bytes,
        )
        for name in missing:
            found[name] = outer.get(name.rsplit(".", 1)[0], [])
    return found
