import pytest

from ratelimit import (
    RateLimitExceeded,
    SlidingWindowLimiter,
    TokenBucket,
    parse_rate,
    rate_limited,
)


class FakeClock:
    def __init__(self, start=1000.0):
        self.now = start

    def __call__(self):
        return self.now

    def advance(self, seconds):
        self.now += seconds


@pytest.fixture
def clock():
    return FakeClock()


@pytest.mark.parametrize(
    "text, expected",
    [("10/s", (10, 1.0)), ("100/min", (100, 60.0)), ("5/hours", (5, 3600.0)), ("2/ Day", (2, 86400.0))],
)
def test_parse_rate(text, expected):
    assert parse_rate(text) == expected


def test_parse_rate_bad_count():
    with pytest.raises(ValueError):
        parse_rate("many/s")


def test_bucket_burst_then_refill(clock):
    bucket = TokenBucket(capacity=3, refill_rate=1.0, clock=clock)
    assert [bucket.try_acquire() for _ in range(4)] == [True, True, True, False]
    assert bucket.wait_time() == pytest.approx(1.0)
    clock.advance(0.5)
    assert not bucket.try_acquire()
    clock.advance(0.5)
    assert bucket.try_acquire()
    clock.advance(100)
    assert bucket.tokens == 3


def test_bucket_too_many_tokens(clock):
    bucket = TokenBucket(capacity=2, refill_rate=1.0, clock=clock)
    with pytest.raises(ValueError):
        bucket.try_acquire(3)


def test_bucket_acquire_waits(clock):
    bucket = TokenBucket(capacity=1, refill_rate=2.0, clock=clock)
    slept = []

    def sleep(seconds):
        slept.append(seconds)
        clock.advance(seconds)

    assert bucket.acquire(sleep=sleep)
    assert bucket.acquire(sleep=sleep)
    assert slept == [pytest.approx(0.5)]
    assert not bucket.acquire(timeout=0.1, sleep=sleep)


def test_bucket_from_rate_and_reset(clock):
    bucket = TokenBucket.from_rate("4/min", clock=clock)
    assert bucket.capacity == 4
    assert bucket.refill_rate == pytest.approx(4 / 60)
    for _ in range(4):
        bucket.try_acquire()
    bucket.reset()
    assert bucket.tokens == 4


def test_window_limits_per_key(clock):
    limiter = SlidingWindowLimiter(limit=2, window=10, clock=clock)
    assert limiter.allow("a") and limiter.allow("a")
    assert not limiter.allow("a")
    assert limiter.allow("b")
    assert limiter.remaining("a") == 0
    assert limiter.remaining("b") == 1
    assert limiter.remaining("c") == 2
    assert sorted(limiter.keys()) == ["a", "b"]


def test_window_slides(clock):
    limiter = SlidingWindowLimiter(limit=2, window=10, clock=clock)
    limiter.allow()
    clock.advance(4)
    limiter.allow()
    assert limiter.retry_after() == pytest.approx(6)
    clock.advance(7)
    assert limiter.allow()
    assert not limiter.allow()
    assert limiter.retry_after() == pytest.approx(3)


def test_window_reset(clock):
    limiter = SlidingWindowLimiter.from_rate("1/min", clock=clock)
    assert limiter.allow("a") and limiter.allow("b")
    limiter.reset("a")
    assert limiter.allow("a") and not limiter.allow("b")
    limiter.reset()
    assert limiter.allow("b")


def test_decorator_with_window(clock):
    limiter = SlidingWindowLimiter(limit=1, window=5, clock=clock)

    @rate_limited(limiter, key=lambda user, text: user)
    def post(user, text):
        return f"{user}: {text}"

    assert post("ann", "hi") == "ann: hi"
    assert post("bob", "hello") == "bob: hello"
    with pytest.raises(RateLimitExceeded) as info:
        post("ann", "again")
    assert info.value.retry_after == pytest.approx(5)
    assert post.__name__ == "post"
    assert post.limiter is limiter


def test_decorator_with_bucket(clock):
    calls = []

    @rate_limited(TokenBucket(2, 1.0, clock=clock))
    def ping():
        calls.append(1)
        return "pong"

    assert ping() == "pong" and ping() == "pong"
    with pytest.raises(RateLimitExceeded):
        ping()
    assert len(calls) == 2
    clock.advance(1)
    assert ping() == "pong"
