"""An answer importing from a module the repository does not have, through ``git gpte improve``.

Seen with a 1.5B model on a real package: it added ``from .hookspec import ...`` to a file of
a package that has no ``hookspec`` module. Every name it used was then defined (by that
import), the file compiled, and nothing but importing the module could tell.
"""

from __future__ import annotations

import json

from tests.conftest import run_gpte
from tests.helpers.gitrepo import git, make_repo
from tests.helpers.llm_server import LLMServer

HOOKS = '''\
def register(registry, fn):
    """Add ``fn`` to ``registry`` under its name."""
    registry[fn.__name__] = fn
    return fn
'''

MADE_UP = '''\
from .errors import HookError


def register(registry, fn):
    """Add ``fn`` to ``registry`` under its name."""
    if not callable(fn):
        raise HookError(f"{fn!r} is not callable")
    registry[fn.__name__] = fn
    return fn
'''

FIXED = MADE_UP.removeprefix("from .errors import HookError\n\n\n").replace(
    "HookError", "TypeError"
)


def test_an_import_from_a_missing_module_goes_back_and_is_never_committed(
    tmp_path, llm_server: LLMServer
) -> None:
    repo = make_repo(tmp_path / "r", {"pkg/__init__.py": "", "pkg/hooks.py": HOOKS})
    env = {"OPENAI_BASE_URL": llm_server.openai_base_url, "MODEL_NAME": "local-model"}
    request = "register should raise an error when fn is not callable"
    args = ("improve", request, "--json", "--no-probe", "--no-check")

    # The same answer twice: git-gpte stops asking.
    llm_server.queue(*[f"pkg/hooks.py\n```python\n{MADE_UP}```\n"] * 2)
    refused = run_gpte(*args, cwd=repo, env=env)
    assert refused.returncode == 6, refused.stderr
    assert "imports from .errors, a module the repository does not have" in refused.stderr
    assert git(repo, "branch", "--list", "gpte/*") == ""

    llm_server.queue(
        f"pkg/hooks.py\n```python\n{MADE_UP}```\n", f"pkg/hooks.py\n```python\n{FIXED}```\n"
    )
    done = run_gpte(*args, cwd=repo, env=env)
    assert done.returncode == 0, done.stderr
    assert git(repo, "show", f"{json.loads(done.stdout)['branch']}:pkg/hooks.py") == FIXED
    retry = llm_server.requests[-1].body["messages"][-1]["content"]
    assert "pkg/hooks.py:1: imports from .errors, a module the repository does not have" in retry
