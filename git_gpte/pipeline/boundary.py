"""When the answers did not do a request about a boundary: try the comparisons' other strictness.

The candidates are edit/boundary.py's: each ``<``, ``<=``, ``>``, ``>=`` of the functions the
request names and of those they call, turned, on the base. What chooses is running code, never
the model: a candidate is taken only when the probe (written from the request, and failing on
the base) passes on it, the wrapped check (the project's tests, the user's ``--check``) passes
too, and no other candidate passes both. Two that pass are two readings the checks cannot tell
apart: then nothing is taken, and the answers' own outcome stands.
"""

from __future__ import annotations

from collections.abc import Callable

from ..edit import UnreadableFile
from ..edit.boundary import Flip, asks_boundary, boundary_flips
from ..git import FileChange
from ..ui import Console
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
        passing: list[Flip] = []
        for flip in flips:
            verdict = _passes(probe, flip)
            if verdict is None:
                console.info("no probe stands to judge them: none taken")
                return None
            if verdict:
                passing.append(flip)
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


def _passes(probe: ProbeCheck, flip: Flip) -> bool | None:
    """Whether the probe passes on ``flip``, and then the wrapped check; None when no probe
    stands to judge it (then none can judge the others either: the search stops)."""
    changes = [FileChange(flip.path, flip.text.encode("utf-8"))]
    verdict = probe.probe_alone(changes)
    if not verdict:
        return verdict
    return probe.inner is None or not probe.inner(changes)


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
