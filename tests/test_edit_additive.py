"""A request that only adds a check or logging: what the answer changed besides is put back."""

from __future__ import annotations

from pathlib import Path

import pytest

from git_gpte.edit.additive import keep_unasked_code
from tests.conftest import run_gpte
from tests.helpers.gitrepo import Snapshot, git, make_repo
from tests.helpers.llm_server import LLMServer, self_hosted_env

LOREM = '''\
"""Filler text."""

WORDS = "lorem ipsum dolor sit amet consectetur adipiscing elit".split()


def lorem(n=2, low=3, high=6):
    """Some paragraphs of filler words."""
    result = []
    for index in range(n):
        p = []

        # each paragraph has between low and high words.
        for i in range(low + index % (high - low + 1)):
            p.append(WORDS[i % len(WORDS)])

        # ensure that the paragraph ends with a dot.
        text = " ".join(p)
        if not text.endswith("."):
            text += "."
        result.append(text)
    return "\\n\\n".join(result)
'''

REQUEST = "lorem should raise ValueError when low is greater than high"
DOOR = '    """Some paragraphs of filler words."""\n'
GUARD = '    if low > high:\n        raise ValueError("low is greater than high")\n'
RIGHT = LOREM.replace(DOOR, DOOR + GUARD)
# Seen on jinja (stop 62): the check twice, the second in a comment's place, and the lines
# that end each paragraph with a dot replaced by one that does not.
ANSWER = RIGHT.replace(
    "\n        # each paragraph has between low and high words.\n",
    '        if low > high:\n            raise ValueError("low is greater than high")\n',
).replace(
    "\n        # ensure that the paragraph ends with a dot.\n"
    '        text = " ".join(p)\n'
    '        if not text.endswith("."):\n'
    '            text += "."\n'
    "        result.append(text)\n",
    '        result.append(" ".join(p))\n',
)


def test_the_answer_of_a_check_keeps_the_check_once_and_nothing_else() -> None:
    assert ANSWER != RIGHT
    repair = keep_unasked_code(LOREM, ANSWER, REQUEST)
    assert repair is not None and repair.text == RIGHT
    assert "lorem" in repair.detail


LOGGED = """\
import logging

log = logging.getLogger(__name__)


def hosts(spec):
    found = (h for h in spec.split(",") if h)
    chosen = sorted(found)
    return chosen
"""


def test_logging_keeps_the_log_lines_and_puts_back_the_rest() -> None:
    # Seen on requests: asked for logging, the generator also became a list.
    logged = LOGGED.replace("    return", "    log.debug('hosts %s', chosen)\n    return")
    answer = logged.replace(
        '(h for h in spec.split(",") if h)', '[h for h in spec.split(",") if h]'
    )
    assert answer != logged
    request = "Add logging to hosts: log a debug message with the hosts"
    repair = keep_unasked_code(LOGGED, answer, request)
    assert repair is not None and repair.text == logged


@pytest.mark.parametrize(
    "request_",
    [
        "lorem should raise ValueError when low is greater than high, instead of looping",
        "lorem should raise ValueError when low is greater than high. Also return a list.",
        "lorem raises ValueError when low is greater than high; make it return ''",
        "Rewrite lorem so that it reads better",
    ],
)
def test_a_request_asking_for_more_than_the_addition_is_left_alone(request_: str) -> None:
    assert keep_unasked_code(LOREM, ANSWER, request_) is None


def test_nothing_is_put_back_where_the_result_would_name_what_is_undefined() -> None:
    # The stretch put back used a name the answer took out of the module: left as written.
    before = "import os\n\n\ndef f(x):\n    y = os.sep\n    return x\n"
    after = "def f(x):\n    if x < 0:\n        raise ValueError\n    y = 1\n    return x\n"
    assert keep_unasked_code(before, after, "f should raise ValueError when x < 0") is None


def test_improve_commits_the_check_alone(tmp_path: Path, llm_server: LLMServer) -> None:
    root = make_repo(tmp_path / "filler", {"filler.py": LOREM})
    before = Snapshot.take(root)
    llm_server.queue(f"filler.py\n```python\n{ANSWER}```\n")
    env = self_hosted_env(llm_server, GPTE_PROBE="0")
    done = run_gpte("improve", REQUEST, cwd=root, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert (
        "put back code the reply changed beside what was asked: lorem" in done.stdout + done.stderr
    )
    branch = git(root, "branch", "--list", "gpte/*").strip(" *\n")
    assert git(root, "show", f"{branch}:filler.py") == RIGHT
    before.assert_unchanged(root, new_branches=(branch,))


COMMAS = '''\
def commas(value, digits=None):
    """``value`` with commas every three digits."""
    import math

    if not math.isfinite(value):
        return str(value)
    if digits is not None:
        return f"{value:,.{digits}f}"
    return f"{value:,}"
'''


def test_only_the_check_of_what_was_added_is_kept() -> None:
    # Seen on humanize: beside the check, statements of another function's body were added
    # and a return of another case was made to raise the same error.
    answer = COMMAS.replace(
        "    import math\n\n",
        "    import math\n"
        "    if not isinstance(value, str):\n"
        "        value = str(value)\n"
        "    # the check\n"
        "    if digits is not None and digits < 0:\n"
        '        raise ValueError("digits is negative")\n',
    ).replace("        return str(value)", '        raise ValueError("digits is negative")')
    repair = keep_unasked_code(
        COMMAS, answer, "commas should raise ValueError when digits is negative"
    )
    assert repair is not None
    assert repair.text == COMMAS.replace(
        "    import math\n\n",
        "    import math\n\n"
        "    # the check\n"
        "    if digits is not None and digits < 0:\n"
        '        raise ValueError("digits is negative")\n',
    )
    # A check whose test uses a name the stretch assigns keeps the assignment.
    needs = COMMAS.replace(
        "    import math\n\n",
        "    import math\n    size = abs(value)\n"
        "    if size > 10**30:\n        raise ValueError(size)\n",
    )
    assert (
        keep_unasked_code(COMMAS, needs, "commas should raise ValueError for a huge value") is None
    )
