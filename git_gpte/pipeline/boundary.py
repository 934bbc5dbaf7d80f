"""When the answers did not do a request about a boundary: try the comparisons' other strictness.

The candidates are edit/boundary.py's: each ``<``, ``<=``, ``>``, ``>=`` of the functions the
request names and of those they call, turned, on the base. What chooses is running code, never
the model: a candidate is taken only when the probe (written from the request, and failing on
the base) passes on it, the wrapped check (the project's tests, the user's ``--check``) passes
too, and no other candidate passes both. Two that pass are two readings the checks cannot tell
apart: then nothing is taken, and the answers' own outcome stands. When no probe tells the
candidates apart (none stands, or it fails on every one as on the code before), the one
candidate the tests allow, if only one, is taken as not verified: committed with exit 1.
"""

from __future__ import annotations

from collections.abc import Callable

from ..edit import UnreadableFile
from ..edit.boundary import Flip, asks_boundary, boundary_flips
from ..edit.pycheck import Problem
from ..git import FileChange
from ..ui import Console
from .attempt import UNVERIFIED
from .edit_loop import Edited
from .files import CommitFiles
from .probe import ProbeCheck

Rescue = Callable[[Edited], Edited | None]


def boundary_rescue(request: str, probe: ProbeCheck, sent: list[str], console: Console) -> Rescue:
    """What tries the candidates once the answers failed (see the module's docstring):
    ``sent`` are the paths the model was shown, the only ones searched."""

    def rescue(edited: Edited) -> Edited | None:
        if not asks_boundary(request):
            return None
        texts = _base_texts(edited.files, sent)
        flips = boundary_flips(request, texts)
        if not flips:
            return None
        console.info(
            f"the answers did not do it: trying the other strictness of {len(flips)} "
            "comparison(s) of the functions the request names, judged by the probe and the tests"
        )
        verdicts: list[bool] = []
        for flip in flips:
            verdict = probe.probe_alone(_changes(flip))
            if verdict is None:
                console.info("no probe stands to judge them")
                return _by_the_tests(edited, flips, probe, console)
            verdicts.append(verdict)
        if not any(verdicts):
            console.info("the probe fails on every one of them: it cannot tell them apart")
            return _by_the_tests(edited, flips, probe, console)
        passing = [
            flip for flip, ok in zip(flips, verdicts, strict=True) if ok and _tested(probe, flip)
        ]
        if not passing:
            console.info("none of them passes the checks")
            return None
        if len(passing) > 1:
            shown = "; ".join(flip.describe() for flip in passing[:3])
            console.info(f"{len(passing)} of them pass the checks, which cannot tell: {shown}")
            return None
        found = passing[0]
        console.info(f"{found.describe()}: the probe and the checks pass")
        return _edited(edited, found, checked=probe.inner is not None)

    return rescue


def _base_texts(files: CommitFiles, paths: list[str]) -> dict[str, str]:
    texts: dict[str, str] = {}
    for path in paths:
        if not path.endswith(".py"):
            continue
        try:
            texts[path] = files.original(path)
        except (KeyError, UnreadableFile):
            continue
    return texts


def _changes(flip: Flip) -> list[FileChange]:
    return [FileChange(flip.path, flip.text.encode("utf-8"))]


def _tested(probe: ProbeCheck, flip: Flip) -> bool:
    """Whether the wrapped check (the project's tests, the user's --check) passes on ``flip``;
    True when there is none."""
    return probe.inner is None or not probe.inner(_changes(flip))


def _by_the_tests(
    edited: Edited, flips: list[Flip], probe: ProbeCheck, console: Console
) -> Edited | None:
    """When no probe tells the candidates apart: the one the tests allow, if only one, taken
    as not verified (exit 1). The tests passed on the code before too, so they cannot say the
    request is done; but a boundary request's fix is one of these candidates, and the ones
    that break the tests are not it (ratelimit/window-boundary: three comparisons, the tests
    pass on one, the right one; the probe failed on all three as on the code before)."""
    if probe.inner is None:
        console.info("nor do tests: none taken")
        return None
    passing = [flip for flip in flips if _tested(probe, flip)]
    if not passing:
        console.info("the tests fail on every one of them: none taken")
        return None
    if len(passing) > 1:
        console.info(f"the tests pass on {len(passing)} of them, so they cannot tell: none taken")
        return None
    found = passing[0]
    console.info(f"{found.describe()}: the only one the tests allow (not verified)")
    taken = _edited(edited, found, checked=True)
    taken.failures.append(Problem(UNVERIFIED, "", None, _unverified(found), advisory=True))
    return taken


def _unverified(flip: Flip) -> str:
    return (
        f"not verified: {flip.describe()} is the only comparison of the functions the request "
        "names whose other strictness the tests allow; no check written from the request could "
        "tell (read the diff, or give a check of your own with --check CMD)"
    )


def _edited(edited: Edited, flip: Flip, *, checked: bool) -> Edited:
    files = CommitFiles(edited.files.repo, edited.files.rev)
    files.changes[flip.path] = flip.text
    return Edited(
        files,
        files.file_changes(),
        attempts=edited.attempts,
        context=edited.context,
        checked=checked,
        searched=flip.describe(),
    )
