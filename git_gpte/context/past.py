"""Earlier commits like the request: the files they changed are where such work is done.

A request is often phrased like earlier commits of the same project, and those changed the
files this one will; their subjects bridge words the code does not use ("autocompletion" is
not in click's ``_bashcomplete.py``, but "Backport fixes for autocompletion on chained
commands" changed it). Of the last ``DEPTH`` commits, the ``TOP`` whose subjects share the
rarest words with the request lift the files they changed, each by its similarity over the
square root of how many files it changed (a commit of two files says more about each than one
of twenty), and the sums are scaled so the best file gets 1. Commits of over ``MAX_PATHS``
files (a reformat, a release) point nowhere. Pure functions, no I/O.

The signal is off (``Weights.past`` 0): on 427 commits of 22 repositories
(``bench/context_pool.py``) it moved coverage within a point either way, at every weight
tried, and cost Go/JS/TS a point at 8k-32k at weight 1 (docs/context.md). It stays for
measuring (``--variant past='{"past": 1}'``).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Sequence

from ..git.history import PastCommit
from .request import names_version
from .terms import text_terms

DEPTH = 1000  # commits looked at
TOP = 10  # the most similar of them that lift their files
MAX_PATHS = 30  # a commit changing more files points nowhere


def similar_commit_weights(
    request_terms: Collection[str], commits: Sequence[PastCommit]
) -> dict[str, float]:
    """Per path, the lift earlier commits like the request give it, the best 1.0."""
    subjects = [frozenset(text_terms(commit.subject)) for commit in commits]
    holders = Counter(term for terms in subjects for term in terms)
    total = len(commits)
    wanted = frozenset(request_terms)
    scored: list[tuple[float, int]] = []
    for at, (commit, terms) in enumerate(zip(commits, subjects, strict=True)):
        shared = wanted & terms
        if not shared or not 0 < len(commit.paths) <= MAX_PATHS:
            continue
        rarity = sum(math.log(total / holders[term]) for term in sorted(shared))
        if rarity > 0:
            scored.append((rarity / math.sqrt(len(terms)), at))
    scored.sort(key=lambda item: (-item[0], item[1]))
    lifts: dict[str, float] = {}
    for similarity, at in scored[:TOP]:
        paths = commits[at].paths
        for path in paths:
            lifts[path] = lifts.get(path, 0.0) + similarity / math.sqrt(len(paths))
    best = max(lifts.values(), default=0.0)
    return {path: lift / best for path, lift in sorted(lifts.items())} if best else {}


def release_weights(commits: Sequence[PastCommit]) -> dict[str, float]:
    """Per path, the lift earlier commits naming a version number give it, the best 1.0:
    where a project's releases and bumps are made (its ``__version__``, ``setup.py``,
    ``docs/conf.py``, changelog), whatever the words of their subjects. Each such commit lifts
    the files it changed by one over the square root of their number; one of over
    ``MAX_PATHS`` files points nowhere."""
    lifts: dict[str, float] = {}
    for commit in commits:
        if 0 < len(commit.paths) <= MAX_PATHS and names_version(commit.subject):
            for path in commit.paths:
                lifts[path] = lifts.get(path, 0.0) + 1 / math.sqrt(len(commit.paths))
    best = max(lifts.values(), default=0.0)
    return {path: lift / best for path, lift in sorted(lifts.items())} if best else {}
