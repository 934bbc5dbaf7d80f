"""Blank lines and comments a rewrite changed on the way, given back (edit/layout.py).

Seen with the 1.5B model on werkzeug: asked that ``secure_filename`` raise TypeError for a
non-str, it wrote the check, took out the blank lines between the function's steps and
reworded a comment.
"""

from __future__ import annotations

import json
from pathlib import Path

from git_gpte.edit.layout import keep_layout
from tests.conftest import run_gpte
from tests.helpers.gitrepo import git, make_repo
from tests.helpers.llm_server import LLMServer, self_hosted_env

NAMES = '''import re


def secure(name):
    """A name safe to store."""
    name = name.strip()

    for sep in "/\\\\":
        name = name.replace(sep, " ")

    # on some systems a few names are special: we
    # prepend an underline
    if name.upper() in ("CON", "NUL"):
        name = "_" + name

    return re.sub(r"\\s+", "_", name)
'''
CHECK = '    if not isinstance(name, str):\n        raise TypeError("name must be a str")\n'
FIXED = NAMES.replace(
    '    """A name safe to store."""\n', '    """A name safe to store."""\n' + CHECK
)
SQUEEZED = (
    FIXED.replace("name.strip()\n\n", "name.strip()\n")
    .replace('" ")\n\n', '" ")\n')
    .replace(
        "# on some systems a few names are special: we\n    # prepend an underline",
        "# special device names get an underline",
    )
    .replace("name\n\n    return", "name\n    return")
)


def test_blank_lines_lost_and_comments_reworded_come_back() -> None:
    repair = keep_layout(NAMES, SQUEEZED, "secure should raise TypeError for a non-str")
    assert repair is not None and repair.text == FIXED
    assert "3 blank line(s) and 2 comment line(s)" in repair.detail
    # asked about comments or layout, or nothing lost: left as it is
    assert keep_layout(NAMES, SQUEEZED, "tidy the comments of secure") is None
    assert keep_layout(NAMES, FIXED, "raise TypeError") is None
    # a comment dropped alone comes back too
    alone = keep_layout(NAMES, NAMES.replace("    # prepend an underline\n", ""), "x")
    assert alone is not None and alone.text == NAMES and "1 comment line(s)" in alone.detail
    # a blank line that went with code is the code's
    assert (
        keep_layout(NAMES, NAMES.replace('\n\n    return re.sub(r"\\s+", "_", name)', ""), "x")
        is None
    )


def test_improve_commits_the_check_alone(tmp_path: Path, llm_server: LLMServer) -> None:
    repo = make_repo(tmp_path / "r", {"names.py": NAMES})
    block = SQUEEZED.split("\n\n\n", 1)[1]
    llm_server.queue(f"names.py\n```python\n{block}```\n")
    done = run_gpte(
        "improve", "secure should raise TypeError when name is not a str", "--json",
        "--edit-format", "definitions", "--no-probe",
        cwd=repo, env=self_hosted_env(llm_server), timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert git(repo, "show", f"{data['branch']}:names.py") == FIXED
    assert any("blank line(s)" in line for line in data["corrected"])
