"""Long Go functions are cut into parts at their statements, as Python's are, and long tables
(a slice literal of 1,400 lines of translations, a map of validators) at their entries."""

from __future__ import annotations

from itertools import pairwise

from git_gpte.context.parse import parse_file
from tests.helpers.tables import line_of, translations


def test_a_long_table_in_a_function_is_cut_at_its_entries() -> None:
    text = translations("ru", 120)
    record = parse_file("translations/ru/ru.go", text)
    chunks = record.chunks
    assert chunks[0].start == 1 and chunks[-1].end == record.lines
    assert all(b.start == a.end + 1 for a, b in pairwise(chunks))
    line = line_of(text, '\t\t\ttag:         "e164",')
    (holding,) = [c for c in chunks if c.start <= line <= c.end]
    assert holding.kind == "part" and holding.end - holding.start < 60


def test_a_long_table_at_the_top_level_is_cut_at_its_entries() -> None:
    rows = "".join(f'    "code{n}": ("name {n}", {n}),\n' for n in range(200))
    text = f'"""Codes."""\n\nCODES = {{\n{rows}}}\n\n\ndef lookup(code):\n    return CODES[code]\n'
    record = parse_file("codes.py", text)
    line = line_of(text, '    "code150": ("name 150", 150),')
    (holding,) = [c for c in record.chunks if c.start <= line <= c.end]
    assert holding.end - holding.start < 60
    assert record.chunks[-1].name == "lookup"


def test_a_long_go_function_is_cut_into_parts_as_a_python_one_is() -> None:
    steps = "".join(
        f"\ttotal += weigh(items, {n})\n\tif total > limit {{\n\t\treturn total\n\t}}\n"
        for n in range(40)
    )
    text = (
        "package sum\n\n// Sum adds the weights up to the limit.\n"
        f"func Sum(items []int, limit int) int {{\n\ttotal := 0\n{steps}\treturn total\n}}\n"
    )
    record = parse_file("sum.go", text)
    head = next(c for c in record.chunks if c.name == "Sum")
    parts = [c for c in record.chunks if c.kind == "part"]
    assert head.end - head.start < 60 and len(parts) >= 2
    assert record.chunks[-1].end == record.lines
