"""A whole file written with diff markers on some lines (git_gpte.edit.diffmarks)."""

from __future__ import annotations

from git_gpte.edit.diffmarks import unmark_diff

BEFORE = """\
def apply_discount(amount, percent):
    return amount * (1 - percent / 100)


def parse_quantity(text):
    return int(text.strip())


def summarize(rows):
    return len(rows)
"""

# What the model wrote (invoice/value-error): the retry's diff pasted into the file.
MARKED = """\
def apply_discount(amount, percent):
    return amount * (1 - percent / 100)


def parse_quantity(text):
+    if not text.strip().isdigit() or int(text) <= 0:
+        raise ValueError("not a positive whole number")
     return int(text.strip())


def summarize(rows):
    return len(rows)
"""


def test_the_markers_come_off_when_that_makes_the_file_parse() -> None:
    repair = unmark_diff(BEFORE, MARKED)
    assert repair is not None
    assert repair.text == BEFORE.replace(
        "def parse_quantity(text):\n",
        "def parse_quantity(text):\n    if not text.strip().isdigit() or int(text) <= 0:\n"
        '        raise ValueError("not a positive whole number")\n',
    )
    assert repair.detail == "took the diff markers off 3 line(s) the reply copied from a diff"
    # A removed line of the file goes.
    was = BEFORE.replace("int(text.strip())", "int(text)")
    marked = BEFORE.replace(
        "    return int(text.strip())", "-    return int(text)\n+    return int(text.strip())"
    )
    repair = unmark_diff(was, marked)
    assert repair is not None and repair.text == BEFORE


def test_a_file_that_parses_or_stays_broken_is_left_alone() -> None:
    assert unmark_diff(BEFORE, BEFORE) is None
    assert unmark_diff(BEFORE, BEFORE + "x = -1\n") is None
    assert unmark_diff(BEFORE, MARKED.replace("):\n+    if", "):\n+    if (")) is None
