"""Every way a command that calls a model can end closes its run: through the installed CLI.

Each failure path is driven for real (a scripted server on the real wire protocols, real
signals to a real ``git gpte`` process, a bad setting in the environment) and then checked the
way a user would: one line on stderr, the documented exit code, and ``git gpte log --json``
showing the run's final outcome, never ``running``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import run_gpte
from tests.helpers.gitrepo import git, make_repo
from tests.helpers.llm_server import (
    BrokenStream,
    Fault,
    Garbage,
    LLMServer,
    Plain,
    Reply,
)

APP = "def greet(name):\n    return 'hello ' + name\n"

DIFF = """\
```diff
--- app.py
+++ app.py
@@ -1,2 +1,2 @@
 def greet(name):
-    return 'hello ' + name
+    return 'Hello, ' + name
```
"""

PROTOCOLS = {
    "openai": "gpt-4o-mini",
    "anthropic": "claude-sonnet-4-5",
}


def env_for(server: LLMServer, **extra: str) -> dict[str, str]:
    return {
        "OPENAI_BASE_URL": server.openai_base_url,
        "OPENAI_API_KEY": "sk-test",
        "ANTHROPIC_BASE_URL": server.anthropic_base_url,
        "ANTHROPIC_API_KEY": "sk-ant-test",
        "GPTE_MAX_RETRIES": "0",
        **extra,
    }


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "proj", {"app.py": APP})


def improve(
    project: Path, server: LLMServer, *args: str, model: str = "gpt-4o-mini", **env: str
) -> subprocess.CompletedProcess[str]:
    return run_gpte("improve", *args, "--model", model, cwd=project, env=env_for(server, **env))


def runs(project: Path) -> list[dict[str, object]]:
    result = run_gpte("log", "--json", cwd=project)
    assert result.returncode == 0, result.stderr
    data: list[dict[str, object]] = json.loads(result.stdout)
    return data


def only_run(project: Path) -> dict[str, object]:
    recorded = runs(project)
    assert len(recorded) == 1, recorded
    assert recorded[0]["outcome"] != "running"
    assert recorded[0]["finished_at"]
    return recorded[0]


def one_error_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert lines and lines[-1].startswith("git-gpte: "), stderr
    assert "Traceback" not in stderr, stderr
    errors = [line for line in lines if line.startswith("git-gpte: error") or "internal" in line]
    assert len(errors) <= 1, stderr
    return lines[-1]


# ---------------------------------------------------------------------------- server faults
def test_server_error_closes_the_run_as_llm_error(project: Path, llm_server: LLMServer) -> None:
    llm_server.queue(Fault(500, message="the model is\n\non fire"))
    result = improve(project, llm_server, "greet politely")
    assert result.returncode == 5
    line = one_error_line(result.stderr)
    assert "on fire" in line and "\n" not in line
    run = only_run(project)
    assert run["outcome"] == "llm-error" and run["provider"] == "openai"


@pytest.mark.parametrize("protocol", sorted(PROTOCOLS))
@pytest.mark.parametrize("stream", ["1", "0"])
def test_broken_json_is_one_llm_error_line(
    project: Path, llm_server: LLMServer, protocol: str, stream: str
) -> None:
    llm_server.queue(BrokenStream("half a rep"))
    result = improve(
        project, llm_server, "greet politely", model=PROTOCOLS[protocol], GPTE_STREAM=stream
    )
    assert result.returncode == 5, result.stderr
    line = one_error_line(result.stderr)
    assert "not valid JSON" in line
    # a custom base URL is not OpenAI or Anthropic itself
    assert "compatible server at http://127.0.0.1" in line
    assert only_run(project)["outcome"] == "llm-error"


@pytest.mark.parametrize("protocol", sorted(PROTOCOLS))
@pytest.mark.parametrize("stream", ["1", "0"])
def test_http_200_that_is_not_json(
    project: Path, llm_server: LLMServer, protocol: str, stream: str
) -> None:
    llm_server.queue(Garbage("<html><body>Sign in to the proxy</body></html>"))
    result = improve(
        project, llm_server, "greet politely", model=PROTOCOLS[protocol], GPTE_STREAM=stream
    )
    assert result.returncode == 5, result.stderr
    line = one_error_line(result.stderr)
    assert "not an API reply" in line and "Sign in to the proxy" in line
    assert only_run(project)["outcome"] == "llm-error"


@pytest.mark.parametrize("protocol", sorted(PROTOCOLS))
def test_plain_json_answer_to_a_streaming_request_is_read(
    project: Path, llm_server: LLMServer, protocol: str
) -> None:
    llm_server.queue(Plain(DIFF))
    result = improve(project, llm_server, "greet politely", model=PROTOCOLS[protocol])
    assert result.returncode == 0, result.stderr
    assert llm_server.requests[0].body["stream"] is True
    assert "Hello, " in git(project, "show", "gpte/greet-politely:app.py")
    run = only_run(project)
    assert run["outcome"] == "ok" and run["tokens_in"] > 0


def test_retry_warning_is_one_line(project: Path, llm_server: LLMServer) -> None:
    llm_server.queue(Fault(503, message="busy\n\n\ntry later"), DIFF)
    result = improve(project, llm_server, "greet politely", GPTE_MAX_RETRIES="1")
    assert result.returncode == 0, result.stderr
    warning = [line for line in result.stderr.splitlines() if "retrying in" in line]
    assert len(warning) == 1 and "busy try later" in warning[0]


# ---------------------------------------------------------------------------- configuration
@pytest.mark.parametrize(
    ("name", "value", "said"),
    [
        ("GPTE_TEMPERATURE", "hot", "GPTE_TEMPERATURE must be a number"),
        ("GPTE_MAX_RETRIES", "abc", "GPTE_MAX_RETRIES must be a whole number"),
        ("GPTE_REQUEST_TIMEOUT", "-5", "GPTE_REQUEST_TIMEOUT must be a number of seconds above 0"),
    ],
)
def test_bad_setting_closes_the_run_as_config_error(
    project: Path, llm_server: LLMServer, name: str, value: str, said: str
) -> None:
    result = improve(project, llm_server, "greet politely", **{name: value})
    assert result.returncode == 4
    assert said in one_error_line(result.stderr)
    assert not llm_server.requests
    assert only_run(project)["outcome"] == "config-error"


# ---------------------------------------------------------------------------- unexpected
def test_unexpected_exception_is_one_line_and_closes_the_run(
    project: Path, llm_server: LLMServer, tmp_path: Path
) -> None:
    # A real process with a real bug in it: sitecustomize breaks one function of the pipeline.
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(
        "import git_gpte.pipeline.edit_loop as loop\n"
        "def broken(*args, **kwargs):\n"
        "    raise RuntimeError('a bug\\nover two lines')\n"
        "loop.python_problems = broken\n"
    )
    llm_server.queue(DIFF)
    result = run_gpte(
        "improve",
        "greet politely",
        "--model",
        "gpt-4o-mini",
        cwd=project,
        env=env_for(llm_server, PYTHONPATH=str(hook)),
        process=True,
    )
    assert result.returncode == 70, result.stderr
    line = one_error_line(result.stderr)
    assert line.startswith("git-gpte: internal error: RuntimeError: a bug over two lines")
    run = only_run(project)
    assert run["outcome"] == "error" and "RuntimeError" in str(run["detail"])
    assert run["tokens_in"] > 0  # the call was paid for and is counted


# ---------------------------------------------------------------------------- signals
def _start(
    project: Path, server: LLMServer, *args: str, command: tuple[str, ...] = ("git", "gpte")
) -> subprocess.Popen[str]:
    env = {**os.environ, **env_for(server)}
    return subprocess.Popen(
        [*command, "improve", "greet politely", "--model", "gpt-4o-mini", *args],
        cwd=project,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, like a terminal's foreground job
    )


def _wait_for_request(server: LLMServer, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 60
    while not server.requests:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the request never arrived"
        time.sleep(0.02)
    time.sleep(0.3)  # the reply has started streaming


@pytest.mark.parametrize("gap", [0.001, 0.005, 0.02])
def test_double_sigint_is_one_interrupt(project: Path, llm_server: LLMServer, gap: float) -> None:
    # git forwards a Ctrl-C to git-gpte, which has it from the terminal too: two SIGINTs a
    # few milliseconds apart, straight to git-gpte here, so its own exit status is seen.
    llm_server.queue(Reply(DIFF * 20, delay=0.05))
    proc = _start(project, llm_server, command=("git-gpte",))
    _wait_for_request(llm_server, proc)
    proc.send_signal(signal.SIGINT)
    time.sleep(gap)
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "OperationalError" not in err
    assert _messages(err) == ["git-gpte: interrupted; nothing committed"]
    assert only_run(project)["outcome"] == "interrupted"


def test_ctrl_c_through_git(project: Path, llm_server: LLMServer) -> None:
    # What a terminal does: SIGINT to the whole foreground group (git and git-gpte), and git
    # forwards its own. git then dies of the signal itself, so its status is -SIGINT or 130.
    llm_server.queue(Reply(DIFF * 20, delay=0.05))
    proc = _start(project, llm_server)
    _wait_for_request(llm_server, proc)
    os.killpg(proc.pid, signal.SIGINT)
    time.sleep(0.003)
    os.killpg(proc.pid, signal.SIGINT)
    _out, err = proc.communicate(timeout=60)
    # git's own race: when the second signal comes while its handler reaps git-gpte, git's
    # wait finds no child and git exits 128 saying so (seen once in CI); git-gpte's part is the
    # same either way.
    raced = proc.returncode == 128 and "waitpid for git-gpte failed" in err
    assert proc.returncode in (130, -signal.SIGINT) or raced, err
    assert "Traceback" not in err
    assert _messages(err) == ["git-gpte: interrupted; nothing committed"]
    assert only_run(project)["outcome"] == "interrupted"


def _messages(stderr: str) -> list[str]:
    """stderr without the progress lines (what was sent, what was asked)."""
    return [line for line in stderr.splitlines() if line.startswith("git-gpte:")]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_and_sighup_close_the_run(
    project: Path, llm_server: LLMServer, sig: signal.Signals
) -> None:
    llm_server.queue(Reply(DIFF * 20, delay=0.05))
    proc = _start(project, llm_server, command=("git-gpte",))
    _wait_for_request(llm_server, proc)
    proc.send_signal(sig)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert only_run(project)["outcome"] == "interrupted"


def test_a_run_killed_outright_is_marked_interrupted_by_the_next_command(
    project: Path, llm_server: LLMServer
) -> None:
    # SIGKILL leaves no chance to record anything: the next git-gpte command sees the process
    # is gone and says so, instead of a run that stays "running" forever.
    llm_server.queue(Reply(DIFF * 20, delay=0.05))
    proc = _start(project, llm_server, command=("git-gpte",))
    _wait_for_request(llm_server, proc)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)
    run = only_run(project)
    assert run["outcome"] == "interrupted" and "killed" in run["detail"]


# ---------------------------------------------------------------------------- run log storage
def test_corrupt_run_log_says_how_to_recover(project: Path, llm_server: LLMServer) -> None:
    state = project / ".git" / "gpte"
    state.mkdir()
    (state / "runs.sqlite").write_bytes(b"this is not a database" * 100)
    result = improve(project, llm_server, "greet politely")
    assert result.returncode == 4
    line = one_error_line(result.stderr)
    assert "not a usable git-gpte database" in line and "mv " in line and ".broken" in line
    assert not llm_server.requests  # refused before paying for anything


def test_state_dir_that_is_a_file(project: Path, llm_server: LLMServer) -> None:
    (project / ".git" / "gpte").write_text("in the way\n")
    result = improve(project, llm_server, "greet politely")
    assert result.returncode == 3
    assert "a file, not a directory" in one_error_line(result.stderr)
    assert not llm_server.requests


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes to read-only directories")
def test_state_dir_read_only(project: Path, llm_server: LLMServer) -> None:
    state = project / ".git" / "gpte"
    state.mkdir()
    state.chmod(0o555)
    try:
        result = improve(project, llm_server, "greet politely")
    finally:
        state.chmod(0o755)
    assert result.returncode == 3
    assert "cannot write" in one_error_line(result.stderr)


def test_broken_cache_never_fails_a_run(project: Path, llm_server: LLMServer) -> None:
    state = project / ".git" / "gpte"
    state.mkdir()
    (state / "cache.sqlite").write_bytes(b"garbage" * 500)
    llm_server.queue(DIFF)
    result = improve(project, llm_server, "greet politely", "--cache")
    assert result.returncode == 0, result.stderr
    assert "the response cache is not used" in result.stderr
    assert "mv " in result.stderr  # and how to fix it
    assert only_run(project)["outcome"] == "ok"


# ---------------------------------------------------------------------------- before the call
@pytest.mark.parametrize(
    ("args", "code", "said"),
    [
        (("-b", "main/x"), 3, "branch 'main' exists"),
        (("-b", "x" * 300), 2, "too long"),
        (("-b", "@"), 2, "not a valid branch name"),
        (("-b", ""), 2, "not a valid branch name"),
        (("-b", "@{-1}"), 2, "not a valid branch name"),
    ],
)
def test_bad_branch_is_refused_before_the_call(
    project: Path, llm_server: LLMServer, args: tuple[str, ...], code: int, said: str
) -> None:
    result = improve(project, llm_server, "greet politely", *args)
    assert result.returncode == code, result.stderr
    assert said in one_error_line(result.stderr)
    assert not llm_server.requests
    assert runs(project) == []


def test_nul_byte_in_the_prompt_is_refused_before_the_call(
    project: Path, llm_server: LLMServer, tmp_path: Path
) -> None:
    prompt = tmp_path / "prompt.txt"
    prompt.write_bytes(b"greet\npolitely\x00please\n")
    result = improve(project, llm_server, "-f", str(prompt))
    assert result.returncode == 2
    assert "NUL byte (line 2)" in one_error_line(result.stderr)
    assert not llm_server.requests


def test_default_branch_taken_meanwhile_becomes_the_next_name(
    project: Path, llm_server: LLMServer
) -> None:
    # Another improve with the same prompt creates gpte/greet-politely while this one waits for
    # its reply: this one's paid-for edit lands on gpte/greet-politely-2.
    llm_server.queue(Reply(DIFF, delay=0.1))
    proc = _start(project, llm_server)
    _wait_for_request(llm_server, proc)
    git(project, "branch", "gpte/greet-politely")
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "branch gpte/greet-politely-2" in out
    assert "Hello, " in git(project, "show", "gpte/greet-politely-2:app.py")
    assert (
        git(project, "rev-parse", "gpte/greet-politely").strip()
        == git(project, "rev-parse", "main").strip()
    )
    run = only_run(project)
    assert run["branch"] == "gpte/greet-politely-2"


def test_from_worktree_refuses_during_a_conflicted_merge(
    project: Path, llm_server: LLMServer
) -> None:
    git(project, "switch", "-q", "-c", "other")
    (project / "app.py").write_text(APP.replace("hello", "hi"))
    git(project, "commit", "-qam", "other")
    git(project, "switch", "-q", "main")
    (project / "app.py").write_text(APP.replace("hello", "hey"))
    git(project, "commit", "-qam", "mine")
    git(project, "merge", "other", check=False)
    assert "<<<<<<<" in (project / "app.py").read_text()
    result = improve(project, llm_server, "greet politely", "--from-worktree")
    assert result.returncode == 3
    line = one_error_line(result.stderr)
    assert "unresolved merge conflicts (app.py)" in line
    assert not llm_server.requests


def test_run_log_has_the_provider_and_usage_exactness(project: Path, llm_server: LLMServer) -> None:
    llm_server.queue(DIFF)
    result = improve(project, llm_server, "greet politely", model="claude-sonnet-4-5")
    assert result.returncode == 0, result.stderr
    run = only_run(project)
    assert run["provider"] == "anthropic" and run["model"] == "claude-sonnet-4-5"
    assert run["usage_exact"] is True and run["cost_usd"] is not None
    usage = f"{run['tokens_in']:,} tokens in, {run['tokens_out']:,} out, cost $"
    assert usage in result.stdout


# ---------------------------------------------------------------------------- heal, apply, action
BROKEN = "def greet(name):\n    return 'hello ' + nmae\n\nprint(greet('x'))\n"


def test_heal_attempts_are_child_runs_and_a_bad_setting_closes_both(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    repo = make_repo(tmp_path / "heal", {"app.py": BROKEN, "run.sh": "python3 app.py\n"})
    result = run_gpte(
        "heal",
        "--yes",
        "--model",
        "gpt-4o-mini",
        "-p",
        "greet",
        cwd=repo,
        env=env_for(llm_server, GPTE_TEMPERATURE="hot"),
    )
    assert result.returncode == 4, result.stderr
    assert "GPTE_TEMPERATURE must be a number" in one_error_line(result.stderr)
    assert not llm_server.requests
    recorded = {str(run["command"]): run for run in runs(repo)}
    assert set(recorded) == {"heal", "heal-attempt"}
    assert recorded["heal"]["outcome"] == "config-error"
    attempt = recorded["heal-attempt"]
    assert attempt["outcome"] == "config-error"
    assert isinstance(attempt["meta"], dict)
    assert attempt["meta"]["parent_run"] == recorded["heal"]["id"]


def test_heal_usage_is_the_sum_of_its_attempts(tmp_path: Path, llm_server: LLMServer) -> None:
    repo = make_repo(tmp_path / "heal", {"app.py": BROKEN, "run.sh": "python3 app.py\n"})
    fix = BROKEN.replace("nmae", "name")
    llm_server.queue(f"app.py\n```python\n{fix}```\n")
    result = run_gpte(
        "heal",
        "--yes",
        "--json",
        "--model",
        "gpt-4o-mini",
        "-p",
        "greet",
        cwd=repo,
        env=env_for(llm_server),
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    recorded = {str(run["command"]): run for run in runs(repo)}
    attempt = recorded["heal-attempt"]
    assert data["tokens_in"] == attempt["tokens_in"] > 0
    assert data["cost_usd"] == pytest.approx(attempt["cost_usd"])
    assert recorded["heal"]["outcome"] == "ok" and recorded["heal"]["tokens_in"] == 0


def test_apply_refuses_a_name_the_file_system_cannot_store(project: Path, tmp_path: Path) -> None:
    name = "n" * 300 + ".py"
    reply = tmp_path / "reply.md"
    reply.write_text(f"```diff\n--- /dev/null\n+++ {name}\n@@ -0,0 +1 @@\n+x = 1\n```\n")
    result = run_gpte("apply", str(reply), cwd=project)
    assert result.returncode == 7, result.stderr
    assert "longer than 255 bytes" in one_error_line(result.stderr)
    assert git(project, "status", "--porcelain") == ""


def test_apply_refuses_files_inside_a_submodule(project: Path, tmp_path: Path) -> None:
    inner = make_repo(project / "vendor" / "lib", {"lib.py": "x = 1\n"})
    assert (inner / ".git").exists()
    reply = tmp_path / "reply.md"
    reply.write_text(
        "```diff\n--- vendor/lib/lib.py\n+++ vendor/lib/lib.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n```\n"
    )
    result = run_gpte("apply", str(reply), cwd=project)
    assert result.returncode == 7, result.stderr
    assert "inside 'vendor/lib', a submodule or another repository" in one_error_line(result.stderr)
    assert (inner / "lib.py").read_text() == "x = 1\n"


@pytest.mark.parametrize("number", ["seven", 1.5, None, True])
def test_action_event_with_a_bad_issue_number(
    project: Path, tmp_path: Path, number: object
) -> None:
    event = tmp_path / "event.json"
    issue = {"number": number, "title": "t", "body": "b", "labels": [{"name": "gpte"}]}
    event.write_text(json.dumps({"action": "labeled", "label": {"name": "gpte"}, "issue": issue}))
    result = run_gpte(
        "action",
        cwd=project,
        env={
            "GITHUB_ACTIONS": "true",
            "GITHUB_EVENT_NAME": "issues",
            "GITHUB_EVENT_PATH": str(event),
            "GITHUB_REPOSITORY": "octo/demo",
            "GITHUB_WORKSPACE": str(project),
            "GITHUB_TOKEN": "ghs_test",
        },
    )
    assert result.returncode == 2, result.stderr
    assert "the event's issue number is not a whole number" in one_error_line(result.stderr)


def test_double_sigint_while_heal_runs_the_program(tmp_path: Path, llm_server: LLMServer) -> None:
    # Ctrl-C while run.sh runs: the program's group is killed, its worktree removed, and the heal
    # run closed as interrupted, even with the second SIGINT landing in that cleanup.
    repo = make_repo(tmp_path / "slow", {"run.sh": "echo started\nsleep 60\n"})
    env = {**os.environ, **env_for(llm_server)}
    proc = subprocess.Popen(
        ["git-gpte", "heal", "--yes", "--model", "gpt-4o-mini", "-p", "wait"],
        cwd=repo,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "started"
    proc.send_signal(signal.SIGINT)
    time.sleep(0.003)
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert _messages(err) == ["git-gpte: interrupted; nothing committed"]
    assert only_run(repo)["outcome"] == "interrupted"
    assert len(git(repo, "worktree", "list").splitlines()) == 1  # the temporary one is gone


def test_run_log_that_cannot_be_opened(project: Path, llm_server: LLMServer) -> None:
    # What a read-only or otherwise unwritable .git/gpte looks like to SQLite (as root, a
    # read-only directory is still writable, so the file's place is taken by a directory).
    (project / ".git" / "gpte" / "runs.sqlite").mkdir(parents=True)
    result = improve(project, llm_server, "greet politely")
    assert result.returncode == 3, result.stderr
    line = one_error_line(result.stderr)
    assert "cannot write" in line and "writable directory" in line
    assert not llm_server.requests


def test_end_of_input_at_a_clarifying_question_closes_the_init_run(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    from tests.helpers.pty_run import read_until

    repo = make_repo(tmp_path / "p")
    llm_server.queue("Which language should the greeter be written in?")
    master, slave = os.openpty()
    env = dict(os.environ, **env_for(llm_server), TERM="dumb")
    proc = subprocess.Popen(
        ["git-gpte", "init", "--clarify", "--model", "gpt-4o-mini", "a greeter"],
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
        assert read_until(master, "Your answer", output, time.monotonic() + 60), output
        os.write(master, b"\x04")  # Ctrl-D: end of input
        read_until(master, "git-gpte: interrupted", output, time.monotonic() + 30)
        code = proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    assert code == 130, "".join(output)
    assert "Traceback" not in "".join(output)
    run = only_run(repo)
    assert run["outcome"] == "interrupted" and "clarifying question" in str(run["detail"])
