"""Code-aware terms: what a request and a piece of code are compared on.

Identifiers are split the way programmers read them (``parse_header_links`` and
``parseHeaderLinks`` both give ``parse``, ``header``, ``links``) and also kept whole, so a
request that names the exact identifier matches it more strongly than one that only shares a
word. Words are lower-cased and lightly stemmed (``cookies``/``cookie``, ``redirected``/
``redirect``), and words that carry no meaning in code or in requests (``the``, ``self``,
``return``) are dropped. Pure functions, no I/O.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable
from itertools import chain

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# ... of three characters or more. A shorter run fails at its start and no part of it can match.
_IDENT3 = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")
# Boundaries inside an identifier: lower->Upper, ACRONYMWord, letter<->digit. An acronym's
# plural is one word (``URLs``, ``APIs``: not ``UR`` + ``Ls``).
_CAMEL = re.compile(r"[A-Z]+s(?![a-z])|[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")

# English function words, and the receiver names every method repeats. Language keywords are
# kept: a request about "a useless try" or "async handlers" means them, and BM25's IDF already
# discounts what every file contains.
_STOPWORD_TEXT = """
a an the and or not no nor but if then else when while for in on at to of by as is are
was were be been being it its this that these those there here with without from into onto
than so such can could should would will shall may might must do does did done has have had
having i we you he she they them their our your my me us his her also just only very more
most less least some any all each every other same now up down out over under again
about above below after before between both few own too via per etc ie eg vs
self cls
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())

MIN_LEN = 2
MAX_TERM_LEN = 40


def stem(word: str) -> str:
    """A light, deterministic English stemmer: enough to join plural/tense variants."""
    if len(word) <= 3:
        return word
    for suffix, repl in (("ies", "y"), ("sses", "ss"), ("ing", ""), ("ed", ""), ("es", "e")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: len(word) - len(suffix)] + repl
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def split_identifier(ident: str) -> list[str]:
    """The words inside one identifier, lower-cased (snake_case, CamelCase, digits)."""
    parts: list[str] = []
    for piece in ident.split("_"):
        if piece:
            parts.extend(m.group(0).lower() for m in _CAMEL.finditer(piece))
    return parts


def _keep(word: str) -> bool:
    return MIN_LEN <= len(word) <= MAX_TERM_LEN and word not in STOPWORDS and not word.isdigit()


def identifier_terms(ident: str) -> list[str]:
    """Terms for one identifier: its stemmed words, plus the whole identifier when compound."""
    return list(_identifier_terms(ident))


# Source repeats its identifiers (``self``, ``request``, a module's own names): remembering the
# last few thousand splits spares most of the splitting work of indexing.
@functools.lru_cache(maxsize=1 << 14)
def _identifier_terms(ident: str) -> tuple[str, ...]:
    words = split_identifier(ident)
    out = [stem(w) for w in words if _keep(w)]
    whole = ident.lower().strip("_")
    if len(words) > 1 and _keep(whole):
        out.append(whole)
    return tuple(out)


def text_terms(text: str) -> list[str]:
    """Every term of a text (code, comment or prose), in order, repeats kept."""
    return list(chain.from_iterable(map(_identifier_terms, _IDENT.findall(text))))


def count_terms(text: str) -> Counter[str]:
    return Counter(chain.from_iterable(map(_identifier_terms, _IDENT.findall(text))))


def path_terms(path: str) -> list[str]:
    """Terms of a file path: its directory names' and its file name's (without the extension),
    each split as an identifier (``transformData.js``: ``transform``, ``data``,
    ``transformdata``)."""
    out: list[str] = []
    for part in path.split("/"):
        out.extend(path_part_terms(part))
    return out


@functools.lru_cache(maxsize=1 << 14)
def path_part_terms(part: str) -> tuple[str, ...]:
    """Terms of one part of a path, as written (directory names repeat across a tree's
    paths)."""
    return tuple(text_terms(part.rsplit(".", 1)[0] if "." in part else part))


def identifiers(text: str) -> set[str]:
    """The distinct identifiers in a text, as written (for symbol links)."""
    return set(_IDENT3.findall(text))


# A name and a number written apart in prose and together in code: "E.164" is ``e164``,
# "UTF-8" ``utf8``, "ISO-8601" ``iso8601``.
_NAME_NUMBER = re.compile(r"(?<![\w./-])([A-Za-z]{1,8})[.-](\d{1,5})(?![\w]|[./-]\w)")


def query_terms(text: str) -> list[str]:
    """The distinct terms of a request, in first-seen order; a name and a number joined by
    a dot or a dash also as one term (after the terms of the words around it)."""
    seen: dict[str, None] = {}
    for term in text_terms(text):
        seen.setdefault(term, None)
    for match in _NAME_NUMBER.finditer(text):
        seen.setdefault((match.group(1) + match.group(2)).lower(), None)
    return list(seen)


def request_words(text: str) -> dict[str, str]:
    """Each term of a request -> the word of the request it came from ("elaps" -> "elapsed"),
    to tell a person what matched in their own words."""
    words: dict[str, str] = {}
    for match in re.finditer(r"[A-Za-z_][A-Za-z0-9_]*", text):
        for part in split_identifier(match.group(0)):
            words.setdefault(stem(part), part)
    return words


def merge_counts(counters: Iterable[Counter[str]]) -> Counter[str]:
    total: Counter[str] = Counter()
    for counter in counters:
        total.update(counter)
    return total
