"""The run log: every command that talks to a model leaves a row in ``.git/gpte/runs.sqlite``.

A *run* is one command (``improve``, ``heal``, ...): its prompt, model, base commit, outcome and
the branch/commit it produced. Each model call inside it is an *exchange*: the messages sent
(images by path and checksum, never inlined), the reply, tokens, cost, finish reason, whether it
came from the cache, how many tries it took and the error if it failed. Run totals are the sum of
the exchanges that were actually paid for (cache hits cost nothing), never a cumulative figure.

Run ids are 12 hex digits; like commit ids, any unique prefix of four or more finds a run.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import socket
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from .. import __version__
from ..errors import GpteError, Interrupted, UsageError
from .db import Database, Migration, database_error, rollback, utc_now
from .usage import Usage

DB_NAME = "runs.sqlite"

MIGRATIONS: list[Migration] = [
    (
        "0001_runs_and_exchanges",
        """
        CREATE TABLE runs (
            id TEXT PRIMARY KEY,
            started_at TEXT NOT NULL,
            finished_at TEXT,
            command TEXT NOT NULL,
            prompt TEXT NOT NULL DEFAULT '',
            model TEXT,
            provider TEXT,
            base TEXT,
            outcome TEXT NOT NULL DEFAULT 'running',
            branch TEXT,
            commit_id TEXT,
            detail TEXT,
            tokens_in INTEGER NOT NULL DEFAULT 0,
            tokens_out INTEGER NOT NULL DEFAULT 0,
            cost_usd REAL,
            cost_known INTEGER NOT NULL DEFAULT 1,
            calls INTEGER NOT NULL DEFAULT 0,
            version TEXT,
            meta TEXT NOT NULL DEFAULT '{}'
        );
        CREATE INDEX runs_started ON runs (started_at);
        CREATE TABLE exchanges (
            id INTEGER PRIMARY KEY,
            run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            started_at TEXT NOT NULL,
            elapsed REAL NOT NULL DEFAULT 0,
            model TEXT,
            provider TEXT,
            messages TEXT NOT NULL,
            images TEXT NOT NULL DEFAULT '[]',
            reply TEXT NOT NULL DEFAULT '',
            tokens_in INTEGER NOT NULL DEFAULT 0,
            tokens_out INTEGER NOT NULL DEFAULT 0,
            usage_exact INTEGER NOT NULL DEFAULT 1,
            cost_usd REAL,
            finish_reason TEXT,
            cached INTEGER NOT NULL DEFAULT 0,
            attempts INTEGER NOT NULL DEFAULT 1,
            error TEXT
        );
        CREATE INDEX exchanges_run ON exchanges (run_id, seq)
        """,
    ),
    (
        # Review records (git gpte review): one per run and install; see git_gpte/feedback.
        "0002_feedback",
        """
        CREATE TABLE feedback (
            id INTEGER PRIMARY KEY,
            run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
            install_id TEXT NOT NULL,
            reviewed_at TEXT NOT NULL,
            record TEXT NOT NULL,
            UNIQUE (run_id, install_id)
        )
        """,
    ),
    (
        # Whether the run's token counts all came from the provider (0: some were estimated).
        "0003_runs_usage_exact",
        "ALTER TABLE runs ADD COLUMN usage_exact INTEGER NOT NULL DEFAULT 1",
    ),
    (
        # The process (and machine) a run is recorded by: a run whose process is gone without
        # recording how it ended (killed) is found and marked interrupted.
        "0004_runs_process",
        "ALTER TABLE runs ADD COLUMN pid INTEGER; ALTER TABLE runs ADD COLUMN host TEXT",
    ),
    (
        # Why a reply was ended early by git-gpte (it began copying what it was shown, it had
        # given what was asked): the reply logged is what was kept, and this says why.
        "0005_exchanges_stopped",
        "ALTER TABLE exchanges ADD COLUMN stopped TEXT",
    ),
]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: alive
        return True
    return True


@dataclass
class Exchange:
    """One model call as it is logged."""

    messages: list[dict[str, Any]]
    reply: str
    model: str
    provider: str
    tokens_in: int = 0
    tokens_out: int = 0
    usage_exact: bool = True
    cost_usd: float | None = None
    finish_reason: str | None = None
    cached: bool = False
    elapsed: float = 0.0
    attempts: int = 1
    error: str | None = None
    stopped: str = ""  # why git-gpte ended the reply early ("": it was not)
    images: list[dict[str, Any]] = field(default_factory=list)
    started_at: str = field(default_factory=utc_now)
    seq: int = 0


@dataclass
class RunRecord:
    """A run as read back from the log."""

    id: str
    started_at: str
    finished_at: str | None
    command: str
    prompt: str
    model: str | None
    provider: str | None
    base: str | None
    outcome: str
    branch: str | None
    commit: str | None
    detail: str | None
    tokens_in: int
    tokens_out: int
    cost_usd: float | None
    calls: int
    version: str | None
    meta: dict[str, Any]
    exchanges: list[Exchange] = field(default_factory=list)
    usage_exact: bool = True

    @property
    def usage(self) -> Usage:
        return Usage(self.tokens_in, self.tokens_out, self.cost_usd, self.usage_exact)

    def to_dict(self, *, exchanges: bool = True) -> dict[str, Any]:
        data = asdict(self)
        if not exchanges:
            data.pop("exchanges")
        return data


def _record(row: sqlite3.Row) -> RunRecord:
    return RunRecord(
        id=row["id"],
        started_at=row["started_at"],
        finished_at=row["finished_at"],
        command=row["command"],
        prompt=row["prompt"],
        model=row["model"],
        provider=row["provider"],
        base=row["base"],
        outcome=row["outcome"],
        branch=row["branch"],
        commit=row["commit_id"],
        detail=row["detail"],
        tokens_in=row["tokens_in"],
        tokens_out=row["tokens_out"],
        cost_usd=row["cost_usd"] if row["cost_known"] else None,
        calls=row["calls"],
        version=row["version"],
        meta=json.loads(row["meta"] or "{}"),
        usage_exact=bool(row["usage_exact"]),
    )


def _exchange(row: sqlite3.Row) -> Exchange:
    return Exchange(
        messages=json.loads(row["messages"]),
        reply=row["reply"],
        model=row["model"],
        provider=row["provider"],
        tokens_in=row["tokens_in"],
        tokens_out=row["tokens_out"],
        usage_exact=bool(row["usage_exact"]),
        cost_usd=row["cost_usd"],
        finish_reason=row["finish_reason"],
        cached=bool(row["cached"]),
        elapsed=row["elapsed"],
        attempts=row["attempts"],
        error=row["error"],
        stopped=row["stopped"] or "",
        images=json.loads(row["images"] or "[]"),
        started_at=row["started_at"],
        seq=row["seq"],
    )


class Run:
    """A run being recorded: its row, its exchanges, its end. A ``Session`` owns it and is what
    ends it (on every way out, Ctrl-C included); nothing else finishes a run."""

    def __init__(self, log: RunLog, run_id: str) -> None:
        self.log = log
        self.id = run_id
        self.finished = False
        self.outcome: str | None = None
        self._seq = 0

    # ------------------------------------------------------------------ recording
    def update(self, **fields: Any) -> None:
        """Fill in what was learnt after start (``prompt``, ``model``, ``provider``, ``base``,
        ``meta``)."""
        allowed = {"prompt", "model", "provider", "base", "meta", "command"}
        unknown = set(fields) - allowed
        if unknown:
            raise TypeError(f"cannot update {sorted(unknown)}")
        if "meta" in fields:
            fields["meta"] = json.dumps(fields["meta"], sort_keys=True, default=str)
        # meta is merged into what is there (JSON merge patch), so keys noted meanwhile
        # (``note``) are kept.
        sets = ", ".join(
            "meta = json_patch(COALESCE(meta, '{}'), ?)" if name == "meta" else f"{name} = ?"
            for name in fields
        )
        self.log.conn.execute(f"UPDATE runs SET {sets} WHERE id = ?", (*fields.values(), self.id))

    def note(self, key: str, value: Any) -> None:
        """Set ``meta[key]`` to ``value`` (JSON), keeping the rest of ``meta``."""
        self.log.conn.execute(
            "UPDATE runs SET meta = json_set(COALESCE(meta, '{}'), ?, json(?)) WHERE id = ?",
            (f'$."{key}"', json.dumps(value, sort_keys=True, default=str), self.id),
        )

    def record(self, exchange: Exchange) -> None:
        """Log one model call and add what it cost to the run's totals."""
        self._seq += 1
        exchange.seq = self._seq
        conn = self.log.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute(
                "INSERT INTO exchanges (run_id, seq, started_at, elapsed, model, provider,"
                " messages, images, reply, tokens_in, tokens_out, usage_exact, cost_usd,"
                " finish_reason, cached, attempts, error, stopped)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    self.id,
                    exchange.seq,
                    exchange.started_at,
                    exchange.elapsed,
                    exchange.model,
                    exchange.provider,
                    json.dumps(exchange.messages, ensure_ascii=False),
                    json.dumps(exchange.images),
                    exchange.reply,
                    exchange.tokens_in,
                    exchange.tokens_out,
                    int(exchange.usage_exact),
                    exchange.cost_usd,
                    exchange.finish_reason,
                    int(exchange.cached),
                    exchange.attempts,
                    exchange.error,
                    exchange.stopped or None,
                ),
            )
            paid = not exchange.cached
            spent = exchange.tokens_in or exchange.tokens_out
            cost_known = exchange.cost_usd is not None or not paid or not spent
            conn.execute(
                "UPDATE runs SET calls = calls + 1,"
                " tokens_in = tokens_in + ?, tokens_out = tokens_out + ?,"
                " cost_usd = COALESCE(cost_usd, 0) + ?,"
                " cost_known = cost_known AND ?, usage_exact = usage_exact AND ?"
                " WHERE id = ?",
                (
                    exchange.tokens_in if paid else 0,
                    exchange.tokens_out if paid else 0,
                    (exchange.cost_usd or 0.0) if paid else 0.0,
                    int(cost_known),
                    int(exchange.usage_exact or not paid or not spent),
                    self.id,
                ),
            )
            conn.execute("COMMIT")
        except BaseException:
            rollback(conn)
            raise

    def finish(
        self,
        outcome: str,
        *,
        branch: str | None = None,
        commit: str | None = None,
        detail: str | None = None,
    ) -> None:
        """Record how the run ended; the first call wins (later ones are ignored)."""
        if self.finished:
            return
        self.log.conn.execute(
            "UPDATE runs SET outcome = ?, finished_at = ?, branch = COALESCE(?, branch),"
            " commit_id = COALESCE(?, commit_id), detail = COALESCE(?, detail) WHERE id = ?",
            (outcome, utc_now(), branch, commit, detail, self.id),
        )
        self.finished = True
        self.outcome = outcome


def ending(exc: BaseException | None) -> tuple[str, str | None]:
    """The outcome and detail recorded for a run whose block ended with ``exc`` (None: it
    succeeded): one mapping for the run log's own blocks and for sessions."""
    if exc is None:
        return "ok", None
    if isinstance(exc, (KeyboardInterrupt, Interrupted)):
        if isinstance(exc, Interrupted) and exc.message:
            return "interrupted", exc.render()
        return "interrupted", "interrupted (Ctrl-C, SIGTERM or SIGHUP)"
    if isinstance(exc, GpteError):
        return outcome_for(exc), exc.render()
    text = " ".join(str(exc).split())
    return "error", f"{type(exc).__name__}: {text}"[:2000]


def outcome_for(error: BaseException) -> str:
    """The outcome word for a run that ended with ``error``."""
    from ..errors import ConfigError, EditError, LLMError

    if isinstance(error, (KeyboardInterrupt, Interrupted)):
        return "interrupted"
    if isinstance(error, LLMError):
        return "llm-error"
    if isinstance(error, ConfigError):
        return "config-error"
    if isinstance(error, EditError):
        return "no-edits"
    return "error"


class RunLog(Database):
    """``RunLog(repo.state_dir())``: start runs, list them, read one back."""

    file_name = DB_NAME
    migrations = MIGRATIONS

    def start(
        self,
        command: str,
        *,
        prompt: str = "",
        model: str | None = None,
        provider: str | None = None,
        base: str | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> Run:
        self.sweep()
        for _ in range(10):
            run_id = secrets.token_hex(6)
            try:
                self._insert_run(
                    "INSERT INTO runs (id, started_at, command, prompt, model, provider, base,"
                    " version, meta, pid, host) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        run_id,
                        utc_now(),
                        command,
                        prompt,
                        model,
                        provider,
                        base,
                        __version__,
                        json.dumps(dict(meta or {}), sort_keys=True, default=str),
                        os.getpid(),
                        socket.gethostname(),
                    ),
                )
            except sqlite3.IntegrityError:
                continue
            return Run(self, run_id)
        raise RuntimeError("could not allocate a unique run id")  # pragma: no cover

    def _insert_run(self, sql: str, params: tuple[Any, ...]) -> None:
        conn = self.conn
        try:
            conn.execute(sql, params)
        except sqlite3.IntegrityError:
            raise
        except sqlite3.Error as exc:
            raise database_error(self.path, exc) from None

    def sweep(self) -> int:
        """Mark as interrupted the runs still "running" whose process on this machine is gone
        (killed with SIGKILL, or the machine stopped): they will never record their end.
        Returns how many."""
        host = socket.gethostname()
        rows = self.conn.execute(
            "SELECT id, pid FROM runs WHERE outcome = 'running' AND host = ? AND pid IS NOT NULL",
            (host,),
        ).fetchall()
        gone = [row["id"] for row in rows if row["pid"] != os.getpid() and not _alive(row["pid"])]
        for run_id in gone:
            self.conn.execute(
                "UPDATE runs SET outcome = 'interrupted', finished_at = ?, detail = ?"
                " WHERE id = ? AND outcome = 'running'",
                (utc_now(), "the process ended without recording how (killed?)", run_id),
            )
        return len(gone)

    def list(self, limit: int | None = None) -> list[RunRecord]:
        """Runs, newest first (without their exchanges). No database yet: no runs."""
        if self._conn is None and not self.path.exists():
            return []
        with contextlib.suppress(sqlite3.Error):  # a read-only log is still listed
            self.sweep()
        sql = "SELECT * FROM runs ORDER BY started_at DESC, rowid DESC"
        params: tuple[Any, ...] = ()
        if limit is not None:
            sql += " LIMIT ?"
            params = (limit,)
        return [_record(row) for row in self.conn.execute(sql, params)]

    def get(self, run_id: str) -> RunRecord:
        """A run with its exchanges, by id or unique prefix (at least four characters)."""
        wanted = run_id.strip().lower()
        if len(wanted) < 4 or any(c not in "0123456789abcdef" for c in wanted):
            raise UsageError(f"not a run id: {run_id!r}", hint="see 'git gpte log'")
        if self._conn is None and not self.path.exists():
            raise UsageError(f"no run {run_id!r}: nothing has been recorded yet")
        rows = self.conn.execute(
            "SELECT * FROM runs WHERE id LIKE ? ORDER BY started_at", (wanted + "%",)
        ).fetchall()
        if not rows:
            raise UsageError(f"no run {run_id!r}", hint="see 'git gpte log'")
        if len(rows) > 1:
            ids = ", ".join(row["id"] for row in rows[:5])
            raise UsageError(f"run id {run_id!r} is ambiguous: {ids}")
        record = _record(rows[0])
        record.exchanges = [
            _exchange(row)
            for row in self.conn.execute(
                "SELECT * FROM exchanges WHERE run_id = ? ORDER BY seq", (record.id,)
            )
        ]
        return record

    def on_branch(self, branch: str) -> Sequence[RunRecord]:
        """The runs that recorded ``branch`` as theirs, oldest first (without exchanges)."""
        if self._conn is None and not self.path.exists():
            return []
        rows = self.conn.execute(
            "SELECT * FROM runs WHERE branch = ? ORDER BY started_at, rowid", (branch,)
        )
        return [_record(row) for row in rows]

    def latest_branch(self) -> str | None:
        """The branch of the newest run that recorded one (what ``--on -`` continues)."""
        if self._conn is None and not self.path.exists():
            return None
        row = self.conn.execute(
            "SELECT branch FROM runs WHERE branch IS NOT NULL AND branch != ''"
            " ORDER BY started_at DESC, rowid DESC LIMIT 1"
        ).fetchone()
        return str(row["branch"]) if row else None

    def latest(self) -> RunRecord | None:
        runs = self.list(limit=1)
        return self.get(runs[0].id) if runs else None
