import typing

import invoice
from bench_checks.behaviour import check_behaviour


def test_hints():
    for function, params in ((invoice.apply_discount, {"amount", "percent"}),
                             (invoice.parse_quantity, {"text"})):
        hints = typing.get_type_hints(function)
        assert params <= set(hints), (function.__name__, hints)
        assert "return" in hints, function.__name__


def test_behaviour_unchanged():
    check_behaviour()
