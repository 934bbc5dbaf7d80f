"""A name misspelled by a leading underscore (git_gpte.edit.slips)."""

from __future__ import annotations

from git_gpte.edit.slips import underscore_slips

BEFORE = """\
_BY_NAME = {"low": 1, "high": 3}
LEVELS = (1, 3)


def parse(text):
    return _BY_NAME[text]
"""


def test_a_name_missing_its_underscore_is_the_module_s_own() -> None:
    after = BEFORE.replace("return _BY_NAME[text]", "if text not in BY_NAME:\n"
                           "        raise ValueError(text)\n    return BY_NAME[text]")  # fmt: skip
    repair = underscore_slips(BEFORE, after)
    assert repair is not None
    assert repair.text == after.replace("BY_NAME", "_BY_NAME").replace("__BY", "_BY")
    assert repair.detail == "used the module's own _BY_NAME for BY_NAME (2 place(s))"


def test_an_underscore_too_many_is_taken_away() -> None:
    after = BEFORE.replace("return _BY_NAME[text]", "return _LEVELS[0]")
    repair = underscore_slips(BEFORE, after)
    assert repair is not None and "return LEVELS[0]" in repair.text


def test_other_undefined_names_are_left_to_the_model() -> None:
    # Not a slip of a module name; undefined before the edit; or not valid Python.
    assert underscore_slips(BEFORE, BEFORE.replace("_BY_NAME[text]", "NAMES[text]")) is None
    had = BEFORE + "\n\ndef old():\n    return BY_NAME\n"
    assert (
        underscore_slips(had, had.replace("return _BY_NAME[text]", "return BY_NAME[text]")) is None
    )
    assert underscore_slips(BEFORE, "def broken(:\n") is None
    assert underscore_slips(BEFORE, BEFORE) is None
