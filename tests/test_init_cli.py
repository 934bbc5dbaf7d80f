"""``git gpte init`` end to end: generate, run.sh, commit — and ``init && heal`` against the local
LLM server. Through the installed CLI; ``--clarify`` through a real pseudo-terminal."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import run_gpte
from tests.helpers.gitrepo import Snapshot, git, make_repo, write_files
from tests.helpers.llm_server import LLMServer
from tests.helpers.pty_run import read_until

GENERATE = '''\
Core pieces: `greet` (app/greet.py) builds the greeting; main.py prints it.

main.py
```python
from app.greet import greet

print(greet("world"))
```

app/__init__.py
```python
"""The greeter package."""
```

app/greet.py
```python
def greet(name):
    """The greeting for name."""
    return "hello " + {name}
```
'''

RUN_SH = "Here is the script:\n\n```bash\npython3 main.py\n```\n"
SUDO_RUN_SH = "```bash\nsudo apt-get install -y python3\npython3 main.py\n```\n"


def generated(name: str = "name") -> str:
    return GENERATE.replace("{name}", name)


def env_for(server: LLMServer) -> dict[str, str]:
    return {"OPENAI_BASE_URL": server.openai_base_url, "OPENAI_API_KEY": "sk-test"}


def init(
    repo: Path, server: LLMServer, *args: str, process: bool = False
) -> subprocess.CompletedProcess[str]:
    return run_gpte(
        "init", "--model", "gpt-4o-mini", *args, cwd=repo, env=env_for(server), process=process
    )


def tree(repo: Path, rev: str) -> dict[str, str]:
    out = git(repo, "ls-tree", "-r", rev)
    return {line.split("\t", 1)[1]: line.split()[0] for line in out.splitlines()}


def test_init_in_a_repository_with_history(repo: Path, llm_server: LLMServer) -> None:
    write_files(repo, {"README.md": "# demo (uncommitted)\n", "scratch.txt": "mine\n"})
    before = Snapshot.take(repo)
    head = git(repo, "rev-parse", "HEAD").strip()
    llm_server.queue(generated(), RUN_SH)

    proc = init(repo, llm_server, "a greeter that prints hello world", process=True)  # end to end

    assert proc.returncode == 0, proc.stderr
    branch = "gpte/init-greeter-that-prints-hello-world"
    before.assert_unchanged(repo, new_branches=(branch,))
    assert git(repo, "rev-parse", f"{branch}^").strip() == head  # on top of HEAD
    files = tree(repo, branch)
    assert files["run.sh"] == "100755" and files["main.py"] == "100644"
    assert {"app/greet.py", "app/__init__.py", "README.md", "src/app.py"} <= set(files)
    assert git(repo, "show", f"{branch}:run.sh") == "#!/usr/bin/env bash\npython3 main.py\n"
    message = git(repo, "log", "-1", "--format=%B", branch)
    assert message.startswith("a greeter that prints hello world\n")
    assert "Gpte-Run: " in message and "Gpte-Model: gpt-4o-mini" in message
    assert f"branch {branch}" in proc.stdout and "run.sh" in proc.stdout
    # the files are on the new branch, not on HEAD: the hint runs that branch
    assert f"then:  git gpte run --base {branch}   (or: git gpte heal --base {branch})" in (
        proc.stdout
    )
    # generate: roadmap + generate + philosophy; entrypoint: the generated files
    system = llm_server.requests[0].body["messages"][0]["content"]
    assert "experienced software engineer" in system and "Write the whole program" in system
    sent = llm_server.requests[1].body["messages"][-1]["content"]
    assert 'return "hello " + name' in sent and "Write run.sh" in sent
    # the program it made really runs
    ran = run_gpte("run", "--yes", "--base", branch, cwd=repo)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == "hello world\n"


def test_init_into_an_empty_repository(tmp_path: Path, llm_server: LLMServer) -> None:
    repo = make_repo(tmp_path / "new")
    write_files(repo, {"prompt": "a greeter that prints hello world\n"})  # gpt-engineer style
    before = Snapshot.take(repo)
    assert before.head == "" and before.branch == "refs/heads/main"
    llm_server.queue(generated(), RUN_SH)

    proc = init(repo, llm_server)

    assert proc.returncode == 0, proc.stderr
    after = Snapshot.take(repo)
    # the unborn branch got its first commit, checked out as git clone would: the user's next
    # `git status` shows only their own untracked prompt file, not staged deletions
    assert after.branch == "refs/heads/main"
    assert set(after.refs) == {"refs/heads/main"}
    assert git(repo, "rev-list", "--count", "main").strip() == "1"
    assert git(repo, "rev-list", "--parents", "-n1", "main").split()[1:] == []  # a root commit
    generated_tree = tree(repo, "main")
    assert set(generated_tree) == {"main.py", "app/__init__.py", "app/greet.py", "run.sh"}
    assert after.status == "?? prompt\n"
    committed = {path: git(repo, "show", f"main:{path}").encode() for path in generated_tree}
    assert after.worktree == {**before.worktree, **committed}
    assert os.access(repo / "run.sh", os.X_OK)
    assert "first commit" in proc.stdout and "checked out" in proc.stdout
    assert "a greeter" in llm_server.requests[0].body["messages"][-1]["content"]


@pytest.mark.parametrize("in_the_way", ["staged", "untracked"])
def test_first_commit_is_not_checked_out_over_the_users_files(
    tmp_path: Path, llm_server: LLMServer, in_the_way: str
) -> None:
    repo = make_repo(tmp_path / "new")
    if in_the_way == "staged":  # something staged: the index is the user's, leave it alone
        write_files(repo, {"notes.txt": "mine\n"})
        git(repo, "add", "notes.txt")
    else:  # an untracked file where a generated one would go: never overwritten
        write_files(repo, {"main.py": "# my own main\n"})
    before = Snapshot.take(repo)
    llm_server.queue(generated(), RUN_SH)

    proc = init(repo, llm_server, "a greeter")

    assert proc.returncode == 0, proc.stderr
    after = Snapshot.take(repo)
    assert after.worktree == before.worktree and after.index == before.index
    assert git(repo, "rev-list", "--count", "main").strip() == "1"
    assert "checked out" not in proc.stdout and "git checkout" not in proc.stdout
    # the advice names what is in the way and restores only the rest: run it as printed
    if in_the_way == "untracked":
        assert "in the way, kept as they are (1):\n  main.py\n" in proc.stdout
    advice = [line for line in proc.stdout.splitlines() if line.startswith("get the")]
    assert len(advice) == 1, proc.stdout
    command = advice[0].split(":  ", 1)[1]
    subprocess.run(command, shell=True, cwd=repo, check=True, capture_output=True)
    if in_the_way == "untracked":
        assert (repo / "main.py").read_text() == "# my own main\n"
    else:
        assert (repo / "notes.txt").read_text() == "mine\n"
        assert git(repo, "diff", "--cached", "--name-only", "HEAD").strip() == "notes.txt"
    assert (repo / "app" / "greet.py").is_file() and (repo / "run.sh").is_file()


def test_lite_sends_the_prompt_alone(tmp_path: Path, llm_server: LLMServer) -> None:
    repo = make_repo(tmp_path / "lite")
    llm_server.queue(generated())
    proc = init(repo, llm_server, "--lite", "--no-entrypoint", "--json", "a greeter")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["first_commit"] is True and "run.sh" not in data["files"]
    messages = llm_server.requests[0].body["messages"]
    assert "experienced software engineer" not in messages[0]["content"]
    assert "Almost always put different classes" not in messages[0]["content"]
    assert messages[0]["content"].startswith("Write each file as its path")  # the format alone
    assert messages[1]["content"] == "a greeter"
    assert len(llm_server.requests) == 1  # no entrypoint call


def test_unsafe_run_sh_is_sent_back(tmp_path: Path, llm_server: LLMServer) -> None:
    repo = make_repo(tmp_path / "p")
    llm_server.queue(generated(), SUDO_RUN_SH, RUN_SH)
    proc = init(repo, llm_server, "a greeter")
    assert proc.returncode == 0, proc.stderr
    feedback = llm_server.requests[2].body["messages"][-1]["content"]
    assert "uses sudo" in feedback and "installs system packages with apt-get" in feedback
    assert "sudo" not in git(repo, "show", "main:run.sh")


def test_unsafe_run_sh_twice_is_committed_with_a_warning(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    repo = make_repo(tmp_path / "p")
    llm_server.queue(generated(), SUDO_RUN_SH, SUDO_RUN_SH)
    proc = init(repo, llm_server, "a greeter")
    assert proc.returncode == 0, proc.stderr
    assert "warning: run.sh uses sudo (root rights); review it before running it" in proc.stderr
    body = git(repo, "log", "-1", "--format=%B", "main")
    assert "run.sh needs review before running it:" in body and "- it uses sudo" in body


def test_unsafe_path_commits_nothing(repo: Path, llm_server: LLMServer) -> None:
    before = Snapshot.take(repo)
    llm_server.queue("../evil.py\n```python\nprint('x')\n```\n")
    proc = init(repo, llm_server, "a greeter")
    assert proc.returncode == 7, proc.stderr
    assert "leaves the repository" in proc.stderr and "Traceback" not in proc.stderr
    before.assert_unchanged(repo)


def test_not_a_repository_suggests_git_init(tmp_path: Path, llm_server: LLMServer) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    proc = init(plain, llm_server, "a greeter")
    assert proc.returncode == 3
    assert "not a git repository" in proc.stderr and "git init" in proc.stderr
    assert llm_server.requests == []


def test_no_prompt_is_a_usage_error(tmp_path: Path, llm_server: LLMServer) -> None:
    repo = make_repo(tmp_path / "p")
    proc = init(repo, llm_server)
    assert proc.returncode == 2 and "no prompt given" in proc.stderr


def test_clarify_is_refused_without_a_terminal(tmp_path: Path, llm_server: LLMServer) -> None:
    repo = make_repo(tmp_path / "p")
    proc = init(repo, llm_server, "--clarify", "a greeter")
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        "git-gpte: error: --clarify asks questions and needs a terminal "
        "(run it in a terminal, or put the answers in the prompt)"
    )
    assert llm_server.requests == []


def test_clarify_through_a_pseudo_terminal(tmp_path: Path, llm_server: LLMServer) -> None:
    repo = make_repo(tmp_path / "p")
    llm_server.queue(
        "Areas to clarify:\n- the language\n\nWhich language should the greeter be written in?",
        "Nothing to clarify",
        generated(),
        RUN_SH,
    )
    master, slave = os.openpty()
    env = dict(os.environ, **env_for(llm_server), TERM="dumb")
    proc = subprocess.Popen(
        ["git", "gpte", "init", "--clarify", "--model", "gpt-4o-mini", "a greeter"],
        cwd=repo,
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        start_new_session=True,
    )
    os.close(slave)
    output: list[str] = []
    try:
        deadline = time.monotonic() + 60
        assert read_until(master, "Your answer", output, deadline), "".join(output)
        assert "Which language" in "".join(output)  # the question was shown
        os.write(master, b"Python, please\n")
        read_until(master, "then:  git gpte run", output, deadline)
        code = proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    text = "".join(output)
    assert code == 0, text
    # the answer went back to the model, which then had nothing more to ask
    follow_up = llm_server.requests[1].body["messages"]
    assert follow_up[-2]["role"] == "assistant" and "Which language" in follow_up[-2]["content"]
    assert follow_up[-1]["content"].startswith("Python, please")
    # the generation request carries the question and the answer
    spec = llm_server.requests[2].body["messages"][-1]["content"]
    assert spec.startswith("a greeter") and "A: Python, please" in spec
    body = git(repo, "log", "-1", "--format=%B", "main")
    assert "Clarifications:" in body and "A: Python, please" in body


@pytest.mark.parametrize("empty", [True, False], ids=["empty-repo", "with-history"])
def test_init_then_heal_end_to_end(tmp_path: Path, llm_server: LLMServer, empty: bool) -> None:
    files = None if empty else {"README.md": "# project\n"}
    repo = make_repo(tmp_path / "e2e", files)
    env = env_for(llm_server)
    llm_server.queue(
        generated(name="nmae"),  # the generated code has a NameError
        RUN_SH,
        "The parameter is misspelt.\n\n```diff\n--- app/greet.py\n+++ app/greet.py\n"
        '@@ -1,3 +1,3 @@\n def greet(name):\n     """The greeting for name."""\n'
        '-    return "hello " + nmae\n+    return "hello " + name\n```\n',
    )
    made = run_gpte(
        "init", "--model", "gpt-4o-mini", "a greeter that prints hello world", cwd=repo, env=env
    )
    assert made.returncode == 0, made.stderr
    base = "main" if empty else "gpte/init-greeter-that-prints-hello-world"
    before = Snapshot.take(repo)

    healed = run_gpte("heal", "--yes", "--model", "gpt-4o-mini", "--base", base, cwd=repo, env=env)

    assert healed.returncode == 0, healed.stderr
    assert "NameError: name 'nmae' is not defined" in healed.stdout  # it really ran, and failed
    assert healed.stdout.count("hello world") == 1  # then passed
    branch = "gpte/heal-greeter-that-prints-hello-world"
    before.assert_unchanged(repo, new_branches=(branch,))
    # the spec came from the run log, through the Gpte-Run trailer of the init commit
    heal_request = llm_server.requests[2].body["messages"][-1]["content"]
    assert "Specification the program was written from:\na greeter that prints hello world" in (
        heal_request
    )
    assert 'return "hello " + name' in git(repo, "show", f"{branch}:app/greet.py")
    assert git(repo, "rev-parse", f"{branch}^").strip() == git(repo, "rev-parse", base).strip()


def test_init_in_an_existing_project_is_shown_the_files_it_concerns(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    from tests.helpers.bigrepo import big_project

    repo = make_repo(tmp_path / "shop", big_project())
    llm_server.queue(generated(), RUN_SH)
    proc = init(repo, llm_server, "a command line tool around compute_invoice_total")
    assert proc.returncode == 0, proc.stderr
    sent = llm_server.requests[0].body["messages"][-1]["content"]
    assert sent.startswith("The repository already has files.")
    assert "File: shop/billing.py\n" in sent and "def compute_invoice_total" in sent
    assert "excerpt" not in sent  # init writes whole files: only whole files are shown
    assert sent.count("File: ") < len(big_project())  # a selection, not the repository
    assert sent.rstrip().endswith("a command line tool around compute_invoice_total")
    branch = git(repo, "for-each-ref", "--format=%(refname)", "refs/heads/gpte/").strip()
    run_id = git(repo, "log", "-1", "--format=%(trailers:key=Gpte-Run,valueonly)", branch)
    shown = run_gpte("log", "show", "--json", run_id.strip(), cwd=repo)
    context = json.loads(shown.stdout)["meta"]["context"]
    assert context["mode"] == "existing files"
    assert {"path": "shop/billing.py", "whole": True, "ranges": []} in context["sent"]
