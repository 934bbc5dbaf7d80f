"""A value written bare where its neighbours go through a function (edit/unwrapped.py)."""

from __future__ import annotations

from git_gpte.edit.fixes import asked_templates
from git_gpte.edit.unwrapped import asks_like_the_rest, unwrapped_values
from tests.helpers.markup import ESCAPE, ESCAPED, MARKUP


def test_the_request_says_a_value_misses_what_the_others_get() -> None:
    assert asks_like_the_rest(ESCAPE)
    assert asks_like_the_rest("Quote the name as the others are.")
    assert not asks_like_the_rest("Add a docstring to link().")
    assert "unwrapped" in [t.name for t in asked_templates(ESCAPE)]


def test_the_value_the_request_names_is_put_through_the_function_the_others_go_through() -> None:
    [found] = unwrapped_values(ESCAPE, {"markup.py": MARKUP})
    assert (found.path, found.name, found.function, found.line) == ("markup.py", "url", "link", 6)
    assert (found.helper, found.text) == ("escape", ESCAPED)


def test_unnamed_every_bare_value_is_a_candidate_and_none_without_the_verb() -> None:
    vague = "Values are written into the HTML without escaping, unlike the rest."
    found = unwrapped_values(vague, {"markup.py": MARKUP})
    assert sorted(f.name for f in found) == ["label", "url"]
    # No word of the request begins a function's name: nothing to put them through.
    assert unwrapped_values("Quote url like the rest.", {"markup.py": MARKUP}) == []
