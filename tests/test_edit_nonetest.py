"""A name tested for None and then used as a value in the same condition is sent back."""

from __future__ import annotations

import ast
from pathlib import Path

from git_gpte.edit.nonetest import none_misuses
from tests.conftest import run_gpte
from tests.helpers.gitrepo import git, make_repo
from tests.helpers.llm_server import LLMServer, self_hosted_env


def _found(source: str) -> list[str]:
    return [key for key, _ in none_misuses(ast.parse(source))]


def test_the_inverted_none_tests_are_found() -> None:
    assert _found("if n is None and n < 0:\n    pass\n") == ["n is None and n < 0"]
    assert _found("ok = n is not None or n.real > 1") == ["n is not None or n.real > 1"]
    assert _found("x = d is None and d['k']") == ["d is None and d['k']"]
    assert _found("x = n is None and n + 1") == ["n is None and n + 1"]
    # what is right, or says nothing of the name
    for fine in (
        "if n is not None and n < 0:\n    pass\n",
        "if n is None or n < 0:\n    pass\n",
        "x = a is None and b < 0",
        "x = a is None and not a",
        "x = a is None and f(a)",
        "x = a is None and (a is None or a < 0)",
    ):
        assert _found(fine) == [], fine


COMMAS = '''\
def commas(value, digits=None):
    """``value`` with commas every three digits."""
    if digits is not None:
        return f"{value:,.{digits}f}"
    return f"{value:,}"
'''
DOOR = '    """``value`` with commas every three digits."""\n'
REQUEST = "commas should raise ValueError when digits is negative"


def test_improve_sends_back_a_check_that_compares_none(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    # Seen on humanize: the check made every call with the default digits raise TypeError.
    root = make_repo(tmp_path / "fmt", {"fmt.py": COMMAS})
    wrong = COMMAS.replace(
        DOOR, DOOR + "    if digits is None and digits < 0:\n        raise ValueError(digits)\n"
    )
    right = wrong.replace("digits is None and", "digits is not None and")
    llm_server.queue(f"fmt.py\n```python\n{wrong}```\n", f"fmt.py\n```python\n{right}```\n")
    env = self_hosted_env(llm_server, GPTE_PROBE="0")
    done = run_gpte("improve", REQUEST, cwd=root, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    retry = llm_server.requests[1].body["messages"][-1]["content"]
    assert (
        "`digits is None and digits < 0` goes on to use a name it has just found to be None"
        in retry
    )
    branch = git(root, "branch", "--list", "gpte/*").strip(" *\n")
    assert git(root, "show", f"{branch}:fmt.py") == right
