"""Fuzzy line alignment: which file line each of a hunk's old-side lines stands for.

A reply's old side is seldom a faithful copy: it invents a line, leaves one out, or changes a
few characters. Aligning it with a window of the file, line by line, finds the pairing that
keeps the most (and the most similar) lines in order, and says how good it is. Dynamic
programming over hunk lines x file lines: every cell records the *move* that reached it, and
walking those moves back from the end gives the pairs.

Lines come in already stripped of whitespace (see ``place.norm``). Pure functions.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum

from .model import Op

CONTEXT_SIM = 0.7  # a context line pairs with a file line this similar
REMOVED_SIM = 0.9  # a removed line must be at least this similar to the line it removes

# What leaving a line unpaired costs. A removed line the file lacks is nearly fatal (the edit
# would remove something that is not there), a context line less so (replies invent context),
# a blank line hardly at all. A file line the hunk skips costs a little: replies drop lines.
SKIP_BLANK_HUNK_LINE = 0.15
SKIP_CONTEXT_LINE = 0.6
SKIP_REMOVED_LINE = 3.0
SKIP_BLANK_FILE_LINE = 0.1
SKIP_FILE_LINE = 0.35

# Below any reachable score: the cells of a row before they are filled.
_UNREACHED = -1e9

# The comment starts where a run of blanks before its marker starts (tried inside the run too,
# a line of 20,000 blanks took seconds).
_COMMENT = re.compile(r"(?<!\s)\s*(#|//|--|/\*).*$")


class Move(IntEnum):
    """The step that reached an alignment cell; read back, the moves give the pairs."""

    SKIP_HUNK_LINE = 1  # the hunk line is not in the file (the reply invented it)
    SKIP_FILE_LINE = 2  # the file line is not in the hunk (the reply left it out)
    MATCH = 3  # the hunk line stands for the file line


@dataclass
class Alignment:
    """The old side aligned with file lines ``first..last`` (0-based, inclusive).

    ``score`` is per hunk line, so hunks of different lengths compare; ``pairs`` maps a hunk
    line's index in the old side to its file line and how similar the two are.
    """

    score: float
    pairs: dict[int, tuple[int, float]]
    first: int
    last: int

    @property
    def exact(self) -> int:
        """How many of the hunk's lines match their file line exactly (whitespace aside)."""
        return sum(1 for _, similarity in self.pairs.values() if similarity >= 1.0)


def strip_comment(line: str) -> str:
    """The line without a trailing comment, so an edited comment does not hide the code."""
    return _COMMENT.sub("", line)


def line_similarity(first: str, second: str) -> float:
    """Similarity of two whitespace-free lines in [0, 1]; blank pairs only with blank.

    Scores below ``CONTEXT_SIM`` come back as 0 (nothing pairs with them). Two lines whose code
    is the same but whose comments differ count as ``REMOVED_SIM``: a reply that rewords a
    comment still means that line.
    """
    if first == second:
        return 1.0
    if not first or not second:
        return 0.0
    first_length, second_length = len(first), len(second)
    if (
        2 * min(first_length, second_length) < CONTEXT_SIM * (first_length + second_length)
        and "#" not in first
        and "/" not in first
    ):
        return 0.0  # lengths alone rule out a ratio of CONTEXT_SIM (and no comment to strip)
    from rapidfuzz import fuzz

    score = fuzz.ratio(first, second, score_cutoff=CONTEXT_SIM * 100) / 100.0
    if score < REMOVED_SIM:
        first_code, second_code = strip_comment(first), strip_comment(second)
        if first_code and first_code == second_code:
            score = max(score, REMOVED_SIM)
    return score


def align_lines(
    old: list[str], kinds: list[Op], file_norms: Sequence[str], low: int, high: int
) -> Alignment | None:
    """Best alignment of the old side with file lines ``low:high``, or None if nothing pairs.

    ``old`` and ``file_norms`` are whitespace-free lines; ``kinds`` says which old lines are
    context (``" "``) and which removed (``"-"``). File lines before and after the aligned
    run are free: the window is only where to look.
    """
    window = file_norms[low:high]
    skip_hunk_costs = [
        _skip_hunk_line_cost(line, kind) for line, kind in zip(old, kinds, strict=True)
    ]
    skip_file_costs = [SKIP_BLANK_FILE_LINE if not line else SKIP_FILE_LINE for line in window]
    scores = [0.0] * (len(window) + 1)
    moves: list[bytearray] = [bytearray(len(window) + 1)]
    similarities: list[list[float]] = []
    for line, kind, skip_cost in zip(old, kinds, skip_hunk_costs, strict=True):
        # A context line may differ a little; a removed line only in whitespace.
        needed = CONTEXT_SIM if kind == " " else 1.0
        scores, row_moves, row_similarities = _next_row(
            scores, line, needed, skip_cost, window, skip_file_costs
        )
        moves.append(row_moves)
        similarities.append(row_similarities)
    end_column = max(range(len(window) + 1), key=scores.__getitem__)
    pairs = _trace_back(moves, similarities, end_column, low)
    if not pairs:
        return None
    lines = [file_line for file_line, _ in pairs.values()]
    return Alignment(scores[end_column] / len(old), pairs, min(lines), max(lines))


def _skip_hunk_line_cost(line: str, kind: Op) -> float:
    """What leaving this old-side line unpaired costs (see the SKIP_* costs)."""
    if not line:
        return SKIP_BLANK_HUNK_LINE
    return SKIP_CONTEXT_LINE if kind == " " else SKIP_REMOVED_LINE


def _next_row(
    previous: list[float],
    line: str,
    needed: float,
    skip_hunk_cost: float,
    window: Sequence[str],
    skip_file_costs: list[float],
) -> tuple[list[float], bytearray, list[float]]:
    """One hunk line's row of the table: the best score, and its move, at every file line.

    ``previous`` is the row of the hunk line before (all zeros before the first: file lines
    before the run are free). The row's similarities are kept to report each pair's.
    This is the hot loop of fuzzy placement; it stays flat for speed.
    """
    skip_hunk_line, skip_file_line, match = Move.SKIP_HUNK_LINE, Move.SKIP_FILE_LINE, Move.MATCH
    width = len(window)
    scores = [_UNREACHED] * (width + 1)
    moves = bytearray(width + 1)
    similarities = [0.0] * width
    scores[0] = previous[0] - skip_hunk_cost
    moves[0] = skip_hunk_line
    for column in range(1, width + 1):
        best = previous[column] - skip_hunk_cost
        move = skip_hunk_line
        score = scores[column - 1] - skip_file_costs[column - 1]
        if score > best:
            best, move = score, skip_file_line
        file_line = window[column - 1]
        similarity = line_similarity(line, file_line) if (line or not file_line) else 0.0
        similarities[column - 1] = similarity
        if similarity >= needed:
            score = previous[column - 1] + similarity
            if score > best:
                best, move = score, match
        scores[column] = best
        moves[column] = move
    return scores, moves, similarities


def _trace_back(
    moves: list[bytearray], similarities: list[list[float]], end_column: int, low: int
) -> dict[int, tuple[int, float]]:
    """The pairs, found by walking the moves back from the last hunk line at ``end_column``.

    Pairs come out last hunk line first. The placement's mapping keeps that order and
    reindenting reads it in order (which matched line is a run's neighbour), so it stays.
    """
    pairs: dict[int, tuple[int, float]] = {}
    row, column = len(moves) - 1, end_column
    while row > 0:
        move = moves[row][column]
        if move == Move.MATCH:
            pairs[row - 1] = (low + column - 1, similarities[row - 1][column - 1])
            row, column = row - 1, column - 1
        elif move == Move.SKIP_FILE_LINE:
            column -= 1
        else:
            row -= 1
    return pairs
