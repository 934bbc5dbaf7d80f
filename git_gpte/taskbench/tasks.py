"""Bench tasks: the gpte task file, and APPS / MBPP rows in their published shape.

A gpte task is one JSON object per line::

    {"name": "fizzbuzz", "prompt": "...", "files": {"fizz.py": "..."},
     "test": "python3 -m pytest -q"}                  # a command, or:
     "asserts": ["from fizz import f\\nassert f(3) == 'Fizz'\\n", ...]   # Python scripts

optionally with ``"test_files": {path: content}`` (added only when the test runs, so the model
never sees them before) and ``"timeout": seconds``. Assertion scripts are hidden test files
too: they run from the repository root with it on ``PYTHONPATH``.
"""

from __future__ import annotations

import posixpath
import shlex
from dataclasses import dataclass, field
from typing import Any

from ..errors import UsageError

HIDDEN_DIR = ".gpte-bench"


@dataclass
class Task:
    name: str
    prompt: str
    files: dict[str, str]
    test: str | None = None
    asserts: list[str] = field(default_factory=list)
    test_files: dict[str, str] = field(default_factory=dict)
    timeout: float | None = None

    def hidden_files(self) -> dict[str, str]:
        """Files added to the produced commit for the test only."""
        files = dict(self.test_files)
        for number, script in enumerate(self.asserts, 1):
            files[f"{HIDDEN_DIR}/assert_{number}.py"] = script
        return files

    def test_command(self, python: str) -> str:
        """What runs in the checkout of the produced commit; exit 0 means solved."""
        if self.test is not None:
            return self.test
        steps = ['export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"']
        for number in range(1, len(self.asserts) + 1):
            script = f"{HIDDEN_DIR}/assert_{number}.py"
            steps.append(f"echo '== {script}'")
            steps.append(f"{shlex.quote(python)} {script} || exit 1")
        return "\n".join(steps)


def gpte_task(row: dict[str, Any]) -> Task:
    name = row.get("name")
    prompt = row.get("prompt")
    if not isinstance(name, str) or not name.strip():
        raise UsageError('every task needs a "name" (a non-empty string)')
    if not isinstance(prompt, str) or not prompt.strip():
        raise UsageError(f'task {name!r} needs a "prompt" (a non-empty string)')
    files = _file_map(row.get("files", {}), name, "files")
    test_files = _file_map(row.get("test_files", {}), name, "test_files")
    test = row.get("test")
    asserts = row.get("asserts", [])
    if test is not None and (not isinstance(test, str) or not test.strip()):
        raise UsageError(f'task {name!r}: "test" must be a command line')
    if not isinstance(asserts, list) or not all(isinstance(a, str) for a in asserts):
        raise UsageError(f'task {name!r}: "asserts" must be a list of Python scripts')
    if (test is None) == (not asserts):
        raise UsageError(f'task {name!r} needs either "test" (a command) or "asserts", not both')
    timeout = row.get("timeout")
    if timeout is not None and (not isinstance(timeout, (int, float)) or timeout <= 0):
        raise UsageError(f'task {name!r}: "timeout" must be a positive number of seconds')
    return Task(
        name=name.strip(),
        prompt=prompt,
        files=files,
        test=test,
        asserts=list(asserts),
        test_files=test_files,
        timeout=float(timeout) if timeout is not None else None,
    )


def _file_map(value: Any, name: str, key: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise UsageError(f'task {name!r}: "{key}" must map paths to file contents')
    return {check_path(path, name): content for path, content in value.items()}


def check_path(path: str, name: str) -> str:
    """A clean relative path; a task file is input like any other and may not escape."""
    clean = posixpath.normpath(path.replace("\\", "/"))
    parts = clean.split("/")
    if path.startswith("/") or clean in (".", "") or ".." in parts or ".git" in parts:
        raise UsageError(f"task {name!r}: unsafe path {path!r}")
    if parts[0] == HIDDEN_DIR:
        raise UsageError(f"task {name!r}: {HIDDEN_DIR}/ is reserved for the hidden tests")
    return clean
