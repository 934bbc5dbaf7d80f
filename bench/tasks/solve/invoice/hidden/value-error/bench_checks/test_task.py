import pytest

import invoice
from bench_checks.behaviour import check_behaviour


@pytest.mark.parametrize("text", ["0", "-2", "abc", "", "1.5"])
def test_bad_quantity(text):
    with pytest.raises(ValueError):
        invoice.parse_quantity(text)


def test_good_quantity():
    assert invoice.parse_quantity(" 3 ") == 3


def test_behaviour_unchanged():
    check_behaviour()
