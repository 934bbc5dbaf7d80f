"""The lookups the pipelines add to context selection: where a symbol is defined, and which
paths the selection's rules allow (what a model may be given when it asks for more)."""

from __future__ import annotations

from pathlib import Path

from git_gpte.context import candidates, locate
from git_gpte.git import Repository
from tests.helpers.gitrepo import make_repo

LIB = """\
import os


class Session:
    def send(self, x):
        return x

    def close(self):
        pass


def send(y):
    return y
"""


def _repo(tmp_path: Path) -> tuple[Repository, str]:
    root = make_repo(
        tmp_path / "r",
        {"src/lib.py": LIB, "src/app.py": "from lib import send\n", ".env": "KEY=1\n"},
    )
    repo = Repository.discover(root)
    return repo, repo.resolve_commit("HEAD")


def test_locate_finds_functions_classes_and_methods_through_their_class(tmp_path: Path) -> None:
    repo, commit = _repo(tmp_path)
    found = locate(repo, commit, ["send", "Session", "Session.close", "missing"])
    assert [(h.path, h.start <= 12 <= h.end) for h in found["send"]] == [("src/lib.py", True)]
    (session,) = found["Session"]
    assert (session.path, session.start <= 4, session.end >= 9) == ("src/lib.py", True, True)
    # a method without a chunk of its own is found as its class's chunk
    assert [(h.name, h.path) for h in found["Session.close"]] == [("Session", "src/lib.py")]
    assert found["missing"] == []


def test_candidates_apply_the_selection_rules(tmp_path: Path) -> None:
    repo, commit = _repo(tmp_path)
    allowed, skipped = candidates(repo, commit)
    assert allowed == {"src/lib.py", "src/app.py"}
    assert ".env" in skipped and "secret" in skipped[".env"]
