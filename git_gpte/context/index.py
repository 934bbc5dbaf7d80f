"""Which files of a commit can be sent, and bringing the index up to date for them.

The rules of what may leave the machine are the selection's (``pipeline/selection.py``) and
apply *before* anything is read or indexed: symlinks and submodules, ``.gpteignore``, files
that look like secrets and files over the size limit are left out unless named literally by a
pathspec; binary and non-UTF-8 blobs are recorded as such and never ranked. Only blobs the
index has not seen are read, in one streaming ``git cat-file --batch``; so after a commit that
changes three files, three blobs are parsed.
"""

from __future__ import annotations

import os
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import InitVar, dataclass, field
from typing import TYPE_CHECKING

from ..git.pathspecs import match_paths
from ..git.repo import Repository, TreeEntry, decode_text
from .listing_cache import cached
from .parse import parse_file
from .path_facts import PathFacts, path_facts
from .rules import DEFAULT_MAX_FILE_BYTES, explicit_paths, ineligible, over_limit_reason
from .secret_files import secret_content
from .store import IndexStore, Stored, stored

if TYPE_CHECKING:
    from concurrent.futures import Future

# Never indexed, even when named: a "text" file this big is data, and reading it costs memory.
INDEX_MAX_BYTES = 5_000_000
# Show progress when a build has taken this long.
PROGRESS_AFTER_S = 1.0
# Files per write transaction. Each commit writes the WAL out; 200 per commit spent 22 s of a
# 100,000-file build in commits, 2,000 spend 6 s (bench/context_scale.py). The write lock is
# held only while a batch is stored, not while it is parsed. A batch of big files is written
# once it holds _WRITE_BYTES of source, so memory stays bounded.
_WRITE_BATCH = 2000
_WRITE_BYTES = 32 << 20


@dataclass(frozen=True, slots=True)
class Candidate:
    """A file of the commit that may be ranked."""

    path: str
    blob: str
    size: int
    # Over the size limit (and not named): its excerpts may be sent, never the whole file.
    in_part: bool = False
    # What the path says (kept with the listing); None: worked out here.
    known: InitVar[PathFacts | None] = None
    facts: PathFacts = field(init=False, compare=False, repr=False)
    # The index key: the blob id plus how it is parsed (the same bytes as .py and .txt differ).
    key: str = field(init=False, compare=False, repr=False)

    def __post_init__(self, known: PathFacts | None) -> None:
        # Slots and eager fields: 100,000 candidates with cached properties in a __dict__ each
        # took 38 MiB more than these (bench/context_scale.py).
        facts = known if known is not None else path_facts(self.path)
        object.__setattr__(self, "facts", facts)
        object.__setattr__(self, "key", f"{self.blob}:{facts.language or 'text'}")


@dataclass
class Candidates:
    files: list[Candidate] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    named: set[str] = field(default_factory=set)


# A Listing as pickled: named, skipped, then its columns (path facts as plain tuples).
_ListingState = tuple[
    set[str],
    dict[str, str],
    list[str],
    list[str],
    list[str],
    list[int],
    list[tuple[object, ...]],
]


class Listing:
    """The files of a commit that may be sent (their tree entries, and what each path says),
    and those left out with their reason.

    Kept between runs (:mod:`.listing_cache`) as columns of plain values: unpickling 100,000
    tree entries and path facts as objects was a tenth of a warm ``git gpte context``
    (bench/context_scale.py), and the ranking needs no tree entry, only the values in them. The
    entries are made when first asked for (the whole-file selection walks them)."""

    def __init__(self, named: set[str]) -> None:
        self.named = named
        self.skipped: dict[str, str] = {}
        self.paths: list[str] = []
        self.modes: list[str] = []
        self.shas: list[str] = []
        self.sizes: list[int] = []
        self.facts: list[PathFacts] = []  # of each file, in their order
        self._entries: list[TreeEntry] | None = None

    def add(self, entry: TreeEntry, facts: PathFacts) -> None:
        """A file that may be sent, after those added before."""
        self.paths.append(entry.path)
        self.modes.append(entry.mode)
        self.shas.append(entry.sha)
        self.sizes.append(entry.size)
        self.facts.append(facts)
        self._entries = None

    @property
    def entries(self) -> list[TreeEntry]:
        """The files that may be sent, as tree entries, in their order."""
        if self._entries is None:
            columns = zip(self.paths, self.modes, self.shas, self.sizes, strict=True)
            self._entries = [TreeEntry(*entry) for entry in columns]
        return self._entries

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Listing) and self.__getstate__() == other.__getstate__()

    def __getstate__(self) -> _ListingState:
        facts: list[tuple[object, ...]] = [tuple(facts) for facts in self.facts]
        return (self.named, self.skipped, self.paths, self.modes, self.shas, self.sizes, facts)

    def __setstate__(self, state: _ListingState) -> None:
        self.named, self.skipped, self.paths, self.modes, self.shas, self.sizes, facts = state
        make = tuple.__new__  # PathFacts' own __new__ is Python code: 100,000 calls
        self.facts = [make(PathFacts, values) for values in facts]
        self._entries = None


def eligible_entries(
    repo: Repository,
    commit: str,
    pathspecs: Sequence[str] = (),
    *,
    max_bytes: int = DEFAULT_MAX_FILE_BYTES,
    index_max: int | None = INDEX_MAX_BYTES,
) -> Listing:
    """The one walk over ``commit``'s files that both the index and the whole-file selection
    take, applying :func:`ineligible` to each (``index_max=None``: no indexing limit); kept
    between runs (:mod:`.listing_cache`)."""
    return cached(
        repo,
        commit,
        pathspecs,
        (max_bytes, index_max),
        lambda: _eligible_entries(repo, commit, pathspecs, max_bytes, index_max),
    )


def _eligible_entries(
    repo: Repository,
    commit: str,
    pathspecs: Sequence[str],
    max_bytes: int,
    index_max: int | None,
) -> Listing:
    listing = Listing(named=explicit_paths(pathspecs))
    entries: dict[str, TreeEntry] = {e.path: e for e in repo.tree_entries(commit)}
    matched = match_paths(repo, commit, pathspecs)
    wanted: Sequence[str] = matched.paths if matched.paths is not None else list(entries)
    for path in sorted(set(wanted)):
        entry = entries.get(path)
        if entry is None:
            continue
        reason = ineligible(
            path,
            entry,
            named=path in listing.named,
            ignored=path in matched.ignored,
            max_bytes=max_bytes,
            index_max=index_max,
        )
        if reason is not None:
            listing.skipped[path] = reason
        else:
            listing.add(entry, path_facts(path))
    return listing


def list_candidates(
    repo: Repository,
    commit: str,
    pathspecs: Sequence[str] = (),
    *,
    max_bytes: int = DEFAULT_MAX_FILE_BYTES,
    in_part: bool = False,
) -> Candidates:
    """The files of ``commit`` that may be ranked, and those left out with their reason.

    ``in_part``: source files over ``max_bytes`` (up to what is indexed) are candidates too, for
    excerpts only (``Candidate.in_part``): the definitions a request needs in a huge module are
    worth sending, the module never is. (A huge lock file, SVG or data file is not source: still
    left out.)"""
    limit = INDEX_MAX_BYTES if in_part else max_bytes
    listing = eligible_entries(repo, commit, pathspecs, max_bytes=limit)
    files = []
    named = listing.named
    columns = zip(listing.paths, listing.shas, listing.sizes, listing.facts, strict=True)
    for path, sha, size, known in columns:
        over = size > max_bytes and path not in named
        if over and known.language is None:
            listing.skipped[path] = over_limit_reason(size, max_bytes)
            continue
        files.append(Candidate(path, sha, size, in_part=over, known=known))
    return Candidates(files=files, skipped=listing.skipped, named=named)


ProgressFn = Callable[[int, int], None]


def terminal_progress() -> ProgressFn:
    """Progress on stderr: a rewritten line on a terminal, a single line otherwise (CI logs)."""
    tty = sys.stderr.isatty() and os.environ.get("CI", "") == ""
    said = [False]
    # Our own carriage return: written past the terminal filter, which turns every \r into a
    # newline (git_gpte.terminal).
    raw = getattr(sys.stderr, "raw", sys.stderr)

    def show(done: int, total: int) -> None:
        if tty:
            end = "\n" if done >= total else ""
            raw.write(f"\rgit-gpte: indexing {done:,}/{total:,} files{end}")
            raw.flush()
        elif not said[0]:
            said[0] = True
            sys.stderr.write(f"git-gpte: indexing {total:,} files\n")
            sys.stderr.flush()

    return show


def ensure_indexed(
    repo: Repository,
    store: IndexStore,
    files: Sequence[Candidate],
    progress: ProgressFn | None = None,
    workers: int | None = None,
) -> int:
    """Index every candidate the store lacks; returns how many blobs were parsed.

    ``workers``: processes that parse (None: one per CPU this process may use, up to
    MAX_WORKERS, for a build of at least PARALLEL_MIN_BYTES; 1: none, all in this process)."""
    absent = set(store.missing([c.key for c in files]))
    if not absent:
        return 0
    # One candidate per blob and parser (the last of its paths): as many as are parsed.
    missing = list({c.key: c for c in files if c.key in absent}.values())
    by_blob: dict[str, list[tuple[str, str]]] = {}
    for c in missing:
        by_blob.setdefault(c.blob, []).append((c.key, c.path))
    if workers is None:
        workers = _workers(sum(c.size for c in missing))
    jobs = _jobs(repo.read_blobs(list(by_blob)), by_blob)
    if workers > 1:
        # Imported here: a warm run, which parses nothing, does not pay for them.
        from concurrent.futures.process import BrokenProcessPool

        try:
            return _store_all(store, _in_processes(jobs, workers), len(missing), progress)
        except (OSError, BrokenProcessPool):
            # No processes to be had here (a sandbox, a limit): what was stored stays, the
            # rest is parsed in this process.
            return ensure_indexed(repo, store, files, progress, workers=1)
    return _store_all(store, map(_parse_job, jobs), len(missing), progress)


# A cold build of this much source is parsed in worker processes: about a second of parsing
# (mypy's 1,900 files, 20 MB: 9 s in one process), against the 0.2-0.4 s a process takes to
# start.
PARALLEL_MIN_BYTES = 2 << 20
# At most this many workers: each holds about 50 MB (its interpreter, the parsers, a few jobs),
# and past a few the process writing what they parse is what a build waits for.
MAX_WORKERS = 4
# Blobs per job sent to a worker, and jobs in flight per worker (memory holds these, not the
# tree).
_JOB_FILES = 16
_JOB_BYTES = 1 << 20
_IN_FLIGHT = 4

# One job: (key, path) pairs to parse each blob as, with its bytes.
_Job = list[tuple[list[tuple[str, str]], bytes]]


def _workers(nbytes: int) -> int:
    if nbytes < PARALLEL_MIN_BYTES or not _program_is_git_gpte():
        return 1
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, MAX_WORKERS))


def _program_is_git_gpte() -> bool:
    """Whether this process is git-gpte's own command (its script or ``python -m git_gpte``).
    Only then are workers spawned: a spawned worker imports the program's main module again
    (Python's rule for ``spawn``), and a program calling git-gpte as a library need not guard
    its top level with ``if __name__ == "__main__"``."""
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    if spec is not None and (spec.name or "").split(".")[0] == "git_gpte":
        return True
    name = os.path.basename(getattr(main, "__file__", None) or "")
    return name.removesuffix(".exe").removesuffix("-script.py") == "git-gpte"


def _jobs(
    blobs: Iterator[tuple[str, bytes]], by_blob: dict[str, list[tuple[str, str]]]
) -> Iterator[_Job]:
    job: _Job = []
    size = 0
    for blob, data in blobs:
        job.append((by_blob[blob], data))
        size += len(data)
        if len(job) >= _JOB_FILES or size >= _JOB_BYTES:
            yield job
            job, size = [], 0
    if job:
        yield job


def _parse_job(job: _Job) -> list[Stored]:
    """The rows of a job's blobs (pure: run in a worker process or in this one)."""
    rows: list[Stored] = []
    for parsed_as, data in job:
        text = decode_text(data)
        held = secret_content(text) if text is not None else None
        for key, path in parsed_as:
            rows.append(stored(key, None if text is None else parse_file(path, text), held))
    return rows


def _in_processes(jobs: Iterator[_Job], workers: int) -> Iterator[list[Stored]]:
    """Each job's rows, in order, parsed by ``workers`` processes started fresh (``spawn``:
    a forked worker would hold this process's pipes to git and its index connection)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(workers, mp_context=context) as pool:
        pending: deque[Future[list[Stored]]] = deque()
        try:
            for job in jobs:
                pending.append(pool.submit(_parse_job, job))
                if len(pending) >= workers * _IN_FLIGHT:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            for future in pending:
                future.cancel()


def _store_all(
    store: IndexStore, parsed: Iterable[list[Stored]], total: int, progress: ProgressFn | None
) -> int:
    """Write the rows as they come, in transactions of _WRITE_BATCH files or _WRITE_BYTES."""
    started = time.monotonic()
    shown = False
    done = 0
    batch: list[Stored] = []
    batch_bytes = 0
    for rows in parsed:
        batch.extend(rows)
        batch_bytes += sum(row.nbytes for row in rows)
        done += len(rows)
        if len(batch) >= _WRITE_BATCH or batch_bytes >= _WRITE_BYTES:
            store.put(batch)
            batch = []
            batch_bytes = 0
        if progress is not None and (shown or time.monotonic() - started > PROGRESS_AFTER_S):
            progress(done, total)
            shown = True
    if batch:
        store.put(batch)
    if shown and progress is not None:
        progress(total, total)
    return done
