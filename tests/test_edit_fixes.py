"""The fix templates' candidates (edit/fixes.py), made on the code as it was."""

from __future__ import annotations

from git_gpte.edit.boundary import named_functions
from git_gpte.edit.fixes import abs_returns, asked_templates, case_folds, zero_guards

STATS = """\
def spread(values, low, high):
    total = 0
    for value in values:
        total += value / len(values)
    if high - low > 0:
        return total / (high - low)
    return total
"""


def test_the_request_words_choose_the_templates() -> None:
    asked = {
        "Make the unit names case-insensitive": ["case"],
        "area() comes out negative for clockwise points": ["sign"],
        "It should always return a positive distance": ["sign"],
        "report() crashes with ZeroDivisionError on an empty file": ["zero"],
        "Include both the start and the end date": ["boundary"],
        "Raise ValueError for negative amounts": [],
        "Add logging to parse()": [],
        "Store the tags in lower case and reject an empty tag": ["case"],
    }
    for request, names in asked.items():
        assert [t.name for t in asked_templates(request)] == names, request


def test_a_division_by_zero_is_guarded_only_where_a_return_ends_no_more_than_it() -> None:
    # The division inside the loop is left alone: a return there would end the loop too.
    request = "spread() raises ZeroDivisionError when high equals low; make it return 0.0 then"
    [fix] = zero_guards(request, {"stats.py": STATS})
    assert "    if not (high - low):\n        return 0.0\n    if high - low > 0:" not in fix.text
    assert "        if not (high - low):\n            return 0.0\n        return total" in fix.text
    assert "for value in values:\n        total += value / len(values)\n" in fix.text
    assert fix.describe() == (
        "each division guarded, giving 0.0 when its divisor is zero in spread (stats.py:6)"
    )


def test_a_divisor_an_if_shares_with_its_body_is_guarded_before_the_if() -> None:
    module = "def share(a, n):\n    if a / n > 1:\n        return a / n\n    return 0\n"
    [fix] = zero_guards("share() raises ZeroDivisionError; return 0.0 then", {"s.py": module})
    assert fix.text == module.replace(
        "    if a / n", "    if not n:\n        return 0.0\n    if a / n"
    )


def test_no_guard_without_the_value_the_request_gives() -> None:
    assert zero_guards("spread() raises ZeroDivisionError", {"stats.py": STATS}) == []


def test_a_divisor_taken_with_len_is_guarded_by_its_emptiness() -> None:
    module = "def mean(xs):\n    return sum(xs) / len(xs)\n"
    [fix] = zero_guards("mean() divides by zero; it should return None", {"m.py": module})
    guard = "    if not xs:\n        return None\n"
    assert fix.text == module.replace("    return", guard + "    return")


def test_a_method_named_with_its_class_is_that_class_s_only() -> None:
    module = (
        "class A:\n    def area(self):\n        return -1\n\n\n"
        "class B:\n    def area(self):\n        return -2\n"
    )
    texts = {"s.py": module}
    assert [q for _, q, _ in named_functions("B.area is negative", texts)] == ["B.area"]
    assert [q for _, q, _ in named_functions("area() is negative", texts)] == ["A.area", "B.area"]
    [fix] = abs_returns("B.area is negative; it should always be positive", texts)
    assert fix.text == module.replace("return -2", "return abs(-2)")


def test_abs_leaves_returns_that_are_not_numbers() -> None:
    module = "def pairs(xs):\n    if not xs:\n        return []\n    return list(zip(xs, xs[1:]))\n"
    assert abs_returns("pairs() is always negative", {"p.py": module}) == []


def test_each_compared_name_is_one_candidate_with_all_its_uses_lower_cased() -> None:
    module = (
        "UNITS = {'s': 1, 'm': 60}\n\n\n"
        "def seconds(unit, count):\n"
        "    if unit == 'h':\n        return count * 3600\n"
        "    return count * UNITS.get(unit, 0)\n"
    )
    [fix] = case_folds("Make seconds() case-insensitive", {"u.py": module})
    assert "if unit.lower() == 'h':" in fix.text
    assert "UNITS.get(unit.lower(), 0)" in fix.text
    assert fix.describe() == "`unit` lower-cased where it is compared in seconds (u.py:5)"
