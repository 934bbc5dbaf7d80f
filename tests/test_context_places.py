"""A traceback pasted into a request (an issue's) points at the lines it names."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import run_gpte
from tests.helpers.context_cli import holds, sent, steps_module
from tests.helpers.gitrepo import make_repo


def test_a_traceback_in_the_request_sends_the_lines_it_names(tmp_path: Path) -> None:
    files = {f"pkg/mod{n}.py": steps_module(f"mod{n}", 30) for n in range(4)}
    repo = make_repo(tmp_path / "r", files)
    line = files["pkg/mod2.py"].splitlines().index("def mod2_step23(items, limit):") + 3
    request = (
        "Crash when a batch is empty\n\n"
        "Traceback (most recent call last):\n"
        f'  File "/home/me/venv/lib/python3.12/site-packages/pkg/mod2.py", line {line}, in x\n'
        "ZeroDivisionError: division by zero\n"
    )
    entries = sent(repo, request, 400)
    assert holds(entries, "pkg/mod2.py", line), entries
    why = run_gpte("context", "--json", "--tokens", "400", request, cwd=repo)
    picks = {p["path"]: p for p in json.loads(why.stdout)["picks"]}
    reasons = picks["pkg/mod2.py"]["reasons"]
    assert any(f"holds line {line}, named by the request" in reason for reason in reasons)


def test_a_line_number_of_an_untracked_file_changes_nothing(tmp_path: Path) -> None:
    files = {f"pkg/mod{n}.py": steps_module(f"mod{n}", 3) for n in range(2)}
    repo = make_repo(tmp_path / "r", files)
    plain = run_gpte("context", "--json", "--tokens", "4000", "Crash on empty batch", cwd=repo)
    request = 'Crash on empty batch\n\n  File "/usr/lib/python3.12/json/decoder.py", line 337'
    named = run_gpte("context", "--json", "--tokens", "4000", request, cwd=repo)
    assert plain.returncode == named.returncode == 0, named.stderr
    assert json.loads(plain.stdout)["picks"] == json.loads(named.stdout)["picks"]


def test_with_the_places_weighed_nothing_the_ranking_does_not_read_them(tmp_path: Path) -> None:
    # heal and a review pin the places they name and rank as before (pipeline/plan.py)
    from dataclasses import replace

    from git_gpte.context import select
    from git_gpte.context.weights import WEIGHTS
    from git_gpte.git import Repository

    files = {f"pkg/mod{n}.py": steps_module(f"mod{n}", 30) for n in range(4)}
    repo = make_repo(tmp_path / "r", files)
    request = 'Crash when a batch is empty\n\n  File "pkg/mod2.py", line 70, in mod2_step23\n'
    quiet = replace(WEIGHTS, place=0.0, chunk_place=0.0)
    for weights, expected in ((WEIGHTS, True), (quiet, False)):
        picks = select(Repository.discover(repo), "HEAD", request, 400, weights=weights).picks
        reasons = [reason for pick in picks for reason in pick.reasons]
        assert any("named by the request" in reason for reason in reasons) is expected, reasons
        assert ("named at a line" in reasons) is expected
