"""SQLite files under ``.git/gpte/`` with ordered, recorded schema migrations.

Each database lists its migrations as ``(name, sql)`` in order; the ``_migrations`` table records
which ran, so a newer git-gpte upgrades an older file in place and never runs a step twice. A file
written by a *newer* version (it records a migration this one does not know) is refused rather
than misread.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path

from ..errors import ConfigError, GpteError, RepoError

Migration = tuple[str, str]


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def database_error(path: Path, exc: BaseException) -> GpteError:
    """One line for a database that cannot be used, saying how to get going again."""
    reason = str(exc).strip() or type(exc).__name__
    if isinstance(exc, OSError) or any(
        word in reason for word in ("readonly", "read-only", "unable to open", "disk I/O")
    ):
        return RepoError(
            f"cannot write {path}: {exc.strerror if isinstance(exc, OSError) else reason}",
            hint=f"git-gpte keeps its records in {path.parent}: it must be a writable directory",
        )
    if "newer git-gpte" in reason:
        return ConfigError(f"{path}: {reason}")
    return ConfigError(
        f"{path} is not a usable git-gpte database: {reason}",
        hint=f"move it aside and git-gpte starts a new one: mv {path} {path}.broken",
    )


def connect(path: Path, migrations: Sequence[Migration]) -> sqlite3.Connection:
    """Open (creating if needed) and migrate the database at ``path``."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.parent.is_dir():
            raise NotADirectoryError(20, "not a directory", str(path.parent))
        conn = sqlite3.connect(path, timeout=15, isolation_level=None)
    except (OSError, sqlite3.Error) as exc:
        raise database_error(path, exc) from None
    conn.row_factory = sqlite3.Row
    try:
        conn.execute("PRAGMA foreign_keys = ON")
        _write_ahead(conn)
        migrate(conn, migrations)
    except sqlite3.Error as exc:
        conn.close()
        raise database_error(path, exc) from None
    return conn


def _write_ahead(conn: sqlite3.Connection) -> None:
    """A write-ahead log, synced at checkpoints rather than at every commit: a run records a
    dozen small commits, and a sync each (rollback journal, the default) was a tenth of a
    second of every improve. A power cut may lose the last records, never the file (SQLite's
    guarantee for WAL with synchronous=NORMAL). Where the log cannot be made (a read-only
    directory), the default journal stays."""
    with contextlib.suppress(sqlite3.Error):
        if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")


def rollback(conn: sqlite3.Connection) -> None:
    """Roll back the open transaction, if there still is one (an interrupt may have landed
    after COMMIT, or before BEGIN); never raise over the error being handled."""
    if conn.in_transaction:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")


def migrate(conn: sqlite3.Connection, migrations: Sequence[Migration]) -> list[str]:
    """Apply the migrations not yet recorded, in order, each in its own transaction."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS _migrations ("
        " id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, applied_at TEXT NOT NULL)"
    )
    done = {row[0] for row in conn.execute("SELECT name FROM _migrations")}
    known = {name for name, _ in migrations}
    unknown = sorted(done - known)
    if unknown:
        raise sqlite3.DatabaseError(
            f"written by a newer git-gpte (migration {unknown[0]!r}); upgrade git-gpte"
        )
    applied: list[str] = []
    for name, sql in migrations:
        if name in done:
            continue
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Another process may have migrated while we waited for the lock.
            if conn.execute("SELECT 1 FROM _migrations WHERE name = ?", (name,)).fetchone():
                conn.execute("COMMIT")
                continue
            for statement in sql.split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute(
                "INSERT INTO _migrations (name, applied_at) VALUES (?, ?)", (name, utc_now())
            )
            conn.execute("COMMIT")
        except BaseException:
            rollback(conn)
            raise
        applied.append(name)
    return applied


class Database:
    """A lazily opened, migrated SQLite file in the state directory.

    Subclasses name their file and migrations; the connection opens on first use, so building
    the object costs nothing for commands that never touch it.
    """

    file_name = ""
    migrations: Sequence[Migration] = ()

    def __init__(self, state_dir: Path | str) -> None:
        self.path = Path(state_dir) / self.file_name
        self._conn: sqlite3.Connection | None = None

    @property
    def conn(self) -> sqlite3.Connection:
        if self._conn is None:
            self._conn = connect(self.path, self.migrations)
        return self._conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
