"""A function a rewritten file defines twice, kept once (edit/redefined.py).

Seen with the 1.5B model on tqdm: ``utils.py`` written back whole with ``disp_trim`` where it
was and an identical copy at the end of the file, committed so.
"""

from __future__ import annotations

import json
from pathlib import Path

from git_gpte.edit.redefined import keep_one_definition
from tests.conftest import run_gpte
from tests.helpers.gitrepo import git, make_repo
from tests.helpers.llm_server import LLMServer, self_hosted_env

UTILS = '''import re


def trim(data, length):
    """Trim a string."""
    return data[:length]


def width(data):
    return len(re.sub("x", "", data))
'''
COPY = '''

def trim(data, length):
    """Trim a string."""
    return data[:length]
'''
FIXED = '''

def trim(data, length):
    """Trim a string."""
    if length < 0:
        raise ValueError("length must not be negative")
    return data[:length]
'''


def test_a_copy_goes_and_a_changed_second_takes_the_first_ones_place() -> None:
    repair = keep_one_definition(UTILS, UTILS + COPY)
    assert repair is not None and repair.text == UTILS and "trim" in repair.detail
    moved = keep_one_definition(UTILS, UTILS + FIXED)
    assert moved is not None
    assert moved.text == UTILS.replace(COPY.strip("\n") + "\n", FIXED.strip("\n") + "\n")


def test_names_a_decorator_registers_several_times_or_two_changed_are_left() -> None:
    overloads = (
        "from typing import overload\n\n\n@overload\ndef f(x: int) -> int: ...\n"
        "@overload\ndef f(x: str) -> str: ...\ndef f(x):\n    return x\n"
    )
    assert keep_one_definition("def f(x):\n    return x\n", overloads) is None
    both = UTILS.replace("[:length]", "[:length or None]") + FIXED
    assert keep_one_definition(UTILS, both) is None
    assert keep_one_definition(UTILS, UTILS) is None


def test_improve_commits_the_function_once(tmp_path: Path, llm_server: LLMServer) -> None:
    repo = make_repo(tmp_path / "r", {"utils.py": UTILS})
    llm_server.queue(f"utils.py\n```python\n{UTILS}{FIXED}```\n")
    done = run_gpte(
        "improve", "trim should raise ValueError when length is negative", "--json",
        "--edit-format", "whole", "--no-probe",
        cwd=repo, env=self_hosted_env(llm_server), timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    text = git(repo, "show", f"{data['branch']}:utils.py")
    assert text.count("def trim") == 1 and "raise ValueError" in text
    assert text.index("def trim") < text.index("def width")
    assert any("defined twice: trim" in line for line in data["corrected"])
