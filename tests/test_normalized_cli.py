"""A new method that looks its key up as given, in a class whose methods all normalize it
first: given the same first line before the result is checked and committed.

Seen with the 1.5B model on the own task settings/get-list: ``get_list`` read
``self._values[key]`` with the key as given, and ``get_list("Server.Hosts")`` found nothing
``get("Server.Hosts")`` finds.
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run_gpte
from tests.helpers.gitrepo import Snapshot, git, make_repo
from tests.helpers.keyed import GET_LIST, KEYED
from tests.helpers.llm_server import LLMServer, self_hosted_env

TESTS = """\
from table import Table


def test_get():
    assert Table({"A": 1}).get(" a ") == 1
"""
REQUEST = 'Add a method get_list(key, sep=",") to Table that splits the value on sep.'


def test_a_new_method_normalizes_its_key_as_the_class_does(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    root = make_repo(tmp_path / "r", {"table.py": KEYED, "tests/test_table.py": TESTS})
    before = Snapshot.take(root)
    llm_server.queue(f"table.py\n```python\n{KEYED}\n{GET_LIST}```\n")
    env = self_hosted_env(llm_server)
    done = run_gpte(
        "-v", "improve", REQUEST, "--no-probe", "--max-retries", "0", cwd=root, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert "as the class's other methods do first: Table.get_list (key = normalize(key))" in (
        done.stderr
    )
    branch = git(root, "branch", "--list", "gpte/*").strip(" *\n")
    text = git(root, "show", f"{branch}:table.py")
    assert '        """The value split on sep."""\n        key = normalize(key)\n' in text
    before.assert_unchanged(root, new_branches=(branch,))
