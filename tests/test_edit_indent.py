"""Added lines moved to the file's depth when the reply's matched lines lost indentation."""

from __future__ import annotations

from git_gpte.edit.indent import Reindented, reindent, shift_between
from git_gpte.edit.model import Op


def same_text(a: str, b: str) -> bool:
    return a.strip().split("(")[0] == b.strip().split("(")[0]


def run(ops: list[tuple[Op, str]], file_lines: list[str]) -> Reindented | str:
    old = [k for k, (op, _) in enumerate(ops) if op != "+"]
    mapping = {
        k: file_lines.index(next(x for x in file_lines if x.strip() == ops[k][1].strip()))
        for k in old
    }
    return reindent(ops, mapping, file_lines, same_text)


def test_shifts() -> None:
    assert shift_between("x", "    x") == ("+", "    ")
    assert shift_between("\tx", "\t\tx") == ("+", "\t")
    assert shift_between("        x", "    x") == ("-", "    ")
    assert shift_between("  x", "\tx") == ("?", "")
    assert shift_between("    x", "    y") == ("=", "")


def test_uniform_shift_keeps_blank_lines_blank_and_the_replys_nesting() -> None:
    file_lines = ["\t\tif a:", "\t\t\tb()"]
    out = run(
        [(" ", "if a:"), ("+", ""), ("+", "for x in y:"), ("+", "\tz(x)"), (" ", "\tb()")],
        file_lines,
    )
    assert isinstance(out, Reindented)
    assert out.ops == [
        (" ", "if a:"),
        ("+", ""),
        ("+", "\t\tfor x in y:"),
        ("+", "\t\t\tz(x)"),
        (" ", "\tb()"),
    ]
    assert "2 tabs deeper" in out.note


def test_nothing_moves_when_the_lines_that_anchor_the_added_ones_match() -> None:
    # Context drifted by two spaces; the removed line the added lines replace is exact.
    file_lines = ["    if a:", "        b()", "        c()"]
    ops: list[tuple[Op, str]] = [
        (" ", "  if a:"),
        ("-", "        b()"),
        ("+", "        b(1)"),
        ("+", "        d()"),
        (" ", "        c()"),
    ]
    out = run(ops, file_lines)
    assert isinstance(out, Reindented) and out.ops == ops and out.note == ""


def test_unrelated_indentation_is_refused() -> None:
    out = run([(" ", "  a()"), ("+", "  b()"), (" ", "  c()")], ["\ta()", "\tc()"])
    assert isinstance(out, str) and "cannot tell" in out
    # Too deep by four, but an added line has less than that to take away.
    out = run([(" ", "        a()"), ("+", "  b()")], ["    a()"])
    assert isinstance(out, str) and "'b()'" in out


def test_added_lines_at_the_files_depth_stay_there_when_one_neighbour_lost_its_indentation() -> (
    None
):
    # The context line below the insertion lost its 8 spaces; the one above matches the file,
    # and so do the added lines: they are right as written.
    file_lines = [
        "        try:",
        "            value = obj.name",
        "        except AttributeError:",
        "            value = None",
    ]
    ops: list[tuple[Op, str]] = [
        (" ", "        try:"),
        (" ", "            value = obj.name"),
        ("+", "            logger.debug('name %s', value)"),
        ("+", "            value = value.strip()"),
        (" ", "except AttributeError:"),
        (" ", "            value = None"),
    ]
    out = run(ops, file_lines)
    assert isinstance(out, Reindented) and out.ops == ops and out.note == ""


def test_added_lines_that_lost_their_indentation_with_a_neighbour_are_not_kept_as_written() -> None:
    # Here the added line lost its indentation like the line above it: it does not agree with
    # the file, and the two neighbours disagree on the depth, so it is refused, not guessed.
    file_lines = ["        try:", "            value = obj.name", "        except AttributeError:"]
    ops: list[tuple[Op, str]] = [
        (" ", "        try:"),
        (" ", "value = obj.name"),
        ("+", "value = value.strip()"),
        (" ", "        except AttributeError:"),
    ]
    out = run(ops, file_lines)
    assert isinstance(out, str) and "unevenly" in out
