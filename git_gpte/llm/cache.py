"""The opt-in response cache (``--cache`` / ``GPTE_CACHE=1``): ``.git/gpte/cache.sqlite``.

The key is a SHA-256 of the provider, endpoint, model, messages (images by checksum) and every
parameter that changes the answer (temperature, max tokens). Only complete replies are stored,
never truncated or failed ones, so a cache hit is always something the model really finished.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .db import Database, Migration, utc_now

DB_NAME = "cache.sqlite"

MIGRATIONS: list[Migration] = [
    (
        "0001_responses",
        """
        CREATE TABLE responses (
            key TEXT PRIMARY KEY,
            created_at TEXT NOT NULL,
            provider TEXT NOT NULL,
            model TEXT NOT NULL,
            reply TEXT NOT NULL,
            tokens_in INTEGER NOT NULL,
            tokens_out INTEGER NOT NULL,
            usage_exact INTEGER NOT NULL,
            finish_reason TEXT,
            hits INTEGER NOT NULL DEFAULT 0
        )
        """,
    ),
]


@dataclass(frozen=True)
class CachedReply:
    text: str
    tokens_in: int
    tokens_out: int
    usage_exact: bool
    finish_reason: str | None


def cache_key(
    *,
    provider: str,
    base_url: str | None,
    model: str,
    messages: list[dict[str, Any]],
    params: Mapping[str, Any],
) -> str:
    canonical = json.dumps(
        {
            "provider": provider,
            "base_url": base_url,
            "model": model,
            "messages": messages,
            "params": dict(params),
        },
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class ResponseCache(Database):
    file_name = DB_NAME
    migrations = MIGRATIONS

    def get(self, key: str) -> CachedReply | None:
        row = self.conn.execute("SELECT * FROM responses WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        self.conn.execute("UPDATE responses SET hits = hits + 1 WHERE key = ?", (key,))
        return CachedReply(
            text=row["reply"],
            tokens_in=row["tokens_in"],
            tokens_out=row["tokens_out"],
            usage_exact=bool(row["usage_exact"]),
            finish_reason=row["finish_reason"],
        )

    def put(self, key: str, provider: str, model: str, reply: CachedReply) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO responses (key, created_at, provider, model, reply,"
            " tokens_in, tokens_out, usage_exact, finish_reason)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                key,
                utc_now(),
                provider,
                model,
                reply.text,
                reply.tokens_in,
                reply.tokens_out,
                int(reply.usage_exact),
                reply.finish_reason,
            ),
        )
