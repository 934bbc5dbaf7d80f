"""The persistent index: one SQLite file, ``.git/gpte/context.sqlite``, keyed by blob id.

Blob ids are content hashes, so every branch and commit shares entries and a commit that
changes three files adds three rows. Besides each blob's record (compressed JSON), the file
keeps two lookup tables so a query reads only what it needs: ``postings`` (term -> blob,
count) for lexical scoring and ``defs`` (symbol name -> blob) for following links.

Safety: WAL journal and a busy timeout let concurrent runs read and write; rows are
content-addressed, so two writers writing the same blob write the same row (``INSERT OR
IGNORE``). A file that is corrupt, not a database, or of another schema version is moved aside
and rebuilt: the index is a cache, never a reason to fail.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sqlite3
import sys
import time
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple, TypeVar

from .parse import FileRecord

T = TypeVar("T")

SCHEMA_VERSION = 13
FILENAME = "context.sqlite"
# How long one write waits for another run's write before saying so, and in all.
BUSY_NOTICE_S = 2.0
BUSY_GIVE_UP_S = 600.0
_BUSY_CODES = (5, 6)  # SQLITE_BUSY, SQLITE_LOCKED
_BATCH = 500  # SQLite's variable limit is 999 on old builds

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS blobs (
    key TEXT PRIMARY KEY,          -- "<blob id>:<language or text>"
    status TEXT NOT NULL,          -- ok | binary | secret:<what it holds>
    lines INTEGER NOT NULL,
    nbytes INTEGER NOT NULL,
    length INTEGER NOT NULL,       -- number of terms (BM25 document length)
    data BLOB                      -- zlib(JSON of FileRecord)
);
CREATE TABLE IF NOT EXISTS postings (
    term TEXT NOT NULL, key TEXT NOT NULL, tf INTEGER NOT NULL,
    PRIMARY KEY (term, key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS defs (
    name TEXT NOT NULL, key TEXT NOT NULL,
    PRIMARY KEY (name, key)
) WITHOUT ROWID;
"""


class IndexBusy(Exception):
    """Another process has held the index's write lock for longer than a run waits."""


def is_busy(exc: sqlite3.Error) -> bool:
    """A lock held by another connection (not a broken file)."""
    code = getattr(exc, "sqlite_errorcode", None)  # Python 3.11+
    if code is not None:
        return code & 0xFF in _BUSY_CODES
    return isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc)


class DamagedRows(Exception):
    """Rows that could not be read (and were deleted): the query is re-run, which indexes
    those blobs again."""

    def __init__(self, keys: Sequence[str]) -> None:
        super().__init__(f"{len(keys)} damaged index row(s) deleted")
        self.keys = list(keys)


def _in_memory() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.executescript(_SCHEMA)
    return conn


def _prepare(conn: sqlite3.Connection) -> tuple[str]:
    """WAL mode, the tables, the schema row; returns the schema version found."""
    mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
    if str(mode).lower() != "wal":
        conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.executescript(_SCHEMA)
    row = conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    if row is None:
        conn.execute(
            "INSERT OR IGNORE INTO meta (key, value) VALUES ('schema', ?)",
            (str(SCHEMA_VERSION),),
        )
        row = conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    return (str(row[0]),)


class BlobStat(NamedTuple):
    """What a query reads of a blob besides its record. A tuple: a warm run on 100,000 files
    makes 100,000 of them, which as frozen dataclasses took twice as long."""

    status: str
    lines: int
    nbytes: int
    length: int


def _chunks(items: Sequence[str]) -> Iterator[Sequence[str]]:
    for i in range(0, len(items), _BATCH):
        yield items[i : i + _BATCH]


class IndexStore:
    """Open (creating or rebuilding as needed) the index at ``directory/context.sqlite``."""

    def __init__(self, directory: Path | None) -> None:
        """``directory`` None: an index in memory (``.git`` cannot be written)."""
        self.path = directory / FILENAME if directory is not None else Path(":memory:")
        self.rebuilt = False
        self.conn = self._open() if directory is not None else _in_memory()
        # What stats() has read: a selection asks for the same 100,000 keys three times (to
        # index, to hold secrets back, to rank), and reading them is a third of a warm run.
        self._stats: dict[str, BlobStat] = {}

    # ------------------------------------------------------------------ opening
    def _connect(self) -> sqlite3.Connection:
        # A short wait per try: a longer one is done by _waiting, which says that it waits.
        conn = sqlite3.connect(self.path, timeout=BUSY_NOTICE_S, isolation_level=None)
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_NOTICE_S * 1000)}")
        # 64 MiB of page cache (default 2 MiB): a cold build's inserts land all over the
        # lookup tables' b-trees.
        conn.execute("PRAGMA cache_size = -65536")
        return conn

    def _waiting(self, work: Callable[[], T]) -> T:
        """``work`` (a write), retried while another run holds the write lock: said once on
        standard error, and given up after BUSY_GIVE_UP_S with :class:`IndexBusy` (the other
        run's index is never discarded for being busy)."""
        started = time.monotonic()
        said = False
        while True:
            try:
                return work()
            except sqlite3.Error as exc:
                if not is_busy(exc):
                    raise
                if time.monotonic() - started > BUSY_GIVE_UP_S:
                    raise IndexBusy(
                        f"{self.path} has been locked by another process for {BUSY_GIVE_UP_S:.0f} s"
                    ) from None
                if not said:
                    print(
                        f"git-gpte: waiting for another git-gpte run that is writing {self.path}",
                        file=sys.stderr,
                        flush=True,
                    )
                    said = True

    def _open(self) -> sqlite3.Connection:
        for _attempt in range(3):
            try:
                conn = self._connect()
                row = self._waiting(functools.partial(_prepare, conn))
                if row[0] == str(SCHEMA_VERSION):
                    conn.execute("SELECT count(*) FROM blobs WHERE rowid < 2").fetchone()
                    return conn
                conn.close()
            except sqlite3.DatabaseError:
                pass
            self._move_aside()
        # A directory we cannot write, or a disk that fails: index in memory for this run.
        return _in_memory()

    def _move_aside(self) -> None:
        self.rebuilt = True
        self.discard(self.path.parent)

    @staticmethod
    def discard(directory: Path) -> None:
        """Put a broken or foreign index out of the way (a rename is atomic, so a concurrent
        run sees either the old file or none), then delete it."""
        path = directory / FILENAME
        aside = path.with_name(f"{path.name}.broken-{os.getpid()}")
        with contextlib.suppress(OSError):
            path.replace(aside)
        for leftover in (aside, Path(f"{path}-wal"), Path(f"{path}-shm")):
            with contextlib.suppress(OSError):
                leftover.unlink()

    def close(self) -> None:
        self.conn.close()

    # ------------------------------------------------------------------ reads
    def stats(self, keys: Sequence[str]) -> dict[str, BlobStat]:
        """The stored facts of each of ``keys`` the index holds (the others are left out)."""
        known = self._read_stats(keys)
        return {key: known[key] for key in keys if key in known}

    def missing(self, keys: Sequence[str]) -> list[str]:
        """Those of ``keys`` the index does not hold (read as :meth:`stats` reads them)."""
        known = self._read_stats(keys)
        return [key for key in keys if key not in known]

    def _read_stats(self, keys: Sequence[str]) -> Mapping[str, BlobStat]:
        """What has been read of the blobs table, with ``keys`` read if they were not."""
        known = self._stats
        unread = [key for key in keys if key not in known]
        if unread:
            wanted = set(unread)
            for key, status, lines, nbytes, length in self._stat_rows(unread):
                if key in wanted:
                    known[key] = BlobStat(status, lines, nbytes, length)
        return known

    def _stat_rows(self, keys: Sequence[str]) -> Iterator[tuple[str, str, int, int, int]]:
        """The blobs rows of ``keys``, and maybe others: when they are a third or more of the
        table (a warm run on a big repository), one pass over it beats looking each up
        (bench/context_scale.py's 100,000 files: stats() in 0.6 s against 1.0 s)."""
        columns = "key, status, lines, nbytes, length"
        if len(keys) > _BATCH:
            (rows,) = self.conn.execute("SELECT max(rowid) FROM blobs").fetchone()
            if rows is not None and len(keys) * 3 >= rows:
                yield from self.conn.execute(f"SELECT {columns} FROM blobs")
                return
        for part in _chunks(keys):
            marks = ",".join("?" * len(part))
            yield from self.conn.execute(
                f"SELECT {columns} FROM blobs WHERE key IN ({marks})", part
            )

    def postings(self, terms: Sequence[str], keys: set[str]) -> dict[str, dict[str, int]]:
        """term -> {key: count} for the given terms, restricted to ``keys``."""
        out: dict[str, dict[str, int]] = {t: {} for t in terms}
        for part in _chunks(terms):
            marks = ",".join("?" * len(part))
            rows = self.conn.execute(
                f"SELECT term, key, tf FROM postings WHERE term IN ({marks})", part
            )
            for term, key, tf in rows:
                if key in keys:
                    out[term][key] = tf
        return out

    def definers(self, names: Sequence[str], keys: set[str]) -> dict[str, list[str]]:
        """name -> keys (in ``keys``) of blobs that define it."""
        out: dict[str, list[str]] = {}
        for part in _chunks(names):
            marks = ",".join("?" * len(part))
            rows = self.conn.execute(f"SELECT name, key FROM defs WHERE name IN ({marks})", part)
            for name, key in rows:
                if key in keys:
                    out.setdefault(name, []).append(key)
        return out

    def records(self, keys: Sequence[str]) -> dict[str, FileRecord]:
        """The records of these blobs; a row that cannot be read is deleted and
        :class:`DamagedRows` raised (the caller runs its query again, re-indexing them)."""
        out: dict[str, FileRecord] = {}
        damaged: list[str] = []
        for part in _chunks(keys):
            marks = ",".join("?" * len(part))
            rows = self.conn.execute(
                f"SELECT key, data FROM blobs WHERE status != 'binary' AND key IN ({marks})",
                part,
            )
            for key, data in rows:
                try:
                    out[key] = FileRecord.from_json(json.loads(zlib.decompress(data)))
                except (zlib.error, ValueError, TypeError, KeyError, AttributeError):
                    damaged.append(key)
        if damaged:
            self.forget(damaged)
            raise DamagedRows(damaged)
        return out

    def forget(self, keys: Sequence[str]) -> None:
        """Delete these blobs' rows and lookup rows (a damaged row is indexed again)."""
        self._stats.clear()
        conn = self.conn
        self._waiting(lambda: conn.execute("BEGIN IMMEDIATE"))
        try:
            for part in _chunks(list(keys)):
                marks = ",".join("?" * len(part))
                for table in ("blobs", "postings", "defs"):
                    conn.execute(f"DELETE FROM {table} WHERE key IN ({marks})", part)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    # ------------------------------------------------------------------ writes
    def put(self, rows: Iterable[tuple[str, FileRecord | None, str | None]]) -> int:
        """Store records (None: a binary or undecodable blob), each with what secret its text
        holds (None: none); one transaction per call.

        The lookup rows of the whole batch go in sorted, in one statement per table: inserts
        in key order touch each b-tree page once, where one blob's rows land on pages all over
        the table (bench/context_scale.py: with the larger page cache, 11 s -> 5 s of a
        100,000-file build).
        """
        count = 0
        self._stats.clear()
        conn = self.conn
        postings: list[tuple[str, str, int]] = []
        defs: set[tuple[str, str]] = set()
        self._waiting(lambda: conn.execute("BEGIN IMMEDIATE"))
        try:
            for key, record, secret in rows:
                if record is None:
                    conn.execute(
                        "INSERT OR IGNORE INTO blobs VALUES (?, 'binary', 0, 0, 0, NULL)", (key,)
                    )
                    count += 1
                    continue
                data = zlib.compress(json.dumps(record.to_json(), separators=(",", ":")).encode())
                status = f"secret:{secret}" if secret else "ok"
                cur = conn.execute(
                    "INSERT OR IGNORE INTO blobs VALUES (?, ?, ?, ?, ?, ?)",
                    (key, status, record.lines, record.nbytes, sum(record.terms.values()), data),
                )
                if cur.rowcount:
                    postings.extend((t, key, n) for t, n in record.terms.items())
                    defs.update((name, key) for name, _ in record.defs)
                count += 1
            postings.sort()
            conn.executemany("INSERT OR IGNORE INTO postings VALUES (?, ?, ?)", postings)
            conn.executemany("INSERT OR IGNORE INTO defs VALUES (?, ?)", sorted(defs))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return count
