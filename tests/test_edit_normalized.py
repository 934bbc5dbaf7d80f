"""A new method given the treatment its class gives a parameter (edit/normalized.py)."""

from __future__ import annotations

from git_gpte.edit.normalized import normalize_like_siblings
from tests.helpers.keyed import GET_LIST, KEYED

TREATED = GET_LIST.replace(
    '        """The value split on sep."""\n',
    '        """The value split on sep."""\n        key = normalize(key)\n',
)


def test_a_new_method_looking_the_key_up_raw_normalizes_it_first() -> None:
    repair = normalize_like_siblings(KEYED, KEYED + "\n" + GET_LIST)
    assert repair is not None
    assert repair.text == KEYED + "\n" + TREATED
    assert repair.detail.endswith("Table.get_list (key = normalize(key))")


def test_nothing_when_the_new_method_treats_it_or_goes_through_the_class() -> None:
    assert normalize_like_siblings(KEYED, KEYED + "\n" + TREATED) is None
    through = GET_LIST.replace("key not in self._values", "key not in self").replace(
        "self._values[key]", "self.get(key)"
    )
    assert normalize_like_siblings(KEYED, KEYED + "\n" + through) is None


def test_nothing_when_the_class_looks_a_raw_key_up_or_does_not_agree() -> None:
    raw = KEYED + "\n    def raw(self, key):\n        return self._values[key]\n"
    assert normalize_like_siblings(raw, raw + "\n" + GET_LIST) is None
    other = KEYED.replace(
        "key = normalize(key)\n        return self", "key = fold(key)\n        return self"
    )
    assert normalize_like_siblings(other, other + "\n" + GET_LIST) is None
    # One method alone is not the class's way.
    one = KEYED.split("    def get(")[0]
    assert normalize_like_siblings(one, one + "\n" + GET_LIST) is None
    # A body on the def's own line has no first line to put before.
    one_line = "    def first(self, key): return self._values[key]\n"
    assert normalize_like_siblings(KEYED, KEYED + "\n" + one_line) is None
    # An existing method is never touched.
    assert normalize_like_siblings(KEYED + "\n" + GET_LIST, KEYED + "\n" + GET_LIST) is None
