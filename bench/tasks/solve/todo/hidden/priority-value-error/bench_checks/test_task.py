import pytest

from todo.models import HIGH, LOW, NORMAL, parse_priority
from bench_checks.behaviour import check_behaviour


@pytest.mark.parametrize("value", ["urgent", "", "0", "4", "  ", 0, 7, -1])
def test_bad_priority(value):
    with pytest.raises(ValueError):
        parse_priority(value)


@pytest.mark.parametrize(
    "value, expected",
    [("low", LOW), ("NORMAL", NORMAL), (" High ", HIGH), ("1", LOW), ("3", HIGH), (2, NORMAL)],
)
def test_good_priority(value, expected):
    assert parse_priority(value) == expected


def test_behaviour_unchanged():
    check_behaviour()
