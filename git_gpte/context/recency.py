"""Weights for what the latest commits changed (see :mod:`git_gpte.git.history` for why).

A file changed by the newest commit weighs 1, one changed ``k`` commits earlier ``DECAY**k``,
each divided by the square root of how many files that commit changed: a commit that touched
two files says more about each than a sweeping one that touched fifty.
"""

from __future__ import annotations

from collections.abc import Sequence

DEPTH = 5  # commits looked at
DECAY = 0.7
SIZE_POWER = 0.5


def file_weights(commits: Sequence[Sequence[str]]) -> dict[str, float]:
    """Per path, the largest weight any of ``commits`` (newest first) gives it."""
    weights: dict[str, float] = {}
    for age, paths in enumerate(commits):
        if not paths:
            continue
        weight = DECAY**age / len(paths) ** SIZE_POWER
        for path in paths:
            if weight > weights.get(path, 0.0):
                weights[path] = weight
    return weights
