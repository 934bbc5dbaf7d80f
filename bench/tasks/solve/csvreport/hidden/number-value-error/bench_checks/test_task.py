import pytest

from csvreport.loader import parse_number
from bench_checks.behaviour import check_behaviour


@pytest.mark.parametrize("text", ["abc", "12x", "1.2.3", "--5"])
def test_bad_numbers_raise(text):
    with pytest.raises(ValueError):
        parse_number(text)


@pytest.mark.parametrize("text", ["", "   ", None])
def test_blank_is_none(text):
    assert parse_number(text) is None


def test_good_numbers():
    assert parse_number("1,234.50") == 1234.5
    assert parse_number("(40)") == -40.0
    assert parse_number(" 7 ") == 7.0


def test_behaviour_unchanged():
    check_behaviour()
