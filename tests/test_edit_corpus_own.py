"""The engine's own corpus (tests/fixtures/edit_corpus): each case through the engine and the CLI.

Always runs, unlike the shared corpora: a fresh clone tests the engine on LLM-style replies too.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from git_gpte.edit import apply_reply, parse_reply
from tests.conftest import run_gpte
from tests.helpers.gitrepo import make_repo

CORPUS = Path(__file__).parent / "fixtures" / "edit_corpus"
CASES = sorted(p.name for p in CORPUS.iterdir() if (p / "case.json").exists())


def tree(root: Path) -> dict[str, bytes]:
    if not root.exists():
        return {}
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


def test_the_corpus_is_there() -> None:
    assert len(CASES) >= 12


@pytest.mark.parametrize("name", CASES)
def test_engine(name: str) -> None:
    case = CORPUS / name
    meta = json.loads((case / "case.json").read_text())
    before = {path: data.decode("utf-8") for path, data in tree(case / "before").items()}
    result = apply_reply(
        before, parse_reply((case / "reply.md").read_text()), known_paths=list(before)
    )
    assert [r.status for r in result.reports] == meta["statuses"], [
        r.one_line() for r in result.reports
    ]
    for report in result.refused:
        assert report.detail  # every refusal says why
    final = dict(before)
    for path, text in result.files.items():
        if text is None:
            final.pop(path, None)
        else:
            final[path] = text
    assert {p: t.encode("utf-8") for p, t in final.items()} == tree(case / "after")


@pytest.mark.parametrize("name", CASES)
def test_cli(tmp_path: Path, name: str) -> None:
    case = CORPUS / name
    meta = json.loads((case / "case.json").read_text())
    repo = make_repo(tmp_path / "repo", dict(tree(case / "before")))  # type: ignore[arg-type]
    proc = run_gpte("apply", str(case / "reply.md"), cwd=repo)
    assert "Traceback" not in proc.stderr
    assert proc.returncode == meta["exit"], proc.stdout + proc.stderr
    assert tree(repo) == tree(case / "after")
