import ratelimit


class FakeClock:
    def __init__(self, start=500.0):
        self.now = start

    def __call__(self):
        return self.now

    def advance(self, seconds):
        self.now += seconds


def check_behaviour(module=ratelimit):
    assert module.parse_rate("30/min") == (30, 60.0)
    assert module.parse_rate("2/seconds") == (2, 1.0)

    clock = FakeClock()
    bucket = module.TokenBucket(capacity=2, refill_rate=0.5, clock=clock)
    assert bucket.try_acquire() and bucket.try_acquire()
    assert not bucket.try_acquire()
    assert abs(bucket.wait_time() - 2.0) < 1e-9
    clock.advance(2)
    assert bucket.try_acquire()

    limiter = module.SlidingWindowLimiter(limit=3, window=60, clock=clock)
    assert all(limiter.allow("k") for _ in range(3))
    assert not limiter.allow("k")
    assert limiter.remaining("other") == 3
    clock.advance(30)
    assert abs(limiter.retry_after("k") - 30.0) < 1e-9
    clock.advance(31)
    assert limiter.allow("k")

    calls = []

    @module.rate_limited(module.SlidingWindowLimiter(1, 10, clock=clock))
    def job(x):
        calls.append(x)
        return x * 2

    assert job(4) == 8
    try:
        job(5)
    except module.RateLimitExceeded as exc:
        assert abs(exc.retry_after - 10.0) < 1e-9
    else:
        raise AssertionError("the second call should have been refused")
    assert calls == [4]
    clock.advance(11)
    assert job(6) == 12
