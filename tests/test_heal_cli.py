"""``git gpte heal`` end to end: real scripts really executed, fixes from the scripted LLM server.

Every test goes through the installed CLI; the program runs in a temporary worktree, the fixes
are committed on the heal branch, and the user's checkout stays byte-identical.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.conftest import run_gpte
from tests.helpers.gitrepo import Snapshot, git, make_repo
from tests.helpers.llm_server import LLMServer

BROKEN = """\
def greet(name):
    return "hello " + name.stirp()


print(greet("world"))
"""


def fix(old: str, new: str) -> str:
    return f"""\
The traceback says the name is not defined; it is a typo for the parameter.

```diff
--- main.py
+++ main.py
@@ -1,2 +1,2 @@
 def greet(name):
-    return "hello " + {old}
+    return "hello " + {new}
```
"""


README_ONLY = """\
```diff
--- README.md
+++ README.md
@@ -1 +1,2 @@
 # greeter
+Run it with run.sh.
```
"""


def env_for(server: LLMServer) -> dict[str, str]:
    return {"OPENAI_BASE_URL": server.openai_base_url, "OPENAI_API_KEY": "sk-test"}


@pytest.fixture
def broken(tmp_path: Path) -> Path:
    return make_repo(
        tmp_path / "proj",
        {"main.py": BROKEN, "run.sh": "python3 main.py\n", "README.md": "# greeter\n"},
    )


def heal(
    repo: Path, server: LLMServer, *args: str, timeout: float = 120, process: bool = False
) -> tuple[int, str, str]:
    proc = run_gpte(
        "heal",
        "--yes",
        "--model",
        "gpt-4o-mini",
        *args,
        cwd=repo,
        env=env_for(server),
        timeout=timeout,
        process=process,
    )
    return proc.returncode, proc.stdout, proc.stderr


def branch_commits(repo: Path, base: str, branch: str) -> list[str]:
    return git(repo, "rev-list", "--reverse", f"{base}..{branch}").split()


def test_attribute_error_healed_on_the_second_attempt(broken: Path, llm_server: LLMServer) -> None:
    before = Snapshot.take(broken)
    base = git(broken, "rev-parse", "HEAD").strip()
    # attempt 1 "fixes" the typo into another typo; attempt 2 gets it right
    llm_server.queue(fix("name.stirp()", "name.strpi()"), fix("name.strpi()", "name.strip()"))

    code, out, err = heal(broken, llm_server, process=True)  # end to end, through git

    assert code == 0, err
    branch = f"gpte/heal-{base[:7]}"
    before.assert_unchanged(broken, new_branches=(branch,))
    commits = branch_commits(broken, base, branch)
    assert len(commits) == 2  # one commit per attempt, the second on top of the first
    assert git(broken, "rev-parse", f"{commits[1]}^").strip() == commits[0]
    assert 'return "hello " + name.strpi()' in git(broken, "show", f"{commits[0]}:main.py")
    assert 'return "hello " + name' in git(broken, "show", f"{branch}:main.py")
    message = git(broken, "log", "-1", "--format=%B", commits[0])
    assert message.startswith("heal: make `bash run.sh` succeed (attempt 1)")
    assert (
        "AttributeError: 'str' object has no attribute 'stirp'" in message
        and "Gpte-Run: " in message
    )
    # the program really ran: its output was streamed, and the last run was green
    assert "hello world" in out
    assert "AttributeError" in out
    assert "healed in 2 attempt(s)" in out and branch in out
    assert "attempt 1/5: failed" in err and "attempt 2/5: passed" in err
    # what the model saw: the failure of the base, then the failure of attempt 1
    first = llm_server.requests[0].body["messages"]
    assert "the report of a run that failed" in first[0]["content"]  # the heal preprompt
    assert "AttributeError: 'str' object has no attribute 'stirp'" in first[-1]["content"]
    assert "Exit code: 1" in first[-1]["content"]
    second = llm_server.requests[1].body["messages"][-1]["content"]
    assert "AttributeError: 'str' object has no attribute 'strpi'" in second
    assert "attempt 1 changed main.py" in second
    assert len(llm_server.requests) == 2


def test_json_result_and_run_log(broken: Path, llm_server: LLMServer) -> None:
    llm_server.queue(fix("name.stirp()", "name.strip()"))
    code, out, err = heal(broken, llm_server, "--json", "--prompt", "print hello world")
    assert code == 0, err
    data = json.loads(out)
    assert data["success"] is True and data["attempts"] == 1
    assert [r["exit_code"] for r in data["runs"]] == [1, 0]
    assert data["branch"] == "gpte/heal-print-hello-world" and data["commit"]
    assert data["tokens_in"] > 0 and data["tokens_out"] > 0
    # the spec was sent
    assert "print hello world" in llm_server.requests[0].body["messages"][-1]["content"]
    runs = json.loads(run_gpte("log", "--json", cwd=broken).stdout)
    runs = runs if isinstance(runs, list) else runs["runs"]
    by_command = {r["command"]: r for r in runs}
    assert by_command["heal"]["outcome"] == "ok" and by_command["heal"]["id"] == data["run_id"]
    assert by_command["heal-attempt"]["commit"] == data["commit"]
    assert [r["exit_code"] for r in by_command["heal"]["meta"]["runs"]] == [1, 0]


def test_green_at_once_needs_no_branch(tmp_path: Path, llm_server: LLMServer) -> None:
    repo = make_repo(tmp_path / "ok", {"run.sh": "echo fine\n"})
    before = Snapshot.take(repo)
    code, out, err = heal(repo, llm_server)
    assert code == 0, err
    assert "nothing to heal" in out and "fine" in out
    before.assert_unchanged(repo)
    assert llm_server.requests == []


def test_timeout_is_killed_reported_and_healed(tmp_path: Path, llm_server: LLMServer) -> None:
    repo = make_repo(
        tmp_path / "slow",
        {"run.sh": "echo start\nsleep 30 &\nsleep 30\necho done\n"},
    )
    llm_server.queue(
        "```diff\n--- run.sh\n+++ run.sh\n@@ -1,4 +1,2 @@\n echo start\n-sleep 30 &\n"
        "-sleep 30\n echo done\n```\n"
    )
    started = time.monotonic()
    code, out, err = heal(repo, llm_server, "--timeout", "1")
    assert time.monotonic() - started < 25  # the sleeps (and the background one) were killed
    assert code == 0, err
    assert "timed out after 1.0 s" in err
    assert out.count("start") == 2 and out.count("done") == 1  # killed before "done", then fixed
    sent = llm_server.requests[0].body["messages"][-1]["content"]
    assert "Timed out: yes" in sent and "did not finish within 1.0 seconds" in sent


def test_attempt_without_edits_stops(broken: Path, llm_server: LLMServer) -> None:
    before = Snapshot.take(broken)
    prose = "The code looks right to me; I would not change anything."
    llm_server.queue(prose)  # an answer, not an edit: not asked again, and heal gives up
    code, out, err = heal(broken, llm_server)
    assert code == 8, err
    last = err.strip().splitlines()[-1]
    assert last.startswith("git-gpte: error: not healed: attempt 1 produced no usable edit")
    assert "Traceback" not in err
    before.assert_unchanged(broken)  # no heal branch: nothing was committed
    assert len(llm_server.requests) == 1
    assert "the model answered without an edit: The code looks right" in err
    # the call was paid for: the totals count it, and the attempt's run is linked
    data = json.loads(run_gpte("log", "--json", cwd=broken).stdout)
    attempt = next(run for run in data if run["command"] == "heal-attempt")
    heal_run = next(run for run in data if run["command"] == "heal")
    assert attempt["tokens_in"] > 0 and attempt["meta"]["heal_run"] == heal_run["id"]
    assert f"{attempt['tokens_in']:,} tokens in, {attempt['tokens_out']:,} out" in out


def test_same_failure_twice_stops(broken: Path, llm_server: LLMServer) -> None:
    before = Snapshot.take(broken)
    base = git(broken, "rev-parse", "HEAD").strip()
    # the second is never asked for
    llm_server.queue(README_ONLY, fix("name.stirp()", "name.strip()"))
    code, _out, err = heal(broken, llm_server, "--branch", "fix-it")
    assert code == 8, err
    assert "same failure" in err.strip().splitlines()[-1]
    assert "attempts are on fix-it" in err
    before.assert_unchanged(broken, new_branches=("fix-it",))
    assert len(branch_commits(broken, base, "fix-it")) == 1
    assert len(llm_server.requests) == 1
    assert llm_server.pending == 1


def test_attempts_exhausted_exit_8(broken: Path, llm_server: LLMServer) -> None:
    base = git(broken, "rev-parse", "HEAD").strip()
    llm_server.queue(fix("name.stirp()", "name.strpi()"))
    code, _out, err = heal(broken, llm_server, "--attempts", "1")
    assert code == 8, err
    assert "still failing after 1 attempt(s)" in err
    assert len(branch_commits(broken, base, f"gpte/heal-{base[:7]}")) == 1


def test_refused_without_yes_on_a_non_terminal(broken: Path, llm_server: LLMServer) -> None:
    before = Snapshot.take(broken)
    proc = run_gpte("heal", "--model", "gpt-4o-mini", cwd=broken, env=env_for(llm_server))
    assert proc.returncode == 2
    assert "refusing to run code without confirmation" in proc.stderr
    before.assert_unchanged(broken)
    assert llm_server.requests == []


def test_existing_branch_is_refused_before_running(broken: Path, llm_server: LLMServer) -> None:
    git(broken, "branch", "taken")
    code, out, err = heal(broken, llm_server, "--branch", "taken")
    assert code == 3 and "already exists" in err
    assert out == ""  # nothing ran


def test_the_program_sees_no_secrets(tmp_path: Path, llm_server: LLMServer) -> None:
    repo = make_repo(tmp_path / "env", {"run.sh": "env | sort\n"})
    proc = run_gpte(
        "heal",
        "--yes",
        "--model",
        "gpt-4o-mini",
        cwd=repo,
        env={**env_for(llm_server), "GITHUB_TOKEN": "ghs_secret", "MY_SETTING": "visible"},
    )
    assert proc.returncode == 0, proc.stderr
    assert "MY_SETTING=visible" in proc.stdout  # the environment was printed
    assert "sk-test" not in proc.stdout and "ghs_secret" not in proc.stdout
    assert "OPENAI_API_KEY" not in proc.stdout and "GITHUB_TOKEN" not in proc.stdout


def test_advance_branch_is_a_compare_and_swap(broken: Path) -> None:
    from git_gpte.errors import BranchExists
    from git_gpte.git import Repository, advance_branch

    first = git(broken, "rev-parse", "HEAD").strip()
    git(broken, "commit", "-q", "--allow-empty", "-m", "second")
    second = git(broken, "rev-parse", "HEAD").strip()
    git(broken, "branch", "heal", first)
    repo = Repository.discover(broken)
    with pytest.raises(BranchExists, match="changed meanwhile"):
        advance_branch(repo, "heal", second, expected_old=second)  # it is at `first`
    assert git(broken, "rev-parse", "heal").strip() == first
    advance_branch(repo, "heal", second, expected_old=first)
    assert git(broken, "rev-parse", "heal").strip() == second


def test_attempts_zero_only_runs(broken: Path, llm_server: LLMServer) -> None:
    code, _out, err = heal(broken, llm_server, "--attempts", "0")
    assert code == 8 and "no fix attempted" in err
    assert llm_server.requests == []


def test_heal_sends_the_lines_the_failing_output_points_at(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    from tests.helpers.bigrepo import big_project, line_of

    files = big_project()
    violin = str(files["shop/violin.py"])
    failing = line_of(violin, "violin_total = value * factor + 20")
    files["main.py"] = "from shop import violin\n\nprint(violin.violin_step_20('x'))\n"
    files["run.sh"] = "python3 main.py\n"
    repo = make_repo(tmp_path / "shop", files)
    fixed = """\
```diff
--- main.py
+++ main.py
@@ -3 +3 @@
-print(violin.violin_step_20('x'))
+print(violin.violin_step_20(2))
```
"""
    llm_server.queue(fixed)
    proc = run_gpte(
        "heal",
        "--yes",
        "--model",
        "gpt-4o-mini",
        cwd=repo,
        env={**env_for(llm_server), "GPTE_CONTEXT_TOKENS": "700"},
    )
    assert proc.returncode == 0, proc.stderr
    sent = "\n".join(m["content"] for m in llm_server.requests[0].body["messages"][1:])
    assert f'shop/violin.py", line {failing}' in sent  # the traceback, in the request
    assert "File: shop/violin.py (excerpt: lines" in sent
    assert f"{failing}     violin_total = value * factor + 20" in sent  # its lines, shown
    last = line_of(violin, "def violin_step_23(")
    assert f"{last} def violin_step_23(" not in sent  # not the whole file
