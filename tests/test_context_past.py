"""Earlier commits like the request as a signal of context selection, on real repos."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from git_gpte.context import past, select
from git_gpte.context.past import similar_commit_weights
from git_gpte.context.terms import query_terms
from git_gpte.context.weights import WEIGHTS
from git_gpte.git import Repository
from git_gpte.git.history import PastCommit, parse_subjects
from tests.helpers.gitrepo import commit_all, git, make_repo, write_files

# Four modules sharing every word: only the history can tell them apart.
MODULES = {
    f"pkg/{name}.py": "".join(
        f"def {name}_{i}(value):\n    # keep the {name} rules here\n    return value + {i}\n\n\n"
        for i in range(12)
    )
    for name in ("alpha", "beta", "gamma", "delta")
}


def _touch(root: Path, path: str, subject: str) -> None:
    with (root / path).open("a", encoding="utf-8") as handle:
        handle.write(f"# {len((root / path).read_text())}\n")
    commit_all(root, subject)


def test_parse_subjects_keeps_each_commits_subject_and_paths() -> None:
    out = (
        "\x01abc\x02Ann\x02Fix the pager\0\na.py\0b.py\0"
        "\x01def\x02dependabot[bot]\x02Bump urllib3 from 2.0 to 2.1\0\nreq.txt\0"
        "\x01\x02Ann\x02initial\0\nc.py\0"
    )
    assert parse_subjects(out) == (PastCommit("Fix the pager", ("a.py", "b.py")),)


def test_the_files_of_the_most_similar_commits_are_lifted() -> None:
    sweeping = tuple(f"m{i}.py" for i in range(past.MAX_PATHS + 1))
    commits = (
        PastCommit("Fix autocompletion of hidden options", ("src/_bashcomplete.py",)),
        PastCommit("Autocompletion for zsh", ("src/_bashcomplete.py", "src/shell.py")),
        PastCommit("Fix typo in the docs", ("docs/index.md",)),
        PastCommit("Reformat everything for autocompletion", sweeping),
        PastCommit("Add a pager", ("src/pager.py",)),
    )
    lifts = similar_commit_weights(query_terms("autocompletion shows hidden options"), commits)
    assert lifts["src/_bashcomplete.py"] == 1.0  # the best file gets 1
    assert 0 < lifts["src/shell.py"] < 1.0  # shared with another file: less
    assert "docs/index.md" not in lifts and "src/pager.py" not in lifts  # nothing in common
    assert not set(sweeping) & set(lifts)  # a commit of too many files points nowhere
    assert similar_commit_weights(query_terms("rewrite the parser"), commits) == {}
    assert similar_commit_weights(query_terms("anything"), ()) == {}


def test_only_the_top_commits_count(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(past, "TOP", 1)
    commits = (
        PastCommit("retry on timeout", ("a.py",)),
        PastCommit("retry on timeout in the client pool", ("b.py",)),
        PastCommit("add a pager", ("c.py",)),
    )
    assert set(similar_commit_weights(query_terms("retry on timeout"), commits)) == {"a.py"}
    # a word every commit holds tells them nothing apart
    assert similar_commit_weights(query_terms("retry"), commits[:2]) == {}


def _history_repo(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "r", MODULES)
    _touch(root, "pkg/beta.py", "Speed up the autocompletion of long words")
    _touch(root, "pkg/delta.py", "Tidy imports")
    _touch(root, "pkg/gamma.py", "Rename a helper")
    _touch(root, "pkg/alpha.py", "Document the rules")
    return root


def test_past_commits_on_a_real_history(tmp_path: Path) -> None:
    root = _history_repo(tmp_path)
    repo = Repository.discover(root)
    commits = repo.past_commits(repo.resolve_commit("HEAD"), 3)
    assert [c.subject for c in commits] == ["Document the rules", "Rename a helper", "Tidy imports"]
    assert commits[0].paths == ("pkg/alpha.py",)


ON = replace(WEIGHTS, past=1.0)  # off by default: a variant of the ranking (weights.py)


def test_the_file_earlier_commits_like_the_request_changed_is_sent_first(tmp_path: Path) -> None:
    root = _history_repo(tmp_path)
    repo = Repository.discover(root)
    request = "autocompletion is slow when a word is long"
    top = select(repo, repo.resolve_commit("HEAD"), request, 700, weights=ON).picks[0]
    assert top.path == "pkg/beta.py"
    assert "changed by commits like this request" in top.reasons
    plain = select(repo, repo.resolve_commit("HEAD"), request, 700).picks
    assert all("changed by commits like this request" not in p.reasons for p in plain)
    # a shallow clone has no earlier commits: the selection still works
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{root}", str(shallow))
    repo = Repository.discover(shallow)
    assert select(repo, repo.resolve_commit("HEAD"), request, 700, weights=ON).picks


def test_the_request_outweighs_past_commits(tmp_path: Path) -> None:
    root = _history_repo(tmp_path)
    write_files(root, {"pkg/words.py": "def autocompletion_words(text):\n    return text\n"})
    commit_all(root, "Add words")
    repo = Repository.discover(root)
    picks = select(repo, repo.resolve_commit("HEAD"), "autocompletion_words", 700, weights=ON).picks
    assert picks[0].path == "pkg/words.py"
