"""A request to fix typos is about the misspellings the repository holds."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from git_gpte.context.request import analyse_request
from git_gpte.context.typos import (
    Misspellings,
    asks_for_spelling,
    misspellings,
    with_misspellings,
)
from tests.helpers.context_cli import holds, sent, steps_module
from tests.helpers.gitrepo import commit_all, make_repo, write_files


def test_requests_about_spelling_are_told_by_their_first_line() -> None:
    asked = ("Fix typo", "chore: fix typos", "Spelling fixes", "Add codespell", "[docs] typo")
    for request in asked:
        assert asks_for_spelling(request), request
    assert not asks_for_spelling("Add a retry option\n\n* fix a typo in the docs")
    assert not asks_for_spelling("Handle typography settings")


def test_the_dictionary_keeps_misspellings_that_are_no_word_of_the_index() -> None:
    known = misspellings()
    assert "greately" in known.terms and not known.is_word("greately")
    assert "revison" in known.terms  # "revisons", stemmed as the index stems it
    assert "revision" in known.corrections("revison")
    assert known.is_word("runn")  # the stem of "runned", and of "running" too
    assert known.is_word("numbert")  # NumberT, kept whole by the index
    assert "red" not in known.terms  # the stem of "reded", too short to trust


def _postings(held: Mapping[str, int]) -> Callable[[list[str]], dict[str, dict[str, int]]]:
    def postings(terms: list[str]) -> dict[str, dict[str, int]]:
        return {t: {f"k{n}": 1 for n in range(held.get(t, 0))} for t in terms}

    return postings


def test_the_misspellings_held_join_the_request_and_those_it_names_alone() -> None:
    known = Misspellings(
        {"recieve": "receive", "availabe": "available", "seperate": "separate"},
        frozenset({"receive", "available", "separate"}),
    )
    query = analyse_request("Fix typos")
    widened = with_misspellings(query, _postings({"recieve": 1, "availabe": 2}), 1.0, known)
    assert set(widened.terms) - set(query.terms) == {"recieve", "availabe"}
    assert widened.weights["recieve"] == 1.0
    # a term held by many files is a word of this code base
    assert with_misspellings(query, _postings({"recieve": 9}), 1.0, known) == query
    # the body names the right words it fixes: only their misspellings are looked for
    listed = analyse_request("Spelling\n\n* spelling: available\n* spelling: feel")
    named = with_misspellings(listed, _postings({"recieve": 1, "availabe": 1}), 1.0, known)
    assert set(named.terms) - set(listed.terms) == {"availabe"}


def test_fix_typos_sends_the_lines_holding_a_misspelling(tmp_path: Path) -> None:
    files = {f"pkg/mod{n}.py": steps_module(f"mod{n}", 30) for n in range(6)}
    repo = make_repo(tmp_path / "r", files)
    text = files["pkg/mod3.py"].replace(
        "def mod3_step17(items, limit):\n",
        "def mod3_step17(items, limit):\n    # items we recieve are sorted already\n",
    )
    write_files(repo, {"pkg/mod3.py": text})
    commit_all(repo, "Note the order of the items")
    for n in (0, 1, 2, 4, 5):  # later work elsewhere: the typo is not the latest change
        write_files(repo, {f"pkg/mod{n}.py": steps_module(f"mod{n}", 31)})
        commit_all(repo, f"more steps in mod{n}")
    line = text.splitlines().index("    # items we recieve are sorted already") + 1
    entries = sent(repo, "Fix typos", 600)
    assert holds(entries, "pkg/mod3.py", line), entries
