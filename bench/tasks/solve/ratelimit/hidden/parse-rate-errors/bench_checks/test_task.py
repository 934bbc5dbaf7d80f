import pytest

import ratelimit
from bench_checks.behaviour import check_behaviour


@pytest.mark.parametrize("text", ["5/week", "5", "5/", "0/s", "-3/s", "1.5/s", "x/min"])
def test_bad_rate(text):
    with pytest.raises(ValueError):
        ratelimit.parse_rate(text)


def test_good_rates():
    assert ratelimit.parse_rate("10/s") == (10, 1.0)
    assert ratelimit.parse_rate("100/min") == (100, 60.0)
    assert ratelimit.parse_rate("1/hour") == (1, 3600.0)


def test_behaviour_unchanged():
    check_behaviour()
