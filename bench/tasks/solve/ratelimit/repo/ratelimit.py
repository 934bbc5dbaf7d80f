"""Rate limiting: a token bucket, a sliding-window limiter and a decorator.

    bucket = TokenBucket(capacity=10, refill_rate=2.0)   # bursts of 10, then 2 a second
    if bucket.try_acquire():
        send()

    per_user = SlidingWindowLimiter(limit=100, window=60)   # 100 calls a minute per key

    @rate_limited(per_user, key=lambda user, *args, **kwargs: user)
    def fetch(user, url):
        ...

Both limiters take a ``clock`` (a function returning seconds) so tests can move time
by hand instead of sleeping.
"""

import functools
import threading
import time
from collections import deque

# Seconds in each unit parse_rate understands.
UNITS = {
    "s": 1.0,
    "sec": 1.0,
    "second": 1.0,
    "m": 60.0,
    "min": 60.0,
    "minute": 60.0,
    "h": 3600.0,
    "hour": 3600.0,
    "d": 86400.0,
    "day": 86400.0,
}


class RateLimitExceeded(Exception):
    """A call was refused; ``retry_after`` says how many seconds until it would be allowed."""

    def __init__(self, name, retry_after):
        super().__init__(f"rate limit exceeded for {name}, retry in {retry_after:.2f}s")
        self.name = name
        self.retry_after = retry_after


def parse_rate(text):
    """Parse a rate such as '10/s', '100/min' or '5/hours' into (count, seconds)."""
    count, _, unit = text.partition("/")
    unit = unit.strip().lower()
    if unit.endswith("s") and unit[:-1] in UNITS:
        unit = unit[:-1]
    return int(count), UNITS[unit]


class TokenBucket:
    """Allows bursts of up to ``capacity`` calls, refilled at ``refill_rate`` tokens a second."""

    def __init__(self, capacity, refill_rate, clock=time.monotonic):
        self.capacity = capacity
        self.refill_rate = refill_rate
        self.clock = clock
        self._tokens = float(capacity)
        self._updated = clock()
        self._lock = threading.Lock()

    @classmethod
    def from_rate(cls, text, burst=None, clock=time.monotonic):
        """A bucket for a rate like '5/s'; ``burst`` defaults to the count."""
        count, seconds = parse_rate(text)
        return cls(burst or count, count / seconds, clock=clock)

    def _refill(self):
        now = self.clock()
        elapsed = now - self._updated
        if elapsed > 0:
            self._tokens = min(self.capacity, self._tokens + elapsed * self.refill_rate)
            self._updated = now

    @property
    def tokens(self):
        """Tokens in the bucket right now."""
        with self._lock:
            self._refill()
            return self._tokens

    def try_acquire(self, tokens=1):
        """Take ``tokens`` if the bucket has them; returns whether it did."""
        if tokens > self.capacity:
            raise ValueError(f"cannot take {tokens} tokens from a bucket of {self.capacity}")
        with self._lock:
            self._refill()
            if self._tokens >= tokens:
                self._tokens -= tokens
                return True
            return False

    def wait_time(self, tokens=1):
        """Seconds until ``tokens`` will be available (0.0 if they are now)."""
        with self._lock:
            self._refill()
            missing = tokens - self._tokens
        if missing <= 0:
            return 0.0
        if self.refill_rate <= 0:
            return float("inf")
        return missing / self.refill_rate

    def acquire(self, tokens=1, timeout=None, sleep=time.sleep):
        """Wait until ``tokens`` can be taken, then take them.

        Returns False if that would take longer than ``timeout`` seconds.
        """
        deadline = None if timeout is None else self.clock() + timeout
        while not self.try_acquire(tokens):
            wait = self.wait_time(tokens)
            if wait == float("inf"):
                return False
            if deadline is not None and self.clock() + wait > deadline:
                return False
            sleep(wait)
        return True

    def reset(self):
        with self._lock:
            self._tokens = float(self.capacity)
            self._updated = self.clock()


class SlidingWindowLimiter:
    """At most ``limit`` calls in any ``window`` seconds, counted separately for each key."""

    def __init__(self, limit, window, clock=time.monotonic):
        self.limit = limit
        self.window = float(window)
        self.clock = clock
        self._calls = {}
        self._lock = threading.Lock()

    @classmethod
    def from_rate(cls, text, clock=time.monotonic):
        count, seconds = parse_rate(text)
        return cls(count, seconds, clock=clock)

    def _expire(self, calls, now):
        cutoff = now - self.window
        while calls and calls[0] < cutoff:
            calls.popleft()

    def allow(self, key="default"):
        """Count a call under ``key`` if the limit allows it; returns whether it did."""
        with self._lock:
            now = self.clock()
            calls = self._calls.setdefault(key, deque())
            self._expire(calls, now)
            if len(calls) >= self.limit:
                return False
            calls.append(now)
            return True

    def remaining(self, key="default"):
        """How many more calls ``key`` may make right now."""
        with self._lock:
            calls = self._calls.get(key)
            if not calls:
                return self.limit
            self._expire(calls, self.clock())
            return max(0, self.limit - len(calls))

    def retry_after(self, key="default"):
        """Seconds until ``key`` may make another call (0.0 if it may now)."""
        with self._lock:
            calls = self._calls.get(key)
            if not calls:
                return 0.0
            now = self.clock()
            self._expire(calls, now)
            if len(calls) < self.limit:
                return 0.0
            return calls[0] + self.window - now

    def reset(self, key=None):
        """Forget the calls of ``key``, or of every key."""
        with self._lock:
            if key is None:
                self._calls.clear()
            else:
                self._calls.pop(key, None)

    def keys(self):
        with self._lock:
            return [key for key, calls in self._calls.items() if calls]


def rate_limited(limiter, key=None):
    """Decorate a function so that calls over the limit raise RateLimitExceeded.

    ``limiter`` is a TokenBucket or a SlidingWindowLimiter. For a sliding window,
    ``key`` is the key to count calls under: a string, or a function called with the
    call's arguments; by default the function's name.
    """

    def decorator(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            if isinstance(limiter, TokenBucket):
                allowed = limiter.try_acquire()
                wait = 0.0 if allowed else limiter.wait_time()
            else:
                name = key(*args, **kwargs) if callable(key) else (key or func.__name__)
                allowed = limiter.allow(name)
                wait = 0.0 if allowed else limiter.retry_after(name)
            if not allowed:
                raise RateLimitExceeded(func.__name__, wait)
            return func(*args, **kwargs)

        wrapper.limiter = limiter
        return wrapper

    return decorator
