"""A module-level constant written inside a function, moved out (git_gpte.edit.hoist)."""

from __future__ import annotations

from git_gpte.edit.hoist import hoist_constant

ASK = "Move the 200 words per minute in reading_time into a module-level constant WORDS_PER_MINUTE."
INSIDE = '''\
import re


def words(text):
    return re.findall(r"\\w+", text)


@cache
def reading_time(text):
    """Minutes."""
    WORDS_PER_MINUTE = 200  # New constant
    return len(words(text)) / WORDS_PER_MINUTE
'''


def test_the_constant_goes_above_the_function_that_assigned_it() -> None:
    hoisted = hoist_constant(ASK, INSIDE)
    assert hoisted is not None
    text, name = hoisted
    assert name == "WORDS_PER_MINUTE"
    assert text == INSIDE.replace("    WORDS_PER_MINUTE = 200  # New constant\n", "").replace(
        "@cache\n", "WORDS_PER_MINUTE = 200\n\n\n@cache\n"
    )


def test_a_method_s_constant_goes_above_its_class() -> None:
    inside = "class Clock:\n    def tick(self):\n        LIMIT = 5\n        return LIMIT\n"
    hoisted = hoist_constant("use a module-level constant LIMIT for the 5", inside)
    assert hoisted == (
        "LIMIT = 5\n\n\nclass Clock:\n    def tick(self):\n        return LIMIT\n",
        "LIMIT",
    )


def test_nothing_moves_unless_the_request_puts_it_at_module_level_and_only_a_literal_is_set() -> (
    None
):
    assert hoist_constant("use a constant WORDS_PER_MINUTE for 200", INSIDE) is None
    at_top = "WORDS_PER_MINUTE = 200\n" + INSIDE
    assert hoist_constant(ASK, at_top) is None
    computed = INSIDE.replace("= 200  # New constant", "= rate()")
    assert hoist_constant(ASK, computed) is None
    changed = INSIDE.replace("    return len(", "    WORDS_PER_MINUTE += 1\n    return len(")
    assert hoist_constant(ASK, changed) is None
    assert hoist_constant(ASK, "def broken(:\n") is None
