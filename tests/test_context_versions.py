"""A release or a version bump points at the line assigning the project's version."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from git_gpte.context.versions import about_own_version, holders
from git_gpte.git import Repository
from tests.conftest import run_gpte
from tests.helpers.context_cli import holds, sent
from tests.helpers.gitrepo import make_repo

# A module saying "version" everywhere, as alembic's migrations do, and bigger than a budget
# sends whole: the word alone would send it first.
VERSIONS = "".join(
    f"def version_step_{i}(version, versions):\n"
    f"    '''Move the version on to the next of the versions.'''\n"
    f"    return versions.next_version(version) + {i}\n\n\n"
    for i in range(60)
)
ABOUT = '"""About the package."""\n\nimport sys\n\n__version__ = "1.4.0"\n'


def _project(tmp_path: Path) -> Path:
    return make_repo(
        tmp_path / "r",
        {
            "pkg/__init__.py": "from .steps import version_step_0\n",
            "pkg/_about.py": ABOUT,
            "pkg/steps.py": VERSIONS,
            "pkg/cli.py": "def main(argv):\n    return len(argv)\n",
            "uv.lock": "".join(f'[[package]]\nversion = "0.{n}.1"\n\n' for n in range(5)),
        },
    )


@pytest.mark.parametrize("request_text", ["Release 1.5.0", "bump version num", "prep for 1.5"])
def test_a_release_sends_the_line_assigning_the_version_first(
    tmp_path: Path, request_text: str
) -> None:
    repo = _project(tmp_path)
    entries = sent(repo, request_text, 300)
    assert entries and entries[0].split(":")[0] == "pkg/_about.py", entries
    assert holds(entries, "pkg/_about.py", 5), entries
    why = run_gpte("context", "--json", "--tokens", "300", request_text, cwd=repo)
    picks = {p["path"]: p for p in json.loads(why.stdout)["picks"]}
    assert "holds the version" in picks["pkg/_about.py"]["reasons"]
    assert "holds the version" not in picks.get("uv.lock", {"reasons": []})["reasons"]


def test_another_programs_version_points_at_no_holder(tmp_path: Path) -> None:
    repo = _project(tmp_path)
    for request_text in ("Bump ruff from 0.8.6 to 0.9.1", "Add support for Python 3.13"):
        why = run_gpte("context", "--json", "--tokens", "2000", request_text, cwd=repo)
        assert why.returncode == 0, why.stderr
        reasons = [r for p in json.loads(why.stdout)["picks"] for r in p["reasons"]]
        assert "holds the version" not in reasons, (request_text, reasons)


@pytest.mark.parametrize(
    ("first_line", "own"),
    [
        ("Version 0.14.0", True),
        ("- 1.15.0", True),
        ("Prep v1.2.1", True),
        ("Bumped v4.2.1", True),
        ("Bump flake8-bugbear from 20.1.3 to 20.1.4", False),
        ("Update pytest requirement from ~=7.1 to ~=8.0", False),
        ("Add support for Python 3.10", False),
        ("compatible with node v0.1.95", False),
        ("Upgrade to TypeScript 3.9", False),
    ],
)
def test_whose_version_a_request_names(first_line: str, own: bool) -> None:
    assert about_own_version(first_line) is own


def test_holders_are_files_assigning_one_or_two_versions_shallowest_first() -> None:
    found = [("docs/conf.py", 12), ("docs/conf.py", 14), ("uv.lock", 3), ("uv.lock", 9),
             ("uv.lock", 15), ("pkg/__init__.py", 4)]  # fmt: skip
    assert holders(found) == {"docs/conf.py": (12, 14), "pkg/__init__.py": (4,)}
    many = [(f"packages/p{n}/package.json", 3) for n in range(12)] + [("package.json", 3)]
    kept = holders(many)
    assert len(kept) == 8 and "package.json" in kept


def test_lines_matching_reads_paths_and_lines_at_a_commit(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "r",
        {"a b/x.py": "one\nVERSION = '2.0'\n", "y.go": 'const Version = "v1.9.1"\n'},
    )
    found = Repository.discover(repo).lines_matching("HEAD", "^(const )?V(ERSION|ersion) = ")
    assert sorted(found) == [("a b/x.py", 2), ("y.go", 1)]
    assert Repository.discover(repo).lines_matching("HEAD", "^nothing here$") == []
