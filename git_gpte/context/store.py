"""The persistent index: one SQLite file, ``.git/gpte/context.sqlite``, keyed by blob id.

Blob ids are content hashes, so every branch and commit shares entries and a commit that
changes three files adds three rows. Besides each blob's record (compressed JSON), the file
keeps lookup tables so a query reads only what it needs: ``postings`` (term -> blob, count)
for lexical scoring, ``defs`` (symbol name -> blob) for following links, and ``links`` (blob
-> its link facts, link_facts.py: what the link signals and packing read of every file, a
small part of its record); ``counts``, the exact token counts of texts a selection was
counted by (exact.py); and ``graphs``, the link graphs of the newest few sets of files
(links.py), which do not depend on the request.

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
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple, TypeVar

from .link_facts import LinkFacts
from .parse import FileRecord

T = TypeVar("T")

SCHEMA_VERSION = 17
FILENAME = "context.sqlite"
# How long one write waits for another run's write before saying so, and in all.
BUSY_NOTICE_S = 2.0
BUSY_GIVE_UP_S = 600.0
_BUSY_CODES = (5, 6)  # SQLITE_BUSY, SQLITE_LOCKED
_BATCH = 500  # SQLite's variable limit is 999 on old builds


class Stored(NamedTuple):
    """One blob's rows as the index writes them. Made where the blob is parsed (a worker
    process, in a large cold build: the JSON and its compression are a tenth of the work), so
    that the process holding the write lock only writes."""

    key: str
    status: str  # ok | binary | secret:<what it holds>
    lines: int
    nbytes: int
    length: int  # number of terms (BM25 document length)
    data: bytes | None  # zlib(JSON of FileRecord)
    terms: dict[str, int]
    defs: tuple[str, ...]
    links: str | None  # JSON of LinkFacts; None for a binary blob


def stored(key: str, record: FileRecord | None, secret: str | None) -> Stored:
    """The rows of one blob: its record (None: binary or undecodable) and what secret its
    text holds (None: none)."""
    if record is None:
        return Stored(key, "binary", 0, 0, 0, None, {}, (), None)
    data = zlib.compress(json.dumps(record.to_json(), separators=(",", ":")).encode())
    facts = json.dumps(LinkFacts.of_record(record).to_json(), separators=(",", ":"))
    return Stored(
        key,
        f"secret:{secret}" if secret else "ok",
        record.lines,
        record.nbytes,
        sum(record.terms.values()),
        data,
        record.terms,
        tuple(dict.fromkeys(name for name, _ in record.defs)),
        facts,
    )


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
CREATE TABLE IF NOT EXISTS links (
    key TEXT PRIMARY KEY,          -- as in blobs; none for a binary blob
    data TEXT NOT NULL             -- JSON of LinkFacts (read for every file: not compressed)
);
CREATE TABLE IF NOT EXISTS counts (
    digest BLOB NOT NULL UNIQUE,   -- of the tokenizer's name and a text (exact.py)
    tokens INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS graphs (
    key TEXT PRIMARY KEY,          -- links.graph_key: the files, the weights, the code
    data BLOB NOT NULL             -- links.LinkGraph.to_bytes
);
"""
# Exact token counts kept (the newest; about 80 bytes each).
COUNTS_KEPT = 100_000
# Link graphs kept (the newest; about a megabyte each for 2,000 files): one per commit a
# user asks about.
GRAPHS_KEPT = 4


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


@dataclass(frozen=True)
class BlobFacts:
    """What a query reads of many blobs besides their records: the number of terms (BM25's
    document length) of each blob the index holds, and the status of those whose status is
    not ``ok`` (binary, or holding a secret: few). Both may hold blobs not asked about."""

    lengths: Mapping[str, int]
    statuses: Mapping[str, str]

    def status(self, key: str) -> str | None:
        """``ok``, ``binary`` or ``secret:<what>``; None for a blob the index does not hold."""
        return self.statuses.get(key, "ok") if key in self.lengths else None


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
        # What facts() has read (see there).
        self._lengths: dict[str, int] = {}
        self._statuses: dict[str, str] = {}

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

    def _forget_facts(self) -> None:
        """Before a write: what facts() read may change."""
        self._lengths.clear()
        self._statuses.clear()

    # ------------------------------------------------------------------ reads
    def facts(self, keys: Sequence[str]) -> BlobFacts:
        """The lengths and statuses of ``keys`` (those the index holds), remembered: a
        selection asks for the same 100,000 keys three times (to index, to hold secrets back,
        to rank)."""
        unread = [key for key in keys if key not in self._lengths]
        if unread:
            self._read_facts(unread)
        return BlobFacts(self._lengths, self._statuses)

    def missing(self, keys: Sequence[str]) -> list[str]:
        """Those of ``keys`` the index does not hold."""
        lengths = self.facts(keys).lengths
        return [key for key in keys if key not in lengths]

    def _read_facts(self, keys: Sequence[str]) -> None:
        """Read the facts of ``keys``, and maybe others: when they are a third or more of the
        table (a warm run on a big repository), the whole table's, in one pass that makes no
        Python object for an ``ok`` status (bench/context_scale.py's 100,000 files: 0.6 s
        looking each up, 0.2 s reading every row whole, 0.1 s this way)."""
        if len(keys) > _BATCH:
            (rows,) = self.conn.execute("SELECT max(rowid) FROM blobs").fetchone()
            if rows is not None and len(keys) * 3 >= rows:
                self._lengths.update(self.conn.execute("SELECT key, length FROM blobs"))
                self._statuses.update(
                    self.conn.execute("SELECT key, status FROM blobs WHERE status != 'ok'")
                )
                return
        for part in _chunks(keys):
            marks = ",".join("?" * len(part))
            rows = self.conn.execute(
                f"SELECT key, status, length FROM blobs WHERE key IN ({marks})", part
            )
            for key, status, length in rows:
                self._lengths[key] = length
                if status != "ok":
                    self._statuses[key] = status

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

    def terms_from(self, prefix: str, limit: int = 64) -> list[str]:
        """The index's distinct terms that start with ``prefix`` (at most ``limit``), each
        found by one seek past the previous term's postings."""
        out: list[str] = []
        after = prefix
        query = "SELECT term FROM postings WHERE term >= ? ORDER BY term LIMIT 1"
        while len(out) < limit:
            row = self.conn.execute(query, (after,)).fetchone()
            if row is None or not row[0].startswith(prefix):
                break
            out.append(row[0])
            after = row[0] + "\x00"
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

    def link_facts(self, keys: Sequence[str]) -> dict[str, LinkFacts]:
        """The link facts of these blobs (none for a binary one); a row that cannot be read is
        deleted with its blob and :class:`DamagedRows` raised, as by :meth:`records`."""
        out: dict[str, LinkFacts] = {}
        damaged: list[str] = []
        for part in _chunks(keys):
            marks = ",".join("?" * len(part))
            rows = self.conn.execute(f"SELECT key, data FROM links WHERE key IN ({marks})", part)
            for key, data in rows:
                try:
                    out[key] = LinkFacts.from_json(json.loads(data))
                except (ValueError, TypeError, KeyError, AttributeError):
                    damaged.append(key)
        if damaged:
            self.forget(damaged)
            raise DamagedRows(damaged)
        return out

    def forget(self, keys: Sequence[str]) -> None:
        """Delete these blobs' rows and lookup rows (a damaged row is indexed again)."""
        self._forget_facts()
        conn = self.conn
        self._waiting(lambda: conn.execute("BEGIN IMMEDIATE"))
        try:
            for part in _chunks(list(keys)):
                marks = ",".join("?" * len(part))
                for table in ("blobs", "postings", "defs", "links"):
                    conn.execute(f"DELETE FROM {table} WHERE key IN ({marks})", part)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def graph(self, key: str) -> bytes | None:
        """The link graph kept under ``key`` (see :meth:`keep_graph`), if any."""
        row = self.conn.execute("SELECT data FROM graphs WHERE key = ?", (key,)).fetchone()
        return None if row is None else bytes(row[0])

    def count(self, digest: bytes) -> int | None:
        """The token count kept for this digest (see :meth:`keep_counts`), if any."""
        row = self.conn.execute("SELECT tokens FROM counts WHERE digest = ?", (digest,)).fetchone()
        return None if row is None else int(row[0])

    # ------------------------------------------------------------------ writes
    def keep_counts(self, counts: Mapping[bytes, int]) -> None:
        """Keep token counts by their texts' digests, the newest COUNTS_KEPT of them. A cache
        like the rest, but not worth waiting for: skipped while another run writes."""
        if not counts:
            return

        def write(conn: sqlite3.Connection) -> None:
            conn.executemany("INSERT OR IGNORE INTO counts VALUES (?, ?)", counts.items())
            conn.execute(
                "DELETE FROM counts WHERE rowid <= (SELECT max(rowid) FROM counts) - ?",
                (COUNTS_KEPT,),
            )

        self._write_unless_busy(write)

    def _write_unless_busy(self, write: Callable[[sqlite3.Connection], None]) -> None:
        """One transaction of ``write``, or nothing if another run holds the write lock (for
        what is kept only to be faster next time)."""
        conn = self.conn
        conn.execute("PRAGMA busy_timeout = 0")
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            if is_busy(exc):
                return
            raise
        finally:
            conn.execute(f"PRAGMA busy_timeout = {int(BUSY_NOTICE_S * 1000)}")
        try:
            write(conn)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def keep_graph(self, key: str, data: bytes) -> None:
        """Keep a link graph, the newest GRAPHS_KEPT of them; skipped while another run
        writes, like the counts."""

        def write(conn: sqlite3.Connection) -> None:
            conn.execute("INSERT OR REPLACE INTO graphs VALUES (?, ?)", (key, data))
            conn.execute(
                "DELETE FROM graphs WHERE rowid <= (SELECT max(rowid) FROM graphs) - ?",
                (GRAPHS_KEPT,),
            )

        self._write_unless_busy(write)

    def put(self, rows: Iterable[Stored]) -> int:
        """Store blobs' rows (see :func:`stored`); one transaction per call.

        The lookup rows of the whole batch go in sorted, in one statement per table: inserts
        in key order touch each b-tree page once, where one blob's rows land on pages all over
        the table (bench/context_scale.py: with the larger page cache, 11 s -> 5 s of a
        100,000-file build).
        """
        count = 0
        self._forget_facts()
        conn = self.conn
        postings: list[tuple[str, str, int]] = []
        defs: set[tuple[str, str]] = set()
        links: list[tuple[str, str]] = []
        self._waiting(lambda: conn.execute("BEGIN IMMEDIATE"))
        try:
            for row in rows:
                cur = conn.execute(
                    "INSERT OR IGNORE INTO blobs VALUES (?, ?, ?, ?, ?, ?)",
                    (row.key, row.status, row.lines, row.nbytes, row.length, row.data),
                )
                if cur.rowcount and row.links is not None:
                    postings.extend((t, row.key, n) for t, n in row.terms.items())
                    defs.update((name, row.key) for name in row.defs)
                    links.append((row.key, row.links))
                count += 1
            postings.sort()
            conn.executemany("INSERT OR IGNORE INTO postings VALUES (?, ?, ?)", postings)
            conn.executemany("INSERT OR IGNORE INTO defs VALUES (?, ?)", sorted(defs))
            conn.executemany("INSERT OR IGNORE INTO links VALUES (?, ?)", sorted(links))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return count
