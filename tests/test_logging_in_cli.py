"""improve: logging asked for in a function, written in another, goes back to the model."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run_gpte
from tests.helpers.gitrepo import git, make_repo
from tests.helpers.llm_server import LLMServer, self_hosted_env

KEYS = '''\
import logging

logger = logging.getLogger(__name__)


class _Key(tuple):
    def __hash__(self):
        return tuple.__hash__(self)


def hashkey(*args):
    """A key for the arguments."""
    return _Key(args)
'''

REQUEST = "Add logging to hashkey: log a debug message with the key it returns"
ELSEWHERE = KEYS.replace(
    "        return tuple", "        logger.debug('key %s', self)\n        return tuple"
)
RIGHT = KEYS.replace(
    "    return _Key(args)",
    "    key = _Key(args)\n    logger.debug('key %s', key)\n    return key",
)


def test_logging_written_in_another_function_is_asked_again(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    root = make_repo(tmp_path / "keys", {"keys.py": KEYS})
    llm_server.queue(f"keys.py\n```python\n{ELSEWHERE}```\n", f"keys.py\n```python\n{RIGHT}```\n")
    env = self_hosted_env(llm_server, GPTE_PROBE="0")
    done = run_gpte("improve", REQUEST, cwd=root, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    retry = llm_server.requests[1].body["messages"][-1]["content"]
    assert "the request asks for logging in hashkey, and hashkey still logs nothing" in retry
    branch = git(root, "branch", "--list", "gpte/*").strip(" *\n")
    assert git(root, "show", f"{branch}:keys.py") == RIGHT
