"""A print turned into a log call (edit/logged.py)."""

from __future__ import annotations

from git_gpte.edit.logged import asks_to_log, logged_prints
from tests.helpers.noisy import LOG_IT, LOGGED, NOISY


def test_a_request_to_log_instead_of_printing_is_told() -> None:
    assert asks_to_log(LOG_IT)
    assert asks_to_log("Replace the print() calls in app.py with logging at info level.")
    assert not asks_to_log("Add logging to read().")
    assert not asks_to_log("Print the total instead of the count.")


def test_the_print_the_request_speaks_of_becomes_a_log_call_with_a_logger() -> None:
    [found] = logged_prints(LOG_IT, {"noisy.py": NOISY})
    assert (found.path, found.line, found.count, found.level) == ("noisy.py", 10, 1, "warning")
    assert found.text == LOGGED


def test_the_print_calls_become_log_calls_at_the_one_level_named() -> None:
    request = "Replace the print() calls in noisy.py with logging at error level."
    [found] = logged_prints(request, {"noisy.py": NOISY, "other.py": 'print("x")\n'})
    assert (found.path, found.count, found.level) == ("noisy.py", 2, "error")
    assert "print(" not in found.text and found.text.count("logger.error(") == 2
    # A level for each print: which print gets which, only the request's words can say.
    two = request.replace("at error level", "the warning at WARNING level, the error at ERROR")
    assert logged_prints(two, {"noisy.py": NOISY}) == []
