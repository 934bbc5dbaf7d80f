"""Which tracked files a ``--check`` command runs as tests (``pipeline.verify``)."""

from __future__ import annotations

from git_gpte.pipeline.verify import files_the_check_runs

TRACKED = [
    "app/core.py",
    "app/cli.py",
    "tests/test_core.py",
    "tests/test_cli.py",
    "tests/conftest.py",
    "acronym.py",
    "acronym_test.py",
]


def test_a_named_test_file_a_directory_and_a_pytest_node() -> None:
    assert files_the_check_runs("python -m pytest -q acronym_test.py", TRACKED) == {
        "acronym_test.py"
    }
    assert files_the_check_runs("pytest -x tests/", TRACKED) == {
        "tests/test_core.py",
        "tests/test_cli.py",
        "tests/conftest.py",
    }
    assert files_the_check_runs("pytest ./tests/test_cli.py::test_help -q", TRACKED) == {
        "tests/test_cli.py"
    }


def test_code_a_check_runs_and_commands_naming_nothing_protect_nothing() -> None:
    assert files_the_check_runs("python app/cli.py --help", TRACKED) == frozenset()
    assert files_the_check_runs("make test", TRACKED) == frozenset()
    assert files_the_check_runs("pytest -k 'unclosed", TRACKED) == frozenset()
