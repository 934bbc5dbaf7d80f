"""Other forms of the request's words that the repository holds: ``validation`` finds
``validate`` and ``valid``, ``completion`` finds ``complete``.

The index keeps words lightly stemmed (plurals, ``-ed``, ``-ing``: terms.stem), which joins a
word's inflections but not its derivations. Stemming the whole index harder (Snowball's
English stemmer) joined the derivations but also merged words a vague request had kept apart,
and on the pool of 22 repositories it gained on Go/JS/TS and lost on Python. Here the index
and the request's own terms stay as they are; a request term only brings the repository's
terms that share its Snowball stem, as extra terms of the query at a discount
(``Weights.related``). Only the words of the request's first line bring forms: with the body's
words too, the pool scored the same but locbench's public split lost a task at 4k (a body's
"Catch broken references." pulling excerpts about referencing away from the changed line).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterable
from typing import Any

from .request import Query

MIN_STEM = 4  # a shorter stem (``par`` of ``pars``) joins words that are not one another's forms
MAX_FORMS = 8  # forms brought per request term


@functools.lru_cache(maxsize=1 << 12)
def root(word: str) -> str:
    """Snowball's English stem of a word (of a term as the index keeps it)."""
    return str(_stemmer().stemWord(word))


@functools.lru_cache(maxsize=1)
def _stemmer() -> Any:
    # Loaded on use. snowballstemmer hands out PyStemmer's compiled stemmer when that is
    # installed (a dependency): the same stems, without importing every language's stemmer.
    import snowballstemmer  # type: ignore[import-untyped]

    return snowballstemmer.stemmer("english")


def _same_word(term: str, other: str) -> bool:
    """Whether two index terms are forms of one word: their Snowball stems meet, or one is
    the other's stem (the index's light stem of ``parsing`` is ``pars``, Snowball's of
    ``parse`` is ``pars`` too, while Snowball's of ``pars`` is ``par``)."""
    a, b = {term, root(term)}, {other, root(other)}
    return bool(a & b)


def prefix_of(term: str) -> str | None:
    """What every form of the term starts with (its stem, a final ``i`` of ``happi`` off), or
    None when that is too short to look up."""
    if not term.isalpha():
        return None
    stem = root(term)
    prefix = stem[:-1] if stem.endswith("i") else stem
    return prefix if len(prefix) >= MIN_STEM else None


def widen(query: Query, terms_from: Callable[[str], Iterable[str]], weight: float) -> Query:
    """The query with the repository's other forms of its terms, each at ``weight`` times the
    weight of the term that brought it. ``terms_from(prefix)`` gives the index's terms that
    start with ``prefix``."""
    if weight <= 0:
        return query
    weights = dict(query.weights)
    words = dict(query.words)
    added: list[str] = []
    for term in query.terms:
        if query.weights[term] < 1.0:  # a word of the body only: see the module's docstring
            continue
        prefix = prefix_of(term)
        if prefix is None:
            continue
        forms = [t for t in terms_from(prefix) if t not in weights and _same_word(term, t)]
        for form in forms[:MAX_FORMS]:
            weights[form] = weight * query.weights[term]
            words[form] = query.words.get(term, term)
            added.append(form)
    if not added:
        return query
    return dataclasses.replace(
        query, terms=query.terms + tuple(added), weights=weights, words=words
    )
