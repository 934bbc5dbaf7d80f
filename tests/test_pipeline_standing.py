"""pipeline/standing.py: which results a retry may fall back to, and what the retry asked
again says of the answer it dropped."""

from __future__ import annotations

from git_gpte.edit.attributes import missing_attribute_hints
from git_gpte.edit.pycheck import Problem
from git_gpte.pipeline.standing import dropped_note, fails_check, may_fall_back_to

ERROR = "E   AttributeError: 'Task' object has no attribute 'is_completed'"
OUTPUT = f"Tests that pass before your edits fail after them: tests/test_q.py::test_a.\n{ERROR}\n"


def test_what_a_retry_may_fall_back_to() -> None:
    probe = Problem("check", "", None, "A check written from the request fails", advisory=True)
    undone = Problem("request", "q.py", 3, "overdue is as it was")
    broken = Problem("undefined-name", "q.py", 3, "undefined name 'x'")
    failing = Problem("check", "", None, OUTPUT)
    assert may_fall_back_to([]) and may_fall_back_to([probe, undone])
    assert not may_fall_back_to([broken]) and not may_fall_back_to([failing])
    assert fails_check([failing]) and not fails_check([probe])


def test_the_dropped_answer_is_said_by_its_failure_once_and_what_the_class_has() -> None:
    models = "class Task:\n    def __init__(self):\n        self.done = False\n"
    hints = missing_attribute_hints(OUTPUT, {"m.py": models})
    text = "\n".join([OUTPUT + ERROR, *hints])
    note = dropped_note([Problem("check", "", None, text)])
    assert note.count("is_completed'") == 1
    assert "tests/test_q.py::test_a" in note
    assert "Task (in m.py) has no attribute `is_completed`; what it has: done." in note
