"""A reply writing out again a whole file it already wrote is cut (``edit.repeated``)."""

from __future__ import annotations

from git_gpte.edit.repeated import SAME_LINES, repeated_file

BODY = "\n".join(f"line_{n} = {n}" for n in range(30)) + "\n"


def block(path: str, body: str, header: str = "File: ") -> str:
    return f"{header}{path}\n```python\n{body}```\n\n"


def test_a_second_identical_copy_is_cut_before_its_path_line() -> None:
    first = "Here it is.\n\n" + block("a.py", BODY)
    text = first + block("a.py", BODY)
    found = repeated_file(text)
    assert found is not None and found[0] == len(first)
    assert "a.py out a second time" in found[1]
    # While the copy streams: cut once enough of it has come.
    partial = first + block("a.py", BODY)[: len("File: a.py\n```python\n") + 25 * 12]
    assert repeated_file(partial) == (len(first), found[1])


def test_other_files_corrections_and_short_starts_go_on() -> None:
    other = BODY.replace("line_25 = 25", "other = 25")
    assert repeated_file(block("a.py", BODY) + block("b.py", other)) is None
    changed = BODY.replace("line_3 = 3", "line_3 = 4")
    assert repeated_file(block("a.py", BODY) + block("a.py", changed)) is None
    few = "\n".join(BODY.split("\n")[: SAME_LINES - 5]) + "\n"
    assert repeated_file(block("a.py", BODY) + "a.py\n```python\n" + few) is None
    # A short file repeated whole is a copy too; a bare path line is a header as well.
    short = "x = 1\ny = 2\n"
    assert repeated_file(block("s.py", short, "") + block("s.py", short, "")) is not None
    assert repeated_file("no blocks at all") is None


def test_a_file_that_stays_as_it_is_is_cut_once_another_was_written() -> None:
    from git_gpte.edit.repeated import first_cut, kept_file

    judge = kept_file(frozenset({"tests/test_a.py"}))
    first = block("a.py", BODY)
    found = judge(first + "File: tests/test_a.py\n```python\nimport a\n")
    assert found is not None and found[0] == len(first)
    assert "tests/test_a.py, which stays as it is" in found[1]
    # Written first, it streams on (the code may follow; its edits are dropped later).
    assert judge(block("tests/test_a.py", BODY)) is None
    assert judge(block("a.py", BODY) + block("b.py", BODY)) is None
    # Together with the copy judge: the earlier cut wins.
    both = first_cut(repeated_file, judge)
    text = first + block("a.py", BODY) + block("tests/test_a.py", BODY)
    assert both(text) == repeated_file(text)


def test_a_block_copying_the_prompts_numbered_lines_is_cut_before_its_heading() -> None:
    from git_gpte.edit.repeated import NUMBERED_LINES, numbered_copy
    from git_gpte.prompts.messages import numbered

    # The real model (minimark): the test file, then the module's excerpt as shown, numbers
    # and all, to its output cap.
    tests = block("tests/test_m.py", "def test_x():\n    assert True\n")
    shown = numbered(BODY)
    heading = "File: m.py (excerpt: lines 1-30 of 30; the numbers are the file's own)\n"
    text = tests + heading + "```python\n" + shown + "\n"
    found = numbered_copy(text)
    assert found is not None and found[0] == len(tests)
    assert "line numbers and all" in found[1]
    # While it streams: not before enough numbered lines have come.
    few = "\n".join(shown.split("\n")[: NUMBERED_LINES - 2]) + "\n"
    assert numbered_copy(tests + heading + "```python\n" + few) is None
    # Code that happens to hold numbers is not a copy: neither numbers that do not follow
    # each other nor numbered lines outside a block.
    table = "\n".join(f"{n * 2} {n}" for n in range(40)) + "\n"
    assert numbered_copy(block("t.py", table)) is None
    assert numbered_copy(shown + "\n") is None
    assert numbered_copy(block("a.py", BODY)) is None


def test_a_retry_copying_a_file_it_did_not_ask_about_is_cut_there() -> None:
    from git_gpte.edit.repeated import copied_unasked

    files = {"store.py": BODY, "cli.py": BODY.replace("line_", "cli_")}
    judge = copied_unasked(files.get, frozenset({"store.py"}))
    fixed = block("store.py", BODY.replace("line_3 = 3", "line_3 = 4"))
    cli = files["cli.py"]
    found = judge(fixed + "File: cli.py\n```python\n" + cli[: len(cli) * 3 // 4])
    assert found is not None and found[0] == len(fixed)
    assert "cli.py out as it is" in found[1]
    # A file it changes, a new file, or an unasked file written first stream on.
    assert judge(fixed + block("cli.py", cli.replace("cli_0 = 0", "cli_0 = 9"))) is None
    assert judge(fixed + block("new.py", BODY)) is None
    assert judge(block("cli.py", cli)) is None


def test_a_block_copying_an_excerpt_as_shown_is_cut_before_its_heading() -> None:
    from git_gpte.edit.repeated import excerpt_copy

    # The real model (ledger/transfer-same-account): the method it changed, then the
    # excerpt's other parts under the prompt's own heading, to its output cap.
    fixed = block("ledger/accounts.py", "class Ledger:\n    def f(self):\n        return 1\n")
    heading = "File: ledger/accounts.py (excerpt: lines 134-181 not shown)\n"
    text = fixed + heading + "```python\nclass Account:\n"
    found = excerpt_copy(text)
    assert found is not None and found[0] == len(fixed)
    assert "copying an excerpt" in found[1]
    # Under a plain path line, the lines the prompt marks as not shown give it away.
    gap = "ledger/accounts.py\n```python\nclass Account:\n    x = 1\n⋮ (lines 134-181 not shown)\n"
    assert excerpt_copy(fixed + gap) == (len(fixed), found[1])
    # An answer of code, a heading still being written, or the mark outside a block: not cut.
    assert excerpt_copy(fixed + block("b.py", BODY)) is None
    assert excerpt_copy(fixed + "File: ledger/accounts.py (excerpt: lines") is None
    assert excerpt_copy("⋮ (lines 1-3 not shown)\n") is None


def test_a_block_going_on_to_copy_a_kept_file_is_cut_where_the_copy_begins() -> None:
    from git_gpte.edit.repeated import KEPT_LINES, kept_copied_into

    tests = "\n".join(f"def test_{n}():\n    assert f({n}) == {n}\n" for n in range(8))
    module = "def f(x):\n    return x\n"
    judge = kept_copied_into({"tests/test_m.py": tests}, {"m.py": module}.get)
    head = "m.py\n```python\n" + module + "\n\n"
    found = judge(head + tests + "```\n")
    assert found is not None and found[0] == len(head)
    assert "began copying tests/test_m.py, which stays as it is, into m.py" in found[1]
    # Fewer lines than make a copy, or lines the block's own file holds too, go on.
    short = "\n".join(tests.split("\n")[: KEPT_LINES - 1])
    assert judge(head + short + "\n") is None
    shared = kept_copied_into({"tests/test_m.py": tests}, {"m.py": module + tests}.get)
    assert shared(head + tests + "```\n") is None
    # The kept file's own block is another judge's affair.
    assert judge("tests/test_m.py\n```python\n" + tests + "```\n") is None


def test_a_block_written_again_under_another_path_is_cut() -> None:
    """Seen on jinja: the same 40 lines under utils.py, filters.py, environment.py, ... to the
    reply's cap."""
    from git_gpte.edit.repeated import OTHER_PATH_LINES

    first = block("a.py", BODY)
    found = repeated_file(first + block("b.py", BODY) + block("c.py", BODY))
    assert found is not None and found[0] == len(first)
    assert "wrote under a.py again, under b.py" in found[1]
    # A long block is a copy once its first OTHER_PATH_LINES lines have come again.
    long = "\n".join(f"value_{n} = {n}" for n in range(OTHER_PATH_LINES + 20)) + "\n"
    start = "\n".join(long.split("\n")[:OTHER_PATH_LINES]) + "\n"
    assert repeated_file(block("a.py", long) + "b.py\n```python\n" + start + "x") is not None
    # A shared license header and imports (fewer lines) are not a copy, nor a short block.
    header = "\n".join(f"# line {n}" for n in range(OTHER_PATH_LINES - 1)) + "\n"
    assert (
        repeated_file(block("a.py", header + "a = 1\n") + block("b.py", header + "b = 2\n")) is None
    )
    short = "\n".join(f"x{n} = {n}" for n in range(SAME_LINES - 1)) + "\n"
    assert repeated_file(block("a.py", short) + block("b.py", short)) is None


def test_a_block_beginning_with_lines_an_earlier_one_for_its_path_holds_is_cut() -> None:
    """Seen (minimark/ordered-start): in the definitions format, with the prompt's own
    heading, the same method in block after block, each beginning elsewhere in it."""
    header = "File: m.py (only these definitions of it; the rest of the file stays as it is)\n"
    method = "\n".join(f"        step_{n} = {n}" for n in range(SAME_LINES + 5)) + "\n"
    first = header + "```\nclass A:\n    def run(self):\n" + method + "```\n\n"
    second = header + "```\nclass B:\n    x = 1\n```\n\n"  # another definition: goes on
    again = header + "```\n" + "\n".join(method.split("\n")[2:]) + "```\n"
    found = repeated_file(first + second + again)
    assert found is not None and found[0] == len(first + second)
    assert found[1] == "the reply began writing again lines it wrote for m.py; stopped it there"
    assert repeated_file(first + second) is None
