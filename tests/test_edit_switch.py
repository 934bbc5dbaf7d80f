"""A new flag that turns a raise into a return (edit/switch.py)."""

from __future__ import annotations

from git_gpte.edit.passdown import Asked
from git_gpte.edit.switch import Switch, asked_switch, switched
from tests.helpers.gate import GATE, SWITCH, SWITCHED

TWO_RAISES = """\
def lookup(table, key, fallback=None):
    if key is None:
        raise KeyError("no key")
    if key not in table:
        raise KeyError(key)
    return table[key]
"""


def test_what_the_request_asks_is_read() -> None:
    flag = Asked("strict", "guarded", "True")
    assert asked_switch(SWITCH) == Switch(flag, "None", "Refused")
    other = (
        "Add a parameter quiet=False to lookup: when it is True, instead of raising "
        "`KeyError` it returns -1."
    )
    assert asked_switch(other) == Switch(Asked("quiet", "lookup", "False"), "-1", "KeyError")
    # No default, a default that is not a flag, no value said: not this shape.
    assert asked_switch(SWITCH.replace("strict=True", "strict")) is None
    assert asked_switch(SWITCH.replace("strict=True", "strict=1")) is None
    assert asked_switch("Add a parameter strict=True to guarded.") is None


def test_the_flag_is_added_and_the_raise_in_the_wrapper_guarded() -> None:
    [found] = switched(GATE, asked_switch(SWITCH))  # type: ignore[arg-type]
    assert (found.function, found.line, found.guarded) == ("guarded", 9, 1)
    assert found.text == SWITCHED


def test_several_raises_give_one_candidate_for_all_then_one_each() -> None:
    switch = Switch(Asked("quiet", "lookup", "False"), "-1", "KeyError")
    found = switched(TWO_RAISES, switch)
    assert [(f.line, f.guarded) for f in found] == [(3, 2), (3, 1), (5, 1)]
    assert found[0].text.count("        if quiet:\n            return -1\n") == 2
    assert "def lookup(table, key, fallback=None, quiet=False):" in found[0].text
    assert found[2].text.count("if quiet:") == 1
    assert found[2].text.index("if quiet:") > found[2].text.index('raise KeyError("no key")')


def test_no_candidate_where_the_flag_has_no_plain_place_or_is_there() -> None:
    switch = asked_switch(SWITCH)
    assert switch is not None
    assert switched(GATE.replace("name=None", "*names"), switch) == []
    assert switched(GATE.replace("name=None", "strict=False"), switch) == []
    # A nested function of its own with a parameter of that name: its raise is not the flag's.
    shadowed = GATE.replace("def wrapper(*args):", "def wrapper(*args, strict=True):")
    assert switched(shadowed, switch) == []
    assert switched(GATE.replace("raise Refused", "raise ValueError"), switch) == []
