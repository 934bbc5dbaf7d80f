"""A request to fix typos points at the misspellings the repository holds.

"Fix typo", "Spelling fixes", "fix typos in docstrings": the request names no word of the
code it changes, so nothing it says matches the lines to edit. What those lines hold is a
misspelled word, and codespell's dictionary of common misspellings (``greately``,
``programatically``, ``revisons``: the list projects run in CI to catch them) says which
words those are. A request about spelling gets, as extra terms, the dictionary's misspellings
that the candidate files hold; BM25 then finds the files and the chunks they are in, the rarer
the misspelling the higher. A "misspelling" held by many files is a word of this code base
(a name, an abbreviation) and brings nothing.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable, Container, Mapping
from importlib import resources
from typing import NamedTuple

from .request import Query
from .terms import stem

# The first line of a request about spelling (its body's bullets name the fixes too).
_ASKS = re.compile(r"\b(?:typos?|typographical|spelling|mis-?spell\w*|codespell)\b", re.I)
# A misspelling held by more than this many files is a word of the code base.
MAX_HOLDERS = 3
# Shorter misspellings (``alo``, ``lin``, ``maco``) are as often names and abbreviations.
MIN_LENGTH = 5
MIN_STEM_LENGTH = 6  # ... and shorter stems of longer ones (``panic`` of ``paniced``)


def asks_for_spelling(request: str) -> bool:
    """Whether the request's first line is about typos or spelling."""
    return bool(_ASKS.search(request.strip().split("\n", 1)[0]))


class Misspellings(NamedTuple):
    """codespell's common misspellings, as index terms (lower case, lightly stemmed), each
    with its corrections ("a,b"), and every correction."""

    terms: dict[str, str]
    right_words: frozenset[str]

    def is_word(self, term: str) -> bool:
        """Whether the term may be a right word's stem too (the index keeps words lightly
        stemmed, and ``runn`` is the stem of ``runned`` and of ``running`` alike), or a word
        and a letter or two run together: the index keeps a compound identifier whole too, and
        ``NumberT`` and ``NotIn`` are ``numbert`` and ``notin``."""
        if _stems_a_word(term, self.right_words):
            return True
        return any(term[:-cut] in self.right_words for cut in (1, 2))

    def corrections(self, term: str) -> list[str]:
        """The right words of a misspelling, as index terms."""
        return [stem(word.strip()) for word in self.terms.get(term, "").split(",") if word]


@functools.lru_cache(maxsize=1)
def misspellings() -> Misspellings:
    """The dictionary (empty when codespell's data cannot be read). The stem of a misspelling
    can be a word (``reded``: ``red``): a short one is kept only when it is a misspelling
    itself, and one that is a right word's stem is left out where it is looked up (checking
    every one here would cost most of the time this takes)."""
    try:
        data = resources.files("codespell_lib") / "data" / "dictionary.txt"
        text = data.read_text(encoding="utf-8")
    except (ModuleNotFoundError, OSError):
        return Misspellings({}, frozenset())
    wrong_words: dict[str, str] = {}
    for line in text.lower().splitlines():
        wrong, arrow, right = line.partition("->")
        if arrow and wrong.isalpha():
            wrong_words[wrong] = f"{wrong_words[wrong]},{right}" if wrong in wrong_words else right
    right_words = frozenset(word.strip() for word in ",".join(wrong_words.values()).split(","))
    terms: dict[str, str] = {}
    for word, rights in wrong_words.items():
        term = stem(word) if word[-1] in "sdg" else word  # stem changes only these
        if len(term) >= MIN_LENGTH and (term in wrong_words or len(term) >= MIN_STEM_LENGTH):
            terms[term] = f"{terms[term]},{rights}" if term in terms else rights
    return Misspellings(terms, right_words)


def _stems_a_word(term: str, words: Container[str]) -> bool:
    """Whether ``term`` may be the stem of one of ``words`` (terms.stem backwards: the
    words it can be the stem of; a few more is no harm)."""
    forms = [term, term + "s", term + "ing", term + "ed", term + "es"]
    if term.endswith("y"):
        forms.append(term[:-1] + "ies")
    if term.endswith("e"):
        forms.append(term[:-1] + "es")
    return any(form in words for form in forms)


def with_misspellings(
    query: Query,
    postings: Callable[[list[str]], Mapping[str, Mapping[str, int]]],
    weight: float,
    known: Misspellings | None = None,
) -> Query:
    """The query with the misspellings the candidates hold (``postings(terms)``: term ->
    {file key: count}), each at ``weight``; the query itself when none is held. A request
    that names the right word of some of them ("* spelling: available") gets only those."""
    if weight <= 0:
        return query
    known = misspellings() if known is None else known
    asked = set(query.terms)
    wanted = sorted(set(known.terms) - asked)
    held = [
        term
        for term, keys in postings(wanted).items()
        if 0 < len(keys) <= MAX_HOLDERS and not known.is_word(term)
    ]
    if not held:
        return query
    named = [term for term in held if asked.intersection(known.corrections(term))]
    added = tuple(sorted(named or held))
    return dataclasses.replace(
        query,
        terms=query.terms + added,
        weights={**query.weights, **dict.fromkeys(added, weight)},
        words={**query.words, **{term: term for term in added}},
    )
