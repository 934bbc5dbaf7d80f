"""Which way a comparison's truth goes (edit/admission.py), and boundary candidates for a
request to include a boundary that let less in, left out."""

from __future__ import annotations

from git_gpte.edit.admission import asks_to_include, lets_more_in
from git_gpte.edit.boundary import boundary_flips

PERIOD = """\
def in_period(items, start, end):
    if end < start:
        raise ValueError("the period ends before it starts")
    return [item for item in items if start <= item < end]


def count_in(items, start, end):
    total = 0
    for item in items:
        if not start <= item:
            continue
        if item < end:
            total += 1
        if item > end:
            return total
    return total
"""
INCLUDE = "in_period() and count_in() leave out the last day: include both the start and the end."


def _at(line: int, operator: str, nth: int = 0) -> tuple[int, int]:
    row = PERIOD.splitlines()[line - 1]
    column = -1
    for _ in range(nth + 1):
        column = row.index(operator, column + 1)
    return line, column


def test_a_request_to_include_is_told_from_one_to_exclude() -> None:
    assert asks_to_include(INCLUDE)
    assert asks_to_include("Ranges should be inclusive of the upper bound.")
    assert not asks_to_include("A call that is `window` seconds old should no longer count.")
    assert not asks_to_include("The end date should be excluded, not included.")
    assert not asks_to_include("An item exactly at its level should count as low.")


def test_what_a_comparison_lets_in_follows_its_use() -> None:
    # A guard that raises keeps out: made true more often, it lets less in.
    assert lets_more_in(PERIOD, *_at(2, "<"), wider=True) is False
    # A comprehension's filter lets in: `<` to `<=` lets more in, `<=` to `<` less.
    assert lets_more_in(PERIOD, *_at(4, "<", 1), wider=True) is True
    assert lets_more_in(PERIOD, *_at(4, "<="), wider=False) is False
    # `if not ...: continue` keeps out what its comparison does not hold for.
    assert lets_more_in(PERIOD, *_at(10, "<="), wider=True) is True
    assert lets_more_in(PERIOD, *_at(12, "<"), wider=True) is True
    # An `if` whose body only returns says neither.
    assert lets_more_in(PERIOD, *_at(14, ">"), wider=True) is None


def test_a_request_to_include_leaves_out_the_flips_that_let_less_in() -> None:
    flips = boundary_flips(INCLUDE, {"period.py": PERIOD})
    assert [(f.function, f.line, f.old, f.new) for f in flips] == [
        ("in_period", 4, "<", "<="),
        ("count_in", 12, "<", "<="),
        ("count_in", 14, ">", ">="),
    ]
    # Said otherwise, every comparison is a candidate.
    other = INCLUDE.replace("include both", "exactly at")
    assert len(boundary_flips(other, {"period.py": PERIOD})) == 6
