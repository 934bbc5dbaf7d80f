"""The project's tests run on the result when the package imports a module its build wrote."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run_gpte
from tests.helpers.gitrepo import Snapshot, git, make_repo
from tests.helpers.llm_server import LLMServer, self_hosted_env

# As humanize (hatch-vcs) and pluggy (setuptools-scm) have it: the package imports a version
# module that the build writes and git ignores.
INIT = """\
from ._version import __version__


def mean(values):
    return sum(values) / len(values)
"""
TESTS = """\
from stats import mean


def test_mean():
    assert mean([1, 2, 3]) == 2
"""
REQUEST = "make mean return 0 for an empty list"
WRONG = INIT.replace("    return sum", "    if not values:\n        return 0\n    return 1 + sum")
RIGHT = INIT.replace("    return sum", "    if not values:\n        return 0\n    return sum")


def test_a_generated_module_the_package_imports_is_there_for_the_tests(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    root = make_repo(
        tmp_path / "stats",
        {
            ".gitignore": "src/*/_version.py\n",
            "src/stats/__init__.py": INIT,
            "tests/test_stats.py": TESTS,
        },
    )
    (root / "src/stats/_version.py").write_text("__version__ = '1.0'\n")
    before = Snapshot.take(root)
    llm_server.queue(
        f"src/stats/__init__.py\n```python\n{WRONG}```\n",
        f"src/stats/__init__.py\n```python\n{RIGHT}```\n",
    )
    env = self_hosted_env(llm_server, GPTE_PROBE="0")
    done = run_gpte("improve", REQUEST, cwd=root, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "tests that passed before fail: tests/test_stats.py::test_mean" in done.stderr
    assert "the result passes the project's tests" in done.stdout
    branch = git(root, "branch", "--list", "gpte/*").strip(" *\n")
    assert git(root, "show", f"{branch}:src/stats/__init__.py") == RIGHT
    assert "_version.py" not in git(root, "ls-tree", "-r", "--name-only", branch)
    before.assert_unchanged(root, new_branches=(branch,))
