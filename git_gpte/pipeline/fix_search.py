"""When the answers did not do a request whose words name a known shape of fix: try the fixes.

The candidates are edit/fixes.py's, of each template the request's words name: a comparison of
the functions the request names (and of those they call) turned to its other strictness, a
value they compare lower-cased, a value they return made positive, their divisions guarded, a
new parameter passed down to the fixed value it replaces, a bare value put through the helper
its neighbours go through, a print made a log call, a new flag returning a value where they
raised, on the base. What
chooses is running code, never the model: a candidate is taken only when the probe (written
from the request, and failing on the base) passes on it, the wrapped check (the project's
tests, the user's ``--check``) passes too, and no other candidate passes both. Two that pass
are two readings the checks cannot tell apart: then nothing is taken, and the answers' own
outcome stands. For a boundary, a parameter passed down, a print made a log call or a flag,
when no probe tells the candidates apart (none stands, or it fails on every one as on the code
before), the one candidate the tests allow, if only one, is taken as not verified: committed
with exit 1. The other templates are taken only on a probe's word.
"""

from __future__ import annotations

from collections.abc import Callable

from ..edit import UnreadableFile
from ..edit.fixes import Candidate, Template, asked_templates
from ..edit.pycheck import Problem
from ..git import FileChange
from ..ui import Console
from .attempt import UNVERIFIED
from .edit_loop import Edited
from .files import CommitFiles
from .probe import ProbeCheck

Rescue = Callable[[Edited], Edited | None]


def fix_rescue(request: str, probe: ProbeCheck, sent: list[str], console: Console) -> Rescue:
    """What tries the candidates once the answers failed (see the module's docstring):
    ``sent`` are the paths the model was shown, the only ones searched."""

    def rescue(edited: Edited) -> Edited | None:
        templates = asked_templates(request)
        if not templates:
            return None
        texts = _base_texts(edited.files, sent)
        tried = [(t, c) for t in templates for c in t.candidates(request, texts)]
        if not tried:
            return None
        for template in templates:
            count = sum(1 for t, _ in tried if t is template)
            if count:
                console.info(
                    f"the answers did not do it: trying {template.trying(count)}, "
                    "judged by the probe and the tests"
                )
        verdicts = _verdicts(probe, tried)
        if verdicts is None and probe.written_for(_changes(tried[0][1])):
            verdicts = _verdicts(probe, tried)
        if verdicts is None:
            console.info("no probe stands to judge them")
            return _by_the_tests(edited, tried, probe, console)
        if not any(verdicts):
            console.info("the probe fails on every one of them: it cannot tell them apart")
            return _by_the_tests(edited, tried, probe, console)
        passing = [
            (template, candidate)
            for (template, candidate), ok in zip(tried, verdicts, strict=True)
            if ok and _tested(probe, candidate)
        ]
        if not passing:
            console.info("none of them passes the checks")
            return None
        if len(passing) > 1:
            shown = "; ".join(candidate.describe() for _, candidate in passing[:3])
            console.info(f"{len(passing)} of them pass the checks, which cannot tell: {shown}")
            return None
        template, found = passing[0]
        console.info(f"{found.describe()}: the probe and the checks pass")
        return _edited(edited, template, found, checked=probe.inner is not None)

    return rescue


def _verdicts(probe: ProbeCheck, tried: list[tuple[Template, Candidate]]) -> list[bool] | None:
    """Whether the probes pass on each candidate; None when none stands on one of them."""
    verdicts: list[bool] = []
    for _, candidate in tried:
        verdict = probe.probe_alone(_changes(candidate))
        if verdict is None:
            return None
        verdicts.append(verdict)
    return verdicts


def _base_texts(files: CommitFiles, paths: list[str]) -> dict[str, str]:
    """The Python files of ``paths`` as they were, tests left out: they judge the candidates,
    and a fix of the code is never made in them (a test's own print is no print to log)."""
    from ..context.languages import is_test

    texts: dict[str, str] = {}
    for path in paths:
        if not path.endswith(".py") or is_test(path):
            continue
        try:
            texts[path] = files.original(path)
        except (KeyError, UnreadableFile):
            continue
    return texts


def _changes(candidate: Candidate) -> list[FileChange]:
    return [FileChange(candidate.path, candidate.text.encode("utf-8"))]


def _tested(probe: ProbeCheck, candidate: Candidate) -> bool:
    """Whether the wrapped check (the project's tests, the user's --check) passes on
    ``candidate``; True when there is none."""
    return probe.inner is None or not probe.inner(_changes(candidate))


def _by_the_tests(
    edited: Edited,
    tried: list[tuple[Template, Candidate]],
    probe: ProbeCheck,
    console: Console,
) -> Edited | None:
    """When no probe tells the candidates apart: the one candidate the tests allow, of the
    templates whose candidates they may choose alone (Template.tests_alone), if only one, taken
    as not verified (exit 1). The tests passed on the code before too, so they cannot say the
    request is done; but a boundary request's fix is one of its candidates, and the ones that
    break the tests are not it (ratelimit/window-boundary: three comparisons, the tests pass on
    one, the right one; the probe failed on all three as on the code before); and a new
    parameter passed down, or a new flag returning a value in place of a raise, is fixed by
    the request's own words (its name, its default, what it replaces), all but where. The
    other templates' candidates change what the code does in ways the tests may not see: not
    taken so."""
    tried = [(t, c) for t, c in tried if t.tests_alone]
    if not tried:
        console.info("none taken without a probe that passes on one")
        return None
    if probe.inner is None:
        console.info("nor do tests: none taken")
        return None
    passing = [(t, c) for t, c in tried if _tested(probe, c)]
    if not passing:
        console.info("the tests fail on every one of them: none taken")
        return None
    if len(passing) > 1:
        console.info(f"the tests pass on {len(passing)} of them, so they cannot tell: none taken")
        return None
    template, found = passing[0]
    console.info(f"{found.describe()}: the only one the tests allow (not verified)")
    taken = _edited(edited, template, found, checked=True)
    taken.failures.append(
        Problem(UNVERIFIED, "", None, _unverified(template, found), advisory=True)
    )
    return taken


def _unverified(template: Template, candidate: Candidate) -> str:
    return (
        f"not verified: {candidate.describe()} is the only {template.only} the tests allow; "
        "no check written from the request could tell (read the diff, or give a check of "
        "your own with --check CMD)"
    )


def _edited(edited: Edited, template: Template, candidate: Candidate, *, checked: bool) -> Edited:
    files = CommitFiles(edited.files.repo, edited.files.rev)
    files.changes[candidate.path] = candidate.text
    return Edited(
        files,
        files.file_changes(),
        attempts=edited.attempts,
        context=edited.context,
        checked=checked,
        searched=f"{template.tried}: {candidate.describe()}",
    )
