"""SQLite files under ``.git/gpte/`` with ordered, recorded schema migrations.

Each database lists its migrations as ``(name, sql)`` in order; the ``_migrations`` table records
which ran, so a newer git-gpte upgrades an older file in place and never runs a step twice. A file
written by a *newer* version (it records a migration this one does not know) is refused rather
than misread.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path

from ..errors import ConfigError

Migration = tuple[str, str]


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def connect(path: Path, migrations: Sequence[Migration]) -> sqlite3.Connection:
    """Open (creating if needed) and migrate the database at ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        conn = sqlite3.connect(path, timeout=15, isolation_level=None)
    except sqlite3.Error as exc:
        raise ConfigError(f"cannot open {path}: {exc}") from None
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA foreign_keys = ON")
    try:
        migrate(conn, migrations)
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise ConfigError(f"{path} is not a usable git-gpte database: {exc}") from None
    return conn


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
            conn.execute("ROLLBACK")
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
