"""Context selection: what to send the model for a request, within a token budget.

The public API (stable; everything else in this package is internal)::

    from git_gpte.context import select, pick_segments

    sel = select(repo, commit, "fix the redirect loop", budget=8000)
    for pick in sel.picks:              # best first
        for seg in pick_segments(repo, pick):
            print(seg.path, seg.start, seg.end)   # seg.text: the lines, unnumbered
    for entry in sel.map:               # next-ranked files, with their definitions
        print(entry.path, [s.text for s in entry.signatures])

How it works: an index per blob under ``.git/gpte/context.sqlite`` (terms, tree-sitter
definitions, imports, chunks; see ``index.py``), a ranking that combines BM25, direct mentions
and symbol links (``rank.py``: the signals in ``rank_signals.py``, their weights in one table
in ``weights.py``), and packing into the budget (``pack.py``). This module imports only the
result types at load time: tree-sitter and the index load on the first ``select``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..git.repo import display_path
from .model import ContextSelection, LineRange, MapEntry, Pick, Signature, SymbolLocation
from .weights import WEIGHTS, Weights

if TYPE_CHECKING:
    from ..git.repo import Repository

__all__ = [
    "DEFAULT_BUDGET",
    "ContextSelection",
    "LineRange",
    "MapEntry",
    "Pick",
    "Segment",
    "Signature",
    "SymbolLocation",
    "best_definitions",
    "candidates",
    "describe",
    "format_lines",
    "locate",
    "pick_segments",
    "render_map",
    "select",
]

# Default budget for `git gpte context` and for improve without --context-tokens.
DEFAULT_BUDGET = 16_384


@dataclass(frozen=True)
class Segment:
    """A run of lines of one file to show the model (a whole file is one segment)."""

    path: str
    start: int
    end: int
    text: str  # the lines start..end joined with "\n", without line numbers
    whole: bool


def select(
    repo: Repository,
    commit: str,
    request: str,
    budget: int = DEFAULT_BUDGET,
    pathspecs: Sequence[str] = (),
    *,
    map_share: float = 0.1,
    max_file_bytes: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    weights: Weights = WEIGHTS,
) -> ContextSelection:
    """Choose what of ``commit`` to send for ``request`` within ``budget`` tokens.

    ``pathspecs`` (relative to the repository root, full git pathspec syntax) narrow the
    candidates; a literal path names a file so that the secret and size rules do not leave it
    out. ``map_share`` of the budget is kept for the map of further files (0: no map).
    ``progress(done, total)`` is called during a cold index build that takes over a second.
    ``weights``: the ranking's weights (another table to measure it with, see weights.py).
    The index is created or updated as needed; a broken index is rebuilt, never fatal.
    Raises :class:`~git_gpte.errors.UsageError` for a pathspec that matches nothing.
    """
    from .engine import run_select

    return run_select(
        repo,
        commit,
        request,
        budget,
        pathspecs,
        map_share=map_share,
        max_file_bytes=max_file_bytes,
        progress=progress,
        weights=weights,
    )


def locate(
    repo: Repository,
    commit: str,
    names: Sequence[str],
    pathspecs: Sequence[str] = (),
    *,
    max_file_bytes: int | None = None,
) -> dict[str, list[SymbolLocation]]:
    """Where each of ``names`` is defined at ``commit`` (best guess first; none: empty list).

    A name is a simple (``send``) or qualified (``Session.send``) definition name; a qualified
    name matches definitions whose qualified name ends with it. Only files ``select`` may send
    are searched, so a lookup cannot reach a file the rules leave out.
    """
    from .engine import run_locate

    return run_locate(repo, commit, names, pathspecs, max_file_bytes=max_file_bytes)


def best_definitions(
    repo: Repository, commit: str, request: str, pathspecs: Sequence[str] = (), limit: int = 3
) -> list[SymbolLocation]:
    """The functions, methods and classes that match ``request`` best at ``commit``, best
    first (at most ``limit``; only those matching it themselves): where a change is likely,
    when an answer chose a place that is not among them."""
    from .engine import run_best_definitions

    return run_best_definitions(repo, commit, request, pathspecs, limit)


def candidates(
    repo: Repository,
    commit: str,
    pathspecs: Sequence[str] = (),
    *,
    max_file_bytes: int | None = None,
) -> tuple[frozenset[str], dict[str, str]]:
    """The paths ``select`` may send at ``commit`` for ``pathspecs``, and those left out with why.

    Lists the tree only (no blob is read), so it is cheap enough to check a path a model asks
    for against the same rules as the selection.
    """
    from .index import list_candidates
    from .rules import DEFAULT_MAX_FILE_BYTES

    found = list_candidates(
        repo, commit, pathspecs, max_bytes=max_file_bytes or DEFAULT_MAX_FILE_BYTES
    )
    return frozenset(c.path for c in found.files), dict(found.skipped)


def pick_segments(repo: Repository, pick: Pick) -> list[Segment]:
    """The text of a pick: one segment for a whole file, one per excerpt range otherwise.

    Line numbers are the file's own, so a renderer can number the lines and an edit written
    against an excerpt places in the whole file.
    """
    from ..git.repo import decode_text
    from .parse import split_lines

    text = decode_text(repo.read_blob(pick.blob)) or ""
    if pick.whole:
        lines = split_lines(text)
        return [Segment(pick.path, 1, len(lines), text, True)]
    lines = split_lines(text)
    return [
        Segment(pick.path, r.start, r.end, "\n".join(lines[r.start - 1 : r.end]), False)
        for r in pick.ranges
        if r.start <= len(lines)
    ]


def format_lines(selection: ContextSelection) -> list[str]:
    """The picks as ``PATH`` (whole) and ``PATH:START-END`` (excerpt) lines, best first."""
    out: list[str] = []
    for pick in selection.picks:
        if pick.whole:
            out.append(pick.path)
        else:
            out.extend(f"{pick.path}:{r.start}-{r.end}" for r in pick.ranges)
    return out


def describe(selection: ContextSelection) -> list[str]:
    """The selection as text lines a person reads: each pick with whole or line ranges, its
    tokens, score and reasons; the map; what was left out and why."""
    out = [
        f"context for {selection.commit[:12]}: {len(selection.picks)} file(s), "
        f"~{selection.tokens:,} of {selection.budget:,} tokens (estimate), "
        f"{selection.candidates} file(s) ranked"
    ]
    # Best first, whatever was sent whole or in part (the packing order is the budget's).
    for pick in sorted(selection.picks, key=lambda p: -p.score):
        what = "whole" if pick.whole else ", ".join(str(r) for r in pick.ranges)
        score = f"  score {pick.score:.3f}" if pick.score > 0 else ""
        out.append(f"  {pick.path}  [{what}]  ~{pick.tokens:,} tokens{score}")
        out.extend(f"      {reason}" for reason in pick.reasons)
    if selection.map:
        out.append(f"map ({len(selection.map)} more file(s), ~{selection.map_tokens:,} tokens):")
        out.extend(
            f"  {e.path}" + (f"  ({len(e.signatures)} definitions)" if e.signatures else "")
            for e in selection.map
        )
    if selection.skipped:
        out.append(f"left out ({len(selection.skipped)}):")
        out.extend(
            f"  {display_path(path)}  ({reason})" for path, reason in selection.skipped.items()
        )
    return out


def render_map(selection: ContextSelection) -> str:
    """The map as compact text: each path, then its definitions' lines indented."""
    out: list[str] = []
    for entry in selection.map:
        out.append(entry.path)
        out.extend(f"  {s.line}: {s.text}" for s in entry.signatures)
    return "\n".join(out)
