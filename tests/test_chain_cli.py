"""Continuing a branch through the CLI: ``improve --on BRANCH`` (and ``--on -``), ``heal --on``,
``git gpte log --branch``; a branch that moved meanwhile and a branch git-gpte did not make are
refused. Real repositories, the installed CLI, the scripted LLM server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_gpte
from tests.helpers.gitrepo import Snapshot, git, make_repo
from tests.helpers.llm_server import LLMServer

APP = """\
def greet(name):
    return "hello " + name


print(greet("world"))
"""


def diff(old: str, new: str, line: int = 2) -> str:
    return f"""\
```diff
--- app.py
+++ app.py
@@ -{line},1 +{line},1 @@
-{old}
+{new}
```
"""


CAPITALISE = diff('    return "hello " + name', '    return "Hello, " + name')
EXCLAIM = diff('    return "Hello, " + name', '    return "Hello, " + name + "!"')
EVERYONE = diff('print(greet("world"))', 'print(greet("everyone"))', line=5)


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "proj", {"app.py": APP, "run.sh": "python3 app.py\n"})


def gpte(repo: Path, server: LLMServer, *args: str) -> tuple[int, str, str]:
    env = {"OPENAI_BASE_URL": server.openai_base_url, "OPENAI_API_KEY": "sk-test"}
    proc = run_gpte(*args, cwd=repo, env={**env, "MODEL_NAME": "gpt-4o-mini"})
    return proc.returncode, proc.stdout, proc.stderr


def user_message(server: LLMServer, index: int) -> str:
    return str(server.requests[index].body["messages"][-1]["content"])


def test_continue_a_branch_twice_then_see_its_chain(proj: Path, llm_server: LLMServer) -> None:
    before = Snapshot.take(proj)
    main = git(proj, "rev-parse", "HEAD").strip()
    llm_server.queue(CAPITALISE, EXCLAIM, EVERYONE)

    code, out, err = gpte(proj, llm_server, "improve", "capitalise the greeting")
    assert code == 0, err
    first = git(proj, "rev-parse", "gpte/capitalise-greeting").strip()

    code, out, err = gpte(
        proj, llm_server, "improve", "--on", "gpte/capitalise-greeting", "also add an exclamation"
    )
    assert code == 0, err
    assert "branch gpte/capitalise-greeting" in out and "git gpte log --branch" in out
    second = git(proj, "rev-parse", "gpte/capitalise-greeting").strip()
    assert git(proj, "rev-parse", f"{second}^").strip() == first  # added on top, same branch
    # the model saw the branch as it is now, the earlier request and what its commit changed
    told = user_message(llm_server, 1)
    assert "continuing work on the branch gpte/capitalise-greeting" in told
    assert "Request 1:\n    capitalise the greeting" in told
    assert f"Commit {first[:12]} capitalise the greeting (app.py)" in told
    assert "also add an exclamation" in told
    assert 'return "Hello, " + name' in told  # the files at the tip, not at main

    # --on -: the branch of the latest run
    code, out, err = gpte(proj, llm_server, "improve", "--on", "-", "and greet everyone")
    assert code == 0, err
    third = git(proj, "rev-parse", "gpte/capitalise-greeting").strip()
    assert git(proj, "rev-list", "--count", f"{main}..{third}").strip() == "3"
    told = user_message(llm_server, 2)
    assert "Request 1:" in told and "Request 2:\n    also add an exclamation" in told
    shown = git(proj, "show", f"{third}:app.py")
    assert 'return "Hello, " + name + "!"' in shown and 'greet("everyone")' in shown
    # the commit message holds the new request only; the run log keeps each request on its own
    assert git(proj, "log", "-1", "--format=%s", third).strip() == "and greet everyone"

    code, out, err = gpte(proj, llm_server, "log", "--branch", "gpte/capitalise-greeting")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("chain of gpte/capitalise-greeting: 3 run(s), tip " + third[:12])
    assert [line.split()[1] for line in lines[1:4]] == [first[:12], second[:12], third[:12]]
    assert lines[4].startswith("total: 3 run(s), ") and "tokens in" in lines[4]
    assert "improve: capitalise the greeting" in lines[1]
    assert "improve: and greet everyone" in lines[3]
    rows = json.loads(gpte(proj, llm_server, "log", "--branch", "-", "--json")[1])
    assert [r["commit"] for r in rows] == [first, second, third]
    assert all(r["on_branch"] for r in rows)
    # the checkout was never touched; only the one branch was added
    before.assert_unchanged(proj, new_branches=("gpte/capitalise-greeting",))


def test_a_branch_that_moves_meanwhile_is_refused(proj: Path, llm_server: LLMServer) -> None:
    llm_server.queue(CAPITALISE)
    assert gpte(proj, llm_server, "improve", "capitalise the greeting")[0] == 0
    branch = "gpte/capitalise-greeting"
    tip = git(proj, "rev-parse", branch).strip()
    # someone commits to the branch while the model is answering
    tree = git(proj, "rev-parse", f"{branch}^{{tree}}").strip()
    theirs = git(proj, "commit-tree", tree, "-p", tip, "-m", "their own work").strip()

    def someone_commits() -> None:
        git(proj, "update-ref", f"refs/heads/{branch}", theirs, tip)

    llm_server.on_request = someone_commits
    llm_server.queue(EXCLAIM)

    code, out, err = gpte(proj, llm_server, "improve", "--on", branch, "also exclaim")

    assert code == 3, out + err
    assert f"branch '{branch}' is no longer at {tip[:12]}; it was changed meanwhile" in err
    assert "nothing was overwritten" in err and "Traceback" not in err
    assert git(proj, "rev-parse", branch).strip() == theirs  # their commit stands
    runs = json.loads(gpte(proj, llm_server, "log", "--json")[1])
    assert runs[0]["outcome"] == "error" and "changed meanwhile" in runs[0]["detail"]


def test_a_branch_git_gpte_did_not_make_is_refused_unless_forced(
    proj: Path, llm_server: LLMServer
) -> None:
    git(proj, "branch", "feature")
    llm_server.queue(CAPITALISE)

    code, _, err = gpte(proj, llm_server, "improve", "--on", "feature", "capitalise")

    assert code == 3 and llm_server.requests == []
    assert "branch 'feature' was not made by git-gpte" in err and "--force-branch" in err

    code, _, err = gpte(
        proj, llm_server, "improve", "--on", "feature", "--force-branch", "capitalise"
    )
    assert code == 0, err
    assert 'return "Hello, " + name' in git(proj, "show", "feature:app.py")
    assert git(proj, "rev-parse", "feature^").strip() == git(proj, "rev-parse", "main").strip()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--on", "nope", "x"), "no branch 'nope' to continue"),
        (("--on", "main", "x"), "branch 'main' is checked out"),
        (("--on", "-", "x"), "no run in this repository has made a branch yet"),
        (("--on", "main", "--branch", "b", "x"), "--on and --branch cannot be combined"),
        (("--force-branch", "x"), "--force-branch only goes with --on"),
    ],
)
def test_bad_continuations_are_one_clear_line(
    proj: Path, llm_server: LLMServer, args: tuple[str, ...], message: str
) -> None:
    code, out, err = gpte(proj, llm_server, "improve", *args)
    assert code in (2, 3), out + err
    assert message in err and len(err.strip().splitlines()) <= 2
    assert llm_server.requests == []


BROKEN = "print(greet(None))"  # a TypeError the heal run meets (no static check sees it)


def test_heal_on_a_branch_adds_its_fix_to_that_branch(proj: Path, llm_server: LLMServer) -> None:
    # improve "breaks" the script (a typo), heal --on fixes it in place
    llm_server.queue(diff('print(greet("world"))', BROKEN, line=5))
    assert gpte(proj, llm_server, "improve", "print the greeting")[0] == 0
    branch = "gpte/print-greeting"
    broken = git(proj, "rev-parse", branch).strip()
    llm_server.queue(diff(BROKEN, 'print(greet("world"))', line=5))

    code, out, err = gpte(proj, llm_server, "heal", "--yes", "--on", "-")

    assert code == 0, out + err
    fixed = git(proj, "rev-parse", branch).strip()
    assert git(proj, "rev-parse", f"{fixed}^").strip() == broken  # the fix is on the same branch
    assert "hello world" in out
    # the model was told the branch's request as the specification
    assert "print the greeting" in user_message(llm_server, 1)
    chain = gpte(proj, llm_server, "log", "--branch", branch)[1]
    assert "improve: print the greeting" in chain and "heal" in chain
