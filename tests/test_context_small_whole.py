"""Small files sent whole before any excerpt: not a weak file that is not source (pack.py's
NON_SOURCE_MIN_RATIO).

In a two-file repository a LICENSE that shares one word with the request ranks second. Being
small, it went whole ahead of the excerpts of the module the request is about.
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run_gpte
from tests.helpers.gitrepo import make_repo

MODULE = "".join(
    f"def scale_{n}(values, factor):\n"
    f'    """Scale the values by the factor, step {n}."""\n'
    "    result = []\n"
    "    for value in values:\n"
    f"        result.append(value * factor + {n})\n"
    "    return result\n\n\n"
    for n in range(150)
) + ("def total(values):\n    return sum(values)\n")
LICENSE = (
    "Permission is hereby granted, free of charge, to any person obtaining a copy of this "
    "software, to deal in the Software without restriction, subject to the following "
    "conditions. THE SOFTWARE IS PROVIDED AS IS, WITHOUT WARRANTY OF ANY KIND.\n"
) * 6


def _sent(repo: Path, request: str) -> list[str]:
    done = run_gpte("context", "--format", "lines", "--tokens", "4000", request, cwd=repo)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_a_weak_license_does_not_go_whole_before_the_modules_excerpts(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"stats.py": MODULE, "LICENSE": LICENSE})
    sent = _sent(repo, "Add a mean function beside total, provided as a method")
    assert "LICENSE" not in sent
    assert sent[0].startswith("stats.py:")
    assert any(line.startswith("stats.py:") and line.endswith("-1202") for line in sent)


def test_a_license_the_request_is_about_is_still_sent(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"stats.py": MODULE, "LICENSE": LICENSE})
    assert "LICENSE" in _sent(repo, "Update the license: the software is provided as is")
