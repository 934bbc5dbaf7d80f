"""A whole-file answer that writes a function's code into its type stub, through
``git gpte improve``.

Seen with the 1.5B model on attrs: asked that ``to_bool`` strip white space, it wrote the
module as the one-line re-export another package has, and the fixed ``to_bool``, body and all,
into the module's ``.pyi`` stub. The tests passed (stubs do not run) and the result was
committed with exit 0, the module's ``to_bool`` as it was and the module importing itself.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import run_gpte
from tests.helpers.gitrepo import git, make_repo
from tests.helpers.llm_server import LLMServer, self_hosted_env

MODULE = '''"""Converters."""


def to_bool(val):
    """Convert "true"/"false" strings to booleans."""
    if isinstance(val, str):
        val = val.lower()
    if val in (True, "true", "yes", 1):
        return True
    if val in (False, "false", "no", 0):
        return False
    raise ValueError(f"Cannot convert value to bool: {val!r}")


def pipe(*converters):
    """One converter running each of ``converters`` in turn."""

    def run(val):
        for converter in converters:
            val = converter(val)
        return val

    return run
'''

STUB = """from typing import Any, Callable

def to_bool(val: str | int | bool) -> bool: ...
def pipe(*converters: Callable[[Any], Any]) -> Callable[[Any], Any]: ...
"""

REEXPORT = "# Re-exported under the new name.\n\nfrom pkg.converters import *  # noqa: F403\n"

TESTS = """from pkg.converters import pipe, to_bool


def test_to_bool():
    assert to_bool("yes") is True and to_bool("false") is False


def test_pipe():
    assert pipe(str.strip, to_bool)(" true ") is True
"""

FIXED = '''def to_bool(val: str | int | bool) -> bool:
    """Convert "true"/"false" strings to booleans."""
    if isinstance(val, str):
        val = val.strip().lower()
    if val in (True, "true", "yes", 1):
        return True
    if val in (False, "false", "no", 0):
        return False
    raise ValueError(f"Cannot convert value to bool: {val!r}")
'''

# The module written as the other package's text, the fix written into the stub (the stub's
# other signature changed on the way).
ANSWER = (
    f"File: pkg/converters.py\n```python\n{REEXPORT}```\n\n"
    "File: pkg/converters.pyi\n```python\nfrom typing import Any, Callable\n\n"
    f"{FIXED}def pipe(*converters: Any) -> Any: ...\n```\n"
)


def test_code_written_into_a_stub_goes_to_its_module(tmp_path: Path, llm_server: LLMServer) -> None:
    files = {
        "pkg/__init__.py": "",
        "pkg/converters.py": MODULE,
        "pkg/converters.pyi": STUB,
        "compat/__init__.py": "",
        "compat/converters.py": REEXPORT,
        "tests/test_converters.py": TESTS,
    }
    repo = make_repo(tmp_path / "r", files)
    llm_server.queue(ANSWER, ANSWER, ANSWER)
    done = run_gpte(
        "improve", "to_bool in pkg/converters.py should strip surrounding white space "
        "from strings before converting them", "--json", "--edit-format", "whole",
        "--no-probe", "--check", "python -m pytest -q -p no:cacheprovider",
        cwd=repo, env=self_hosted_env(llm_server), timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert len(llm_server.requests) == 1
    branch = json.loads(done.stdout)["branch"]
    module = git(repo, "show", f"{branch}:pkg/converters.py")
    assert "val = val.strip().lower()" in module
    assert "import *" not in module and "def pipe(*converters):" in module
    assert git(repo, "show", f"{branch}:pkg/converters.pyi") == STUB
    changed = git(repo, "diff", "--name-only", f"HEAD...{branch}").split()
    assert changed == ["pkg/converters.py"]
