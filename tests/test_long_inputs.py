"""Text from outside (a request, a model's reply, a program's output) is read in time linear in
its length: each pattern looked for in it starts only where a run of its characters starts,
or repeats a bounded number of times. Tried from every character, a run of 200,000 took
minutes; these finish at once and find what they found before."""

from __future__ import annotations

from git_gpte.edit.align import strip_comment
from git_gpte.edit.definitions import only_elided
from git_gpte.edit.rename import plain_rename
from git_gpte.pipeline.heal import normalise_output
from git_gpte.prompts.probe_steps import stopped_exceptions

RUN = 100_000


def test_a_long_run_of_blanks_before_a_comment() -> None:
    assert strip_comment(" " * 2 * RUN + "x  # note") == " " * 2 * RUN + "x"


def test_a_long_comment_line_standing_for_code() -> None:
    elision = "# " + "#" * 2 * RUN + " ...existing code..."
    assert only_elided("class Stock:\n    " + elision) == elision


def test_a_rename_request_with_a_long_run() -> None:
    assert plain_rename("Rename foo to bar " + "a-" * RUN) == ("foo", "bar")


def test_a_long_line_of_output_before_the_worktree() -> None:
    out = normalise_output("1." * RUN + "\n/tmp/gpte-run-1/wt-abcd/app.py failed")
    assert out.endswith("\n<worktree>/app.py failed")


def test_a_long_dotted_run_before_an_exception() -> None:
    assert stopped_exceptions("a." * RUN + " crashes with KeyError") == {"KeyError"}
