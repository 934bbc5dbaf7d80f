import logging

import pytest

import ratelimit
from bench_checks.behaviour import FakeClock, check_behaviour


def test_refusal_logged(caplog):
    caplog.set_level(logging.DEBUG)
    limiter = ratelimit.SlidingWindowLimiter(1, 10, clock=FakeClock())

    @ratelimit.rate_limited(limiter)
    def send_report():
        return "sent"

    assert send_report() == "sent"
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    with pytest.raises(ratelimit.RateLimitExceeded):
        send_report()
    records = [r for r in caplog.records if r.name == "ratelimit" and r.levelno == logging.WARNING]
    assert records, "no WARNING record on the ratelimit logger"
    assert "send_report" in " ".join(r.getMessage() for r in records)


def test_bucket_refusal_logged(caplog):
    caplog.set_level(logging.DEBUG)

    @ratelimit.rate_limited(ratelimit.TokenBucket(1, 0.1, clock=FakeClock()))
    def poll_feed():
        return 1

    poll_feed()
    with pytest.raises(ratelimit.RateLimitExceeded):
        poll_feed()
    records = [r for r in caplog.records if r.name == "ratelimit" and r.levelno == logging.WARNING]
    assert "poll_feed" in " ".join(r.getMessage() for r in records)


def test_behaviour_unchanged():
    check_behaviour()
