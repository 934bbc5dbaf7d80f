"""Which results a retry may fall back to, as pure functions of their problems.

A small model's retry can turn a result that passed the project's tests into one that fails
them: shown its answer with one function left unchanged, the 1.5B model rewrote that function
to return a tuple, and every retry after that was asked to mend the tuple rather than to
finish the request (bench/solve.py: textstats/empty-text). A result that fails tests the
earlier one did not fail is no step forward: the loop goes back to the earlier result and asks
its retry again, told what the answer it dropped did (see
:meth:`git_gpte.pipeline.edit_loop._Loop.go_back`).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..edit.pycheck import Problem

# Problems of code that cannot run as written: a result with one of them is no place to go
# back to, whatever its tests would say.
_BROKEN_KINDS = frozenset({"syntax", "undefined-name", "removed-name", "endless-call", "bad-call"})
# pytest's lines that say what failed ("E   AssertionError: ..."): the dropped answer's note
# quotes the first few.
_ERROR_LINES = 2


def fails_check(failures: Sequence[Problem]) -> bool:
    """The result fails the project's tests or the user's check (the probe aside: it is only
    the model's own reading of the request)."""
    return any(p.kind == "check" and not p.advisory for p in failures)


def may_fall_back_to(failures: Sequence[Problem]) -> bool:
    """A result runs as written and is not known to fail a check: what is left is the request
    not yet done (a function left as it was, a parameter never used) or the probe. Its tests
    are not run while the request is undone, and they are taken to pass: a result going back
    to it is a refusal either way, of a request not done rather than of broken tests."""
    return not fails_check(failures) and not any(p.kind in _BROKEN_KINDS for p in failures)


def dropped_note(failures: Sequence[Problem]) -> str:
    """What the retry asked again says of the answer it dropped: the first line of the failed
    check (which tests), the first error lines of its output (each once), and what a class it
    found lacking an attribute has (see :mod:`git_gpte.edit.attributes`)."""
    from ..edit.attributes import hint_lines

    failed = next(p for p in failures if p.kind == "check" and not p.advisory)
    lines = failed.text.splitlines()
    errors = dict.fromkeys(line.strip() for line in lines[1:] if line.startswith("E "))
    said = "\n".join(f"    {line}" for line in [lines[0], *list(errors)[:_ERROR_LINES]])
    said += "".join(f"\n{line}" for line in hint_lines(failed.text))
    return (
        f"An answer to this was not kept: it made this fail:\n{said}\n"
        "Do not write that answer again. Keep what the code does that the tests check, and do "
        "what the request asks."
    )
