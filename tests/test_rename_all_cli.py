"""A rename through ``git gpte improve`` reaches the module's own ``__all__``.

Seen with the 1.5B model on boltons: asked to rename ``strip_ansi`` in ``strutils.py`` to
``remove_ansi``, it wrote the function under its new name; the rename was completed in the
tests, but ``strutils``' ``__all__`` still listed ``strip_ansi`` and nothing was committed.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import run_gpte
from tests.helpers.gitrepo import git, make_repo
from tests.helpers.llm_server import LLMServer, self_hosted_env

MODULE = '''"""Text helpers."""

__all__ = ["strip_codes", "shout"]


def strip_codes(text):
    """Take escape codes out of text."""
    return text.replace("\\x1b", "")


def shout(text):
    return text.upper()
'''
TESTS = """from texts import strip_codes


def test_strip_codes():
    assert strip_codes("\\x1ba") == "a"
"""


def _rename(repo: Path, llm_server: LLMServer, block: str) -> str:
    """The branch ``improve`` commits for the rename, answered with ``block``."""
    llm_server.queue(f"texts.py\n```python\n{block}\n```\n")
    done = run_gpte(
        "improve", "Rename strip_codes in texts.py to remove_codes and update every use",
        "--json", "--edit-format", "definitions", "--no-probe",
        cwd=repo, env=self_hosted_env(llm_server), timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    branch = json.loads(done.stdout)["branch"]
    return str(branch)


def test_a_rename_leaves_no_old_name_in_all(tmp_path: Path, llm_server: LLMServer) -> None:
    repo = make_repo(tmp_path / "r", {"texts.py": MODULE, "test_texts.py": TESTS})
    renamed = MODULE.split("\n\n\n")[1].replace("def strip_codes", "def remove_codes")
    branch = _rename(repo, llm_server, renamed)
    assert git(repo, "show", f"{branch}:texts.py") == MODULE.replace("strip_codes", "remove_codes")
    assert "remove_codes" in git(repo, "show", f"{branch}:test_texts.py")


def test_a_renamed_copy_keeps_the_blank_lines_and_comments_it_lost(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    """Seen on boltons: the renamed function written beside the old one with its blank lines
    as lines of spaces and a comment left out; it took the old one's place so."""
    module = MODULE.replace(
        '    return text.replace("\\x1b", "")\n',
        '    cleaned = text.replace("\\x1b", "")\n\n'
        "    # escapes are gone now\n    return cleaned\n",
    )
    repo = make_repo(tmp_path / "r", {"texts.py": module, "test_texts.py": TESTS})
    renamed = module.split("\n\n\n")[1].replace("def strip_codes", "def remove_codes")
    sloppy = renamed.replace("\n\n    # escapes are gone now\n", "\n    \n")
    branch = _rename(repo, llm_server, sloppy)
    assert git(repo, "show", f"{branch}:texts.py") == module.replace("strip_codes", "remove_codes")
