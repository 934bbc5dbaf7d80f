"""When to try an LLM call again, and how long to wait first.

Rate limits (429), overload (529), server errors (5xx), timeouts, dropped connections and replies
cut off mid-stream are retried with exponential backoff and full jitter, honouring the server's
``Retry-After`` (or ``retry-after-ms``). Tries are bounded by ``GPTE_MAX_RETRIES`` and the time
spent retrying (waits, and tries that timed out with no answer) by ``GPTE_MAX_RETRY_SECONDS``: a
server asking for a longer wait than the budget left fails at once rather than hanging the
terminal or a CI job. Authentication and validation
errors (other 4xx) are never retried, nor is an exhausted quota.
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping
from dataclasses import dataclass

from ..config import Settings

RETRYABLE_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504, 520, 522, 524, 529})


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 5  # tries after the first
    max_seconds: float = 120.0  # total time spent waiting between tries
    base_delay: float = 1.0
    max_delay: float = 30.0

    @classmethod
    def from_settings(cls, settings: Settings) -> RetryPolicy:
        retries = settings.get_int(env=("GPTE_MAX_RETRIES",), git="gpte.maxRetries", default=5)
        budget = settings.get_float(
            env=("GPTE_MAX_RETRY_SECONDS",),
            git="gpte.maxRetrySeconds",
            default=120.0,
            what="GPTE_MAX_RETRY_SECONDS",
        )
        return cls(
            max_retries=max(0, retries),
            max_seconds=max(0.0, budget),
            max_delay=min(30.0, max(budget, 0.0)),
        )

    def backoff(self, retry: int, rng: random.Random | None = None) -> float:
        """Full-jitter exponential backoff for the ``retry``-th retry (1-based)."""
        ceiling = min(self.max_delay, self.base_delay * (2 ** (retry - 1)))
        return (rng or random).uniform(ceiling / 2, ceiling)


def parse_retry_after(headers: Mapping[str, str] | None, now: float | None = None) -> float | None:
    """Seconds the server asked us to wait, from ``retry-after-ms`` or ``retry-after``."""
    if not headers:
        return None
    lowered = {k.lower(): v for k, v in headers.items()}
    millis = lowered.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    import email.utils

    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


@dataclass
class RetryClock:
    """Tracks tries and time for one call; decides the next wait or that we must stop.

    The time budget counts the waits between tries *and* the tries that failed without sending
    anything back (a server that accepts the connection and never answers, until the read
    timeout): otherwise six silent timeouts would hold a CI job for many minutes. A try that was
    cut off after part of the reply arrived is not counted: the server was working.
    """

    policy: RetryPolicy
    retries: int = 0
    waited: float = 0.0  # seconds of the budget used so far
    why: str = ""  # why ``next_delay`` said stop, when it was not the number of tries

    def spend(self, seconds: float) -> None:
        """Count ``seconds`` of a failed try against the time budget."""
        self.waited += max(0.0, seconds)

    def next_delay(self, retry_after: float | None) -> float | None:
        """The wait before the next try, or None when the budget (tries or time) is spent."""
        if self.retries >= self.policy.max_retries:
            self.why = ""
            return None
        remaining = self.policy.max_seconds - self.waited
        if remaining <= 0:
            self.why = f"the {self.policy.max_seconds:g}s retry budget is spent"
            return None
        if retry_after is not None:
            delay = retry_after + random.uniform(0, min(1.0, retry_after * 0.1))
            if retry_after > remaining:
                self.why = (
                    f"the server asks to wait {retry_after:.0f}s, more than the {remaining:.0f}s "
                    "left of the retry budget"
                )
                return None
            delay = min(delay, remaining)
        else:
            delay = min(self.policy.backoff(self.retries + 1), remaining)
        self.retries += 1
        self.waited += delay
        return delay
