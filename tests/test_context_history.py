"""The history signal of context selection: what the latest commits changed, on real repos."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import git_gpte.git.repo as repo_module
from git_gpte.context import select
from git_gpte.context.recency import file_weights
from git_gpte.git import Repository
from git_gpte.git.history import parse_log, parse_new_lines
from tests.conftest import run_gpte
from tests.helpers.gitrepo import commit_all, git, make_repo, write_files

# Four modules with nothing in common with the request below: only history can tell them apart.
MODULES = {
    f"pkg/{name}.py": "".join(
        f"def {name}_{i}(value):\n    # keep the {name} rules here\n    return value + {i}\n\n\n"
        for i in range(12)
    )
    for name in ("alpha", "beta", "gamma", "delta")
}


def _two_commits(tmp_path: Path) -> tuple[Path, Repository]:
    root = make_repo(tmp_path / "r", MODULES)
    text = (root / "pkg/gamma.py").read_text()
    write_files(root, {"pkg/gamma.py": text.replace("return value + 7", "return value + 70")})
    commit_all(root, "tweak gamma")
    return root, Repository.discover(root)


def test_parse_log_skips_root_commits_and_dependency_bumps() -> None:
    out = (
        "\x01abc\x02Ann\x02fix\0\na.py\0b.py\0"
        "\x01def\x02dependabot[bot]\x02Bump urllib3 from 2.0 to 2.1\0\nreq.txt\0"
        "\x01fed\x02Bob\x02chore(deps): update pyproject\0\npyproject.toml\0"
        "\x01\x02Ann\x02initial\0\nc.py\0"
    )
    assert parse_log(out) == (("a.py", "b.py"),)


def test_parse_new_lines_reads_hunks_and_deletions() -> None:
    diff = (
        "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n"
        "@@ -3 +3 @@\n-a\n+b\n@@ -10,2 +9,0 @@\n-c\n-d\n@@ -20,0 +19,3 @@\n+e\n+f\n+g\n"
        "diff --git a/gone.py b/gone.py\n--- a/gone.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n"
        'diff --git "a/q\\"x.py" "b/q\\"x.py"\n+++ "b/q\\"x.py"\n@@ -1 +1 @@\n-a\n+b\n'
    )
    assert parse_new_lines(diff) == {"x.py": ((3, 3), (9, 10), (19, 21))}


def test_file_weights_decay_with_age_and_commit_size() -> None:
    weights = file_weights([("a.py",), ("b.py", "c.py", "d.py", "e.py"), ("a.py", "f.py")])
    assert weights["a.py"] == 1.0
    assert weights["b.py"] == 0.7 / 2
    assert abs(weights["f.py"] - 0.49 / 2**0.5) < 1e-9
    assert file_weights([]) == {}


def test_recent_changes_on_a_real_history(tmp_path: Path) -> None:
    root, repo = _two_commits(tmp_path)
    head = repo.resolve_commit("HEAD")
    changes = repo.recent_changes(head, 5)
    assert changes.commits == (("pkg/gamma.py",),)  # the root commit adds everything: left out
    [(start, end)] = changes.lines["pkg/gamma.py"]
    line = (root / "pkg/gamma.py").read_text().splitlines().index("    return value + 70") + 1
    assert start <= line <= end
    # one commit only: nothing to compare with
    first = git(root, "rev-parse", "HEAD~1").strip()
    assert repo.recent_changes(first, 5).commits == ()


def test_a_vague_request_goes_to_what_was_just_changed(tmp_path: Path) -> None:
    root, repo = _two_commits(tmp_path)
    sel = select(repo, repo.resolve_commit("HEAD"), "Move the comment to the right place", 700)
    top = sel.picks[0]
    assert top.path == "pkg/gamma.py"
    assert "changed recently" in top.reasons
    line = (root / "pkg/gamma.py").read_text().splitlines().index("    return value + 70") + 1
    assert top.whole or any(r.start <= line <= r.end for r in top.ranges)


def test_the_request_outweighs_history(tmp_path: Path) -> None:
    _, repo = _two_commits(tmp_path)
    sel = select(repo, repo.resolve_commit("HEAD"), "change the beta rules in beta_3", 700)
    assert sel.picks[0].path == "pkg/beta.py"


def test_cli_shows_the_history_reason_and_survives_a_shallow_clone(tmp_path: Path) -> None:
    root, _ = _two_commits(tmp_path)
    result = run_gpte("context", "--tokens", "700", "fix the comment", cwd=root)
    assert result.returncode == 0, result.stderr
    assert "changed recently" in result.stdout
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{root}", str(shallow))
    result = run_gpte("context", "--format", "lines", "--tokens", "700", "fix it", cwd=shallow)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip()


def test_a_dependency_bump_is_not_recent_work(tmp_path: Path) -> None:
    root, repo = _two_commits(tmp_path)
    write_files(root, {"requirements.txt": "urllib3==2.1\n"})
    git(root, "add", "-A")
    git(
        root, "-c", "user.name=dependabot[bot]", "-c", "user.email=bot@example.com",
        "commit", "-qm", "Bump urllib3 from 2.0 to 2.1",
    )  # fmt: skip
    head = repo.resolve_commit("HEAD")
    assert all("requirements.txt" not in paths for paths in repo.recent_changes(head, 5).commits)
    listed = json.loads(run_gpte("context", "urllib3 requirements", "--json", cwd=root).stdout)
    for pick in listed["picks"]:
        assert pick["path"] != "requirements.txt" or "changed recently" not in pick["reasons"]


def test_a_new_file_is_all_recent_and_a_sweeping_change_marks_no_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, repo = _two_commits(tmp_path)
    write_files(root, {"pkg/epsilon.py": "def epsilon():\n    return 5\n"})
    commit_all(root, "add epsilon")
    changes = repo.recent_changes(repo.resolve_commit("HEAD"), 5)
    assert changes.commits[0] == ("pkg/epsilon.py",)
    assert changes.lines["pkg/epsilon.py"] == ((1, 2),)  # just written: where work goes on
    assert "pkg/gamma.py" in changes.lines
    monkeypatch.setattr(repo_module, "MAX_RECENT_PATHS", 1)
    sweeping = repo.recent_changes(repo.resolve_commit("HEAD"), 5)
    assert sweeping.commits == changes.commits and sweeping.lines == {}


def test_a_partial_clone_gives_no_history_and_still_selects(tmp_path: Path) -> None:
    root, _ = _two_commits(tmp_path)
    git(root, "config", "uploadpack.allowFilter", "true")
    partial = tmp_path / "partial"
    git(tmp_path, "clone", "-q", "--filter=blob:none", f"file://{root}", str(partial))
    repo = Repository.discover(partial)
    assert repo.recent_changes(repo.resolve_commit("HEAD"), 5).commits == ()
    assert repo.lines_holding(repo.resolve_commit("HEAD"), ["gamma"]) == []
    result = run_gpte("context", "--format", "lines", "--tokens", "700", "gamma rules", cwd=partial)
    assert result.returncode == 0, result.stderr
    assert "pkg/gamma.py" in result.stdout
    release = run_gpte("context", "--tokens", "700", "Release 2.0", cwd=partial)
    assert release.returncode == 0, release.stderr
