import ratelimit
from bench_checks.behaviour import FakeClock, check_behaviour


def test_call_window_old_has_expired():
    clock = FakeClock(100.0)
    limiter = ratelimit.SlidingWindowLimiter(limit=2, window=10, clock=clock)
    assert limiter.allow() and limiter.allow()
    clock.advance(9.5)
    assert not limiter.allow()
    assert limiter.remaining() == 0
    clock.advance(0.5)
    assert limiter.remaining() == 2
    assert limiter.retry_after() == 0.0
    assert limiter.allow()


def test_waiting_retry_after_is_enough():
    clock = FakeClock(0.0)
    limiter = ratelimit.SlidingWindowLimiter(limit=1, window=4, clock=clock)
    assert limiter.allow("a")
    clock.advance(1)
    assert not limiter.allow("a")
    clock.advance(limiter.retry_after("a"))
    assert limiter.allow("a")


def test_behaviour_unchanged():
    check_behaviour()
