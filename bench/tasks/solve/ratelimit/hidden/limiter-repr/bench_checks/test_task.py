import ratelimit
from bench_checks.behaviour import check_behaviour


def test_repr():
    assert repr(ratelimit.SlidingWindowLimiter(5, 10)) == "SlidingWindowLimiter(limit=5, window=10.0)"
    assert repr(ratelimit.SlidingWindowLimiter(limit=3, window=0.5)) == "SlidingWindowLimiter(limit=3, window=0.5)"


def test_behaviour_unchanged():
    check_behaviour()
