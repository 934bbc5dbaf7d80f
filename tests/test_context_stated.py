"""A request of a kind that changes lines it does not quote (a release's version, the Python
versions supported, the copyright year) points at the lines stating them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from git_gpte.context.stated import about_copyright, about_own_version, about_pythons, stated_lines
from git_gpte.git import Repository
from tests.conftest import run_gpte
from tests.helpers.context_cli import holds, sent
from tests.helpers.gitrepo import commit_all, make_repo, write_files

# A module saying "version" everywhere, as alembic's migrations do, and bigger than a budget
# sends whole: the word alone would send it first.
VERSIONS = "".join(
    f"def version_step_{i}(version, versions):\n"
    f"    '''Move the version on to the next of the versions.'''\n"
    f"    return versions.next_version(version) + {i}\n\n\n"
    for i in range(60)
)
SETUP = (
    "from setuptools import setup\n\nsetup(\n    name='pkg',\n    python_requires='>=3.8',\n"
    "    classifiers=[\n        'Programming Language :: Python :: 3.8',\n"
    "        'Programming Language :: Python :: 3.9',\n    ],\n)\n"
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
            "setup.py": SETUP,
            "docs/conf.py": 'project = "pkg"\ncopyright = "2019-2024, The pkg authors"\n',
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


def test_a_release_sends_the_docs_code_stating_the_last_version(tmp_path: Path) -> None:
    # Seen on alembic: "- 1.15.0" changed Sphinx's ``release = "1.14.1"`` in docs/build/conf.py
    # (the package's __version__ said 1.15.0 already); counted as a docs tree's code, three
    # tenths, it came after every excerpt of the modules saying "version" and was not sent.
    repo = make_repo(
        tmp_path / "r",
        {
            "pkg/__init__.py": '"""The package."""\n\n__version__ = "1.5.0"\n',
            "pkg/steps.py": VERSIONS,
            "docs/conf.py": 'project = "pkg"\n'
            + "".join(f'html_option_{n} = "the theme setting {n}"\n' for n in range(120))
            + 'release = "1.4.0"\n'
            + "".join(f'latex_option_{n} = "the paper setting {n}"\n' for n in range(120)),
        },
    )
    entries = sent(repo, "Version 1.5.0", 1000)
    assert holds(entries, "docs/conf.py", 122), entries


def test_another_programs_version_points_at_no_holder(tmp_path: Path) -> None:
    repo = _project(tmp_path)
    for request_text in ("Bump ruff from 0.8.6 to 0.9.1", "Add support for Python 3.13"):
        why = run_gpte("context", "--json", "--tokens", "2000", request_text, cwd=repo)
        assert why.returncode == 0, why.stderr
        reasons = [r for p in json.loads(why.stdout)["picks"] for r in p["reasons"]]
        assert "holds the version" not in reasons, (request_text, reasons)


def test_a_change_of_the_pythons_supported_sends_the_classifiers(tmp_path: Path) -> None:
    repo = _project(tmp_path)
    entries = sent(repo, "Add support for Python 3.10", 300)
    assert entries and entries[0].split(":")[0] == "setup.py", entries
    assert holds(entries, "setup.py", 5) and holds(entries, "setup.py", 8), entries


def test_a_new_year_sends_the_copyright_line(tmp_path: Path) -> None:
    repo = _project(tmp_path)
    entries = sent(repo, "Happy new year", 300)
    assert holds(entries, "docs/conf.py", 2), entries
    why = run_gpte("context", "--json", "--tokens", "300", "Update copyright year", cwd=repo)
    picks = {p["path"]: p for p in json.loads(why.stdout)["picks"]}
    assert "states the copyright" in picks["docs/conf.py"]["reasons"]


def test_dropping_a_python_sends_the_code_checking_its_version(tmp_path: Path) -> None:
    """The compatibility code in the source, not the tests' skips, and not only where the
    releases were made (they changed setup.py and pkg/compat.py)."""
    steps = "".join(f"def step_{i}(data):\n    return data[{i}:]\n\n\n" for i in range(40))
    repo = make_repo(
        tmp_path / "r",
        {
            "setup.py": SETUP,
            "pkg/steps.py": "import sys\n\n\n" + steps
            + "if sys.version_info < (3, 8):\n    from backports import cached_property\n"
            + "else:\n    from functools import cached_property\n\n\n" + steps,
            "pkg/compat.py": "import sys\n\nPY_3_8_PLUS = sys.version_info >= (3, 8)\n",
            "tests/test_steps.py": "import sys\n\nimport pytest\n\n\n"
            "@pytest.mark.skipif(sys.version_info < (3, 8), reason='old')\n"
            "def test_step():\n    assert True\n",
        },
    )  # fmt: skip
    write_files(
        repo,
        {
            "setup.py": SETUP.replace("'pkg'", "'pkg', version='1.1'"),
            "pkg/compat.py": "import sys\n\nPY_3_8_PLUS = sys.version_info >= (3, 8)\nV = 1.1\n",
        },
    )
    commit_all(repo, "Release 1.1")
    entries = sent(repo, "Drop support for Python 3.7", 500)
    line = 3 + 40 * 4 + 1
    assert holds(entries, "pkg/steps.py", line) and holds(entries, "pkg/compat.py", 3), entries
    why = run_gpte("context", "--json", "--tokens", "2000", "Drop Python 3.7", cwd=repo)
    reasons = {p["path"]: p["reasons"] for p in json.loads(why.stdout)["picks"]}
    assert "checks the Python version" in reasons["pkg/compat.py"]
    assert "checks the Python version" in reasons["pkg/steps.py"]
    assert "checks the Python version" not in reasons.get("tests/test_steps.py", [])
    # Not for a request leaving the Pythons supported alone.
    why = run_gpte("context", "--json", "--tokens", "2000", "Speed up step_3", cwd=repo)
    reasons = {p["path"]: p["reasons"] for p in json.loads(why.stdout)["picks"]}
    assert all("checks the Python version" not in r for r in reasons.values()), reasons


@pytest.mark.parametrize(
    ("first_line", "pythons", "year"),
    [
        ("Drop support for Python 3.5", True, False),
        ("Another python 3 fix", False, False),
        ("Remove compat code for Python < 3.7", True, False),
        ("Require py312", True, False),
        ("Fix the python parser", False, False),
        ("Update copyright year", False, True),
        ("- happy new year", False, True),
        ("Add a year column", False, False),
    ],
)
def test_which_requests_ask_for_which_lines(first_line: str, pythons: bool, year: bool) -> None:
    assert about_pythons(first_line) is pythons
    assert about_copyright(first_line) is year


@pytest.mark.parametrize(
    ("first_line", "own"),
    [
        ("Version 0.14.0", True),
        ("- 1.15.0", True),
        ("Prep v1.2.1", True),
        ("Bumped v4.2.1", True),
        ("Fix the version check", False),  # no version, no release
        ("Bump flake8-bugbear from 20.1.3 to 20.1.4", False),
        ("Update pytest requirement from ~=7.1 to ~=8.0", False),
        ("Add support for Python 3.10", False),
        ("compatible with node v0.1.95", False),
        ("Upgrade to TypeScript 3.9", False),
    ],
)
def test_whose_version_a_request_names(first_line: str, own: bool) -> None:
    assert about_own_version(first_line) is own


def test_stating_files_state_few_lines_shallowest_first() -> None:
    found = [("docs/conf.py", 12), ("docs/conf.py", 14), ("uv.lock", 3), ("uv.lock", 9),
             ("uv.lock", 15), ("pkg/__init__.py", 4)]  # fmt: skip
    assert stated_lines(found, 2) == {"docs/conf.py": (12, 14), "pkg/__init__.py": (4,)}
    many = [(f"packages/p{n}/package.json", 3) for n in range(12)] + [("package.json", 3)]
    kept = stated_lines(many, 2)
    assert len(kept) == 8 and "package.json" in kept
    # Where earlier releases were made: only those, when any states the kind (flask's
    # examples each have a setup.py with a version of their own).
    examples = [
        ("examples/a/setup.py", 11),
        ("examples/b/setup.py", 11),
        ("src/pkg/__init__.py", 60),
    ]
    assert stated_lines(examples, 2, {"src/pkg/__init__.py", "CHANGES.rst"}) == {
        "src/pkg/__init__.py": (60,)
    }
    assert len(stated_lines(examples, 2, {"CHANGES.rst"})) == 3


def test_lines_holding_reads_paths_lines_and_text_at_a_commit(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "r",
        {
            "a b/x.py": "one\nVERSION = '2.0'\n",
            "y.go": 'const Version = "v1.9.1"\n',
            "odd\nname.py": "VERSION = '3.0'\n",
        },
    )
    found = Repository.discover(repo).lines_holding("HEAD", ["VERSION", "Version"])
    assert sorted(found) == [
        ("a b/x.py", 2, "VERSION = '2.0'"),
        ("odd\nname.py", 1, "VERSION = '3.0'"),
        ("y.go", 1, 'const Version = "v1.9.1"'),
    ]
    assert Repository.discover(repo).lines_holding("HEAD", ["nothing here"]) == []
    # git takes a file for text by its first 8,000 bytes: a NUL further on comes inside a line.
    logo = b"%PDF-1.5\n" + b"<< /Creator (a tool) >>\n" * 400 + b"/Version \x00\xf7 9\rend\n"
    (repo / "logo.ai").write_bytes(logo)
    commit_all(repo, "Add the logo")
    found = Repository.discover(repo).lines_holding("HEAD", ["Version"])
    assert ("y.go", 1, 'const Version = "v1.9.1"') in found
    assert [(p, n) for p, n, _ in found if p == "logo.ai"] == [("logo.ai", 402)]
    why = run_gpte("context", "--json", "--tokens", "2000", "Release 3.1", cwd=repo)
    assert why.returncode == 0, why.stderr
    assert Repository.discover(repo).lines_holding("HEAD", []) == []


def test_where_earlier_releases_were_made_is_the_projects_version(tmp_path: Path) -> None:
    example = 'from setuptools import setup\n\nsetup(name="demo", version="1.0.0")\n'
    repo = make_repo(
        tmp_path / "r",
        {
            "pkg/__init__.py": '__version__ = "1.0"\n',
            "examples/one/setup.py": example,
            "examples/two/setup.py": example,
        },
    )
    releases = {f"1.{n}": f'__version__ = "1.{n}"\n' for n in (1, 2)}
    assert _stating_after(repo, releases, "Release 1.3") == ["pkg/__init__.py"]


def _stating_after(repo: Path, releases: dict[str, str], request: str) -> list[str]:
    """The files ``context`` says hold the version for ``request``, after a commit per release
    writing ``pkg/__init__.py`` (``releases``: version -> its text) and one of other work."""
    for release, text in releases.items():
        write_files(repo, {"pkg/__init__.py": text})
        commit_all(repo, f"Release {release}")
    write_files(repo, {"pkg/cli.py": "def main():\n    return 0\n"})
    commit_all(repo, "Add the command line")
    why = run_gpte("context", "--json", "--tokens", "4000", request, cwd=repo)
    assert why.returncode == 0, why.stderr
    picks = json.loads(why.stdout)["picks"]
    return [p["path"] for p in picks if "holds the version" in p["reasons"]]


def test_a_version_stated_as_numbers_is_the_projects_not_the_examples(tmp_path: Path) -> None:
    # Seen on pyparsing: its version is ``version_info(3, 1, 1, "final", 1)``; only the
    # examples' own ``__version__ = "1.0"`` looked like a version, and "Prep for release"
    # lifted them.
    def init(minor: int) -> str:
        return (
            "from typing import NamedTuple\n\n\nclass version_info(NamedTuple):\n"
            "    major: int\n    minor: int\n\n\n"
            f"__version_info__ = version_info(3, {minor})\n"
        )

    repo = make_repo(
        tmp_path / "r",
        {
            "pkg/__init__.py": init(0),
            "examples/parse_demo.py": '__version__ = "1.0"\n\nprint("demo")\n',
            "examples/tree_demo.py": '__version__ = "1.2"\n\nprint("tree")\n',
        },
    )
    releases = {f"3.{minor}": init(minor) for minor in (1, 2)}
    assert _stating_after(repo, releases, "Prep for release") == ["pkg/__init__.py"]
