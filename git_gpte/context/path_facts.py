"""What a file's path alone says about it: its language, its number of terms, its kind.

The ranking asks this of every file of the commit on every run, and it depends on nothing but
the path: on a 100,000-file repository working it out was over a third of a warm ``git gpte
context`` (splitting 100,000 file names into terms, telling tests from code 50,000 times).
So it is worked out with the listing and kept with it (see :mod:`.listing_cache`). The terms
themselves are not kept: a file name's terms are as many distinct strings as there are files
(60 MiB more for 100,000), and the ranking needs only those of paths that may hold a term of
the request (see rank_signals._path_terms).
"""

from __future__ import annotations

from typing import NamedTuple

from .languages import (
    is_built,
    is_config,
    is_data,
    is_docs,
    is_prose,
    is_stub,
    is_test,
    language_of,
    vendor_dir,
)
from .terms import path_terms

# The kinds a path may have, as bits of PathFacts.kinds.
DATA, TEST, PROSE, CONFIG, DOCS, BUILT, STUB = (1 << n for n in range(7))
_KIND_TESTS = (
    (DATA, is_data),
    (TEST, is_test),
    (PROSE, is_prose),
    (CONFIG, is_config),
    (DOCS, is_docs),
    (BUILT, is_built),
    (STUB, is_stub),
)


class PathFacts(NamedTuple):
    language: str | None  # by the extension (None: a file ranked by its words only)
    length: int  # how many terms the path has (terms.path_terms), its share of BM25's length
    kinds: int  # the bits above
    vendored: str | None  # the vendored package it lies in


def path_facts(path: str) -> PathFacts:
    kinds = 0
    for bit, test in _KIND_TESTS:
        if test(path):
            kinds |= bit
    return PathFacts(language_of(path), len(path_terms(path)), kinds, vendor_dir(path))
