import pytest

import ratelimit
from bench_checks.behaviour import FakeClock, check_behaviour


def test_no_raise_returns_none():
    clock = FakeClock()
    calls = []

    @ratelimit.rate_limited(ratelimit.SlidingWindowLimiter(2, 10, clock=clock), raise_on_limit=False)
    def work(x):
        calls.append(x)
        return x + 1

    assert work(1) == 2
    assert work(2) == 3
    assert work(3) is None
    assert calls == [1, 2]
    clock.advance(11)
    assert work(4) == 5


def test_no_raise_with_bucket():
    @ratelimit.rate_limited(ratelimit.TokenBucket(1, 1.0, clock=FakeClock()), raise_on_limit=False)
    def ping():
        return "pong"

    assert ping() == "pong"
    assert ping() is None


def test_default_still_raises():
    @ratelimit.rate_limited(ratelimit.SlidingWindowLimiter(1, 10, clock=FakeClock()))
    def ping():
        return "pong"

    ping()
    with pytest.raises(ratelimit.RateLimitExceeded):
        ping()

    @ratelimit.rate_limited(ratelimit.SlidingWindowLimiter(1, 10, clock=FakeClock()), raise_on_limit=True)
    def pong():
        return "ping"

    pong()
    with pytest.raises(ratelimit.RateLimitExceeded):
        pong()


def test_behaviour_unchanged():
    check_behaviour()
