"""``git gpte improve`` end to end: the installed CLI, the real SDKs, a scripted local LLM server.

Configuration reaches the CLI only the way a user sets it: OPENAI_BASE_URL, OPENAI_API_KEY,
ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY and the documented options.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.conftest import run_gpte
from tests.helpers.gitrepo import Snapshot, git, make_repo, write_files
from tests.helpers.llm_server import Cut, Fault, LLMServer

APP = """\
import sys


def greet(name):
    return "hello " + name


def main():
    print(greet(sys.argv[1] if len(sys.argv) > 1 else "world"))


if __name__ == "__main__":
    main()
"""

CLEAN_DIFF = """\
I will add logging to the app.

```diff
--- src/app.py
+++ src/app.py
@@ -1,4 +1,6 @@
+import logging
 import sys
 
+log = logging.getLogger(__name__)
 
 def greet(name):
@@ -8,2 +10,3 @@
 def main():
+    log.info("starting")
     print(greet(sys.argv[1] if len(sys.argv) > 1 else "world"))
```
"""

# Wrong @@ numbers, and a context line that lost its leading space.
SLOPPY_DIFF = """\
```diff
--- a/src/app.py
+++ b/src/app.py
@@ -40,3 +40,3 @@
 def greet(name):
-    return "hello " + name
+    return "Hello, " + name + "!"
```
"""

INVENTED_CONTEXT = """\
```diff
--- src/app.py
+++ src/app.py
@@ -5,3 +5,3 @@
 def greet_everyone(names, punctuation):
-    return ", ".join(names) + punctuation
+    return "; ".join(names) + punctuation
```
"""

NEW_AND_DELETE = """\
```diff
--- /dev/null
+++ src/util.py
@@ -0,0 +1,2 @@
+def shout(text):
+    return text.upper()
```

```diff
--- README.md
+++ /dev/null
@@ -1 +0,0 @@
-# demo
```
"""


def env_for(server: LLMServer) -> dict[str, str]:
    return {"OPENAI_BASE_URL": server.openai_base_url, "OPENAI_API_KEY": "sk-test"}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "proj", {"src/app.py": APP, "README.md": "# demo\n"})


def improve(
    project: Path, server: LLMServer, *args: str, process: bool = False
) -> tuple[int, str, str]:
    result = run_gpte(
        "improve",
        *args,
        "--model",
        "gpt-4o-mini",
        cwd=project,
        env=env_for(server),
        process=process,
    )
    return result.returncode, result.stdout, result.stderr


def show(project: Path, rev: str, path: str) -> str:
    return git(project, "show", f"{rev}:{path}")


def test_clean_reply_is_committed_on_a_new_branch(project: Path, llm_server: LLMServer) -> None:
    # a dirty work tree and index, which must stay byte-identical
    write_files(project, {"README.md": "# demo (my edit)\n", "notes.txt": "untracked\n"})
    git(project, "add", "README.md")
    write_files(project, {"src/app.py": APP + "# unstaged edit\n"})
    before = Snapshot.take(project)
    llm_server.queue(CLEAN_DIFF)

    # end to end: through git, in a process of its own, as a user runs it
    code, out, err = improve(project, llm_server, "add logging", process=True)

    assert code == 0, err
    before.assert_unchanged(project, new_branches=("gpte/add-logging",))
    head = git(project, "rev-parse", "HEAD").strip()
    assert git(project, "rev-parse", "gpte/add-logging^").strip() == head
    app = show(project, "gpte/add-logging", "src/app.py")
    assert app.startswith("import logging\nimport sys\n\nlog = logging.getLogger(__name__)\n")
    assert '    log.info("starting")\n    print(greet(' in app
    message = git(project, "log", "-1", "--format=%B", "gpte/add-logging")
    assert message.startswith("add logging\n")
    assert "Gpte-Model: gpt-4o-mini" in message
    run_id = git(
        project, "log", "-1", "--format=%(trailers:key=Gpte-Run,valueonly)", "gpte/add-logging"
    ).strip()
    assert run_id
    assert "branch gpte/add-logging" in out and "src/app.py" in out
    assert "git diff HEAD...gpte/add-logging" in out and "git merge gpte/add-logging" in out
    assert "tokens" in out and "cost $" in out
    assert "uncommitted changes" in err  # the user is told the edit ignores them
    # the request carried the file with line numbers and the instruction
    sent = llm_server.requests[0].body["messages"][-1]["content"]
    assert " 4 def greet(name):" in sent and "add logging" in sent
    # the run is in the log, with the branch and commit
    log = run_gpte("log", "--json", cwd=project)
    assert log.returncode == 0, log.stderr
    assert run_id in log.stdout and "gpte/add-logging" in log.stdout


def test_sloppy_reply_is_repaired(project: Path, llm_server: LLMServer) -> None:
    llm_server.queue(SLOPPY_DIFF)
    result = run_gpte(
        "-v",
        "improve",
        "friendlier greeting",
        "--branch",
        "greet",
        "--model",
        "gpt-4o-mini",
        cwd=project,
        env=env_for(llm_server),
    )
    assert result.returncode == 0, result.stderr
    assert "corrected src/app.py hunk 1" in result.stderr  # -v says how each hunk was placed
    assert 'return "Hello, " + name + "!"' in show(project, "greet", "src/app.py")


def test_refused_hunk_fixed_by_the_retry(project: Path, llm_server: LLMServer) -> None:
    llm_server.queue(INVENTED_CONTEXT, SLOPPY_DIFF)
    code, _, err = improve(project, llm_server, "change greeting")
    assert code == 0, err
    assert len(llm_server.requests) == 2
    retry = llm_server.requests[1].body["messages"][-1]["content"]
    assert "greet_everyone" in retry  # the refusal report names what did not match
    assert "File: src/app.py" in retry and "File: README.md" not in retry  # only what failed
    assert 'return "Hello, " + name + "!"' in show(project, "gpte/change-greeting", "src/app.py")


def test_reply_without_edits_says_so_in_the_users_words(
    project: Path, llm_server: LLMServer
) -> None:
    # An answer in prose is the model's answer: shown, not retried blindly.
    llm_server.queue("The code looks fine to me; no change is needed.")
    code, _, err = improve(project, llm_server, "change greeting")
    assert code == 6, err
    assert err.strip().splitlines()[-1] == (
        "git-gpte: error: nothing committed: the model answered without an edit: "
        "The code looks fine to me; no change is needed."
    )
    assert len(llm_server.requests) == 1
    # Code in the wrong form is retried, saying what form is wanted.
    llm_server.queue("Here:\n```\nprint('hi')\n```\n", "Still:\n```\nprint('hi')\n```\n")
    code, _, err = improve(project, llm_server, "change greeting", "--max-retries", "1")
    assert code == 6, err
    assert "the reply held no usable edit" in err
    assert (
        "no edits in the requested format"
        in (llm_server.requests[-1].body["messages"][-1]["content"])
    )


def test_reply_that_stays_broken_commits_nothing(project: Path, llm_server: LLMServer) -> None:
    before = Snapshot.take(project)
    other = INVENTED_CONTEXT.replace("greet_everyone", "greet_all")
    llm_server.queue(INVENTED_CONTEXT, other, INVENTED_CONTEXT)  # never the same answer twice
    code, _, err = improve(project, llm_server, "change greeting")
    assert code == 6, err
    assert "nothing committed" in err and "Traceback" not in err
    errors = [line for line in err.splitlines() if line.startswith("git-gpte: error:")]
    assert len(errors) == 1 and err.strip().splitlines()[-1] == errors[0]
    before.assert_unchanged(project)
    assert len(llm_server.requests) == 3  # one try + --max-retries 2
    log = json.loads(run_gpte("log", "--json", cwd=project).stdout)
    runs = log if isinstance(log, list) else log["runs"]
    assert runs[0]["outcome"] in ("refused", "no-edits")


def test_partial_result_exits_1_and_lists_refusals(project: Path, llm_server: LLMServer) -> None:
    both = CLEAN_DIFF + "\n" + INVENTED_CONTEXT
    llm_server.queue(both, INVENTED_CONTEXT)
    code, out, err = improve(project, llm_server, "add logging", "--max-retries", "1")
    assert code == 1, err
    assert "refused" in out
    # the user's words: what was not applied, where the rest is, what to do now; never the
    # text written for the model
    assert "Redo these only" not in out + err and "Send new diffs" not in out + err
    assert 'to ask for the rest there: git gpte improve --on gpte/add-logging "..."' in out
    body = git(project, "log", "-1", "--format=%B", "gpte/add-logging")
    assert "Refused hunks" in body
    assert "import logging" in show(project, "gpte/add-logging", "src/app.py")


def test_new_and_deleted_files(project: Path, llm_server: LLMServer) -> None:
    llm_server.queue(NEW_AND_DELETE)
    code, _, err = improve(project, llm_server, "add util, drop readme")
    assert code == 0, err
    branch = "gpte/add-util-drop-readme"
    assert show(project, branch, "src/util.py") == "def shout(text):\n    return text.upper()\n"
    files = git(project, "ls-tree", "-r", "--name-only", branch).split()
    assert "README.md" not in files


def test_dry_run_needs_no_key_and_calls_nothing(project: Path, llm_server: LLMServer) -> None:
    result = run_gpte(
        "improve",
        "--dry-run",
        "add logging",
        "--model",
        "gpt-4o",
        cwd=project,
        env={"OPENAI_BASE_URL": llm_server.openai_base_url},
    )
    assert result.returncode == 0, result.stderr
    assert (
        "src/app.py" in result.stdout
        and "to send: ~" in result.stdout
        and "tokens (estimate)" in result.stdout
    )
    assert llm_server.requests == []
    verbose = run_gpte("-v", "improve", "-n", "add logging", "--model", "gpt-4o", cwd=project)
    assert "----- system -----" in verbose.stdout and "add logging" in verbose.stdout


def test_existing_branch_is_refused_before_any_call(project: Path, llm_server: LLMServer) -> None:
    git(project, "branch", "taken")
    before = Snapshot.take(project)
    code, _, err = improve(project, llm_server, "x", "--branch", "taken")
    assert code == 3 and "already exists" in err
    assert llm_server.requests == []
    before.assert_unchanged(project)


def test_default_branch_gets_a_suffix_when_taken(project: Path, llm_server: LLMServer) -> None:
    git(project, "branch", "gpte/add-logging")
    llm_server.queue(CLEAN_DIFF)
    code, out, err = improve(project, llm_server, "add logging")
    assert code == 0, err
    assert "branch gpte/add-logging-2" in out


def test_cut_stream_commits_nothing(project: Path, llm_server: LLMServer) -> None:
    before = Snapshot.take(project)
    llm_server.queue(Cut("```diff\n--- src/app.py\n+++ src/app.py\n@@ -1,1"))
    result = run_gpte(
        "improve",
        "add logging",
        "--max-retries",
        "0",
        "--model",
        "gpt-4o-mini",
        cwd=project,
        # the cut stream is retried with backoff: a short budget keeps the test quick
        env={**env_for(llm_server), "GPTE_MAX_RETRY_SECONDS": "1"},
    )
    code, err = result.returncode, result.stderr
    assert code == 5, err
    assert "Traceback" not in err
    before.assert_unchanged(project)


def test_llm_errors_are_one_line(project: Path, llm_server: LLMServer) -> None:
    llm_server.queue(Fault(status=401, message="Incorrect API key provided"))
    code, _, err = improve(project, llm_server, "add logging")
    assert code == 5 or code == 4
    assert "Incorrect API key" in err and "Traceback" not in err


def test_anthropic_run(project: Path, llm_server: LLMServer) -> None:
    llm_server.queue(CLEAN_DIFF)
    result = run_gpte(
        "improve",
        "add logging",
        "--model",
        "claude-3-5-sonnet-latest",
        cwd=project,
        env={"ANTHROPIC_BASE_URL": llm_server.anthropic_base_url, "ANTHROPIC_API_KEY": "k"},
    )
    assert result.returncode == 0, result.stderr
    assert llm_server.requests[0].provider == "anthropic"
    assert "import logging" in show(project, "gpte/add-logging", "src/app.py")


def test_python_syntax_error_is_fed_back(project: Path, llm_server: LLMServer) -> None:
    broken = SLOPPY_DIFF.replace('"Hello, " + name + "!"', '"Hello, " + (name')
    llm_server.queue(
        broken, SLOPPY_DIFF.replace('-    return "hello " + name', '-    return "Hello, " + (name')
    )
    code, _, err = improve(project, llm_server, "friendlier greeting")
    assert len(llm_server.requests) == 2, err
    assert "SyntaxError" in llm_server.requests[1].body["messages"][-1]["content"]
    assert code == 0, err
    compile(show(project, "gpte/friendlier-greeting", "src/app.py"), "app.py", "exec")


def test_json_output(project: Path, llm_server: LLMServer) -> None:
    llm_server.queue(CLEAN_DIFF)
    code, out, err = improve(project, llm_server, "add logging", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["branch"] == "gpte/add-logging" and data["files_changed"] == ["src/app.py"]
    assert data["tokens_in"] > 0 and data["tokens_out"] > 0


def test_from_worktree_bases_the_edit_on_uncommitted_work(
    project: Path, llm_server: LLMServer
) -> None:
    write_files(project, {"docs/a.md": "a\n", "docs/b.md": "b\n"})
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "docs")
    write_files(project, {"README.md": "# demo\n\nmine\n", "docs/a.md": "a staged\n"})
    git(project, "add", "docs/a.md")  # staged
    git(project, "rm", "-q", "docs/b.md")  # deleted (staged)
    (project / "src" / "app.py").write_text(APP + "# unstaged\n")
    write_files(project, {"notes.txt": "untracked\n"})
    before = Snapshot.take(project)
    llm_server.queue(CLEAN_DIFF)
    code, _, err = improve(project, llm_server, "add logging", "--from-worktree")
    assert code == 0, err
    before.assert_unchanged(project, new_branches=("gpte/add-logging",))
    assert git(project, "rev-list", "--count", "main..gpte/add-logging").strip() == "2"
    assert show(project, "gpte/add-logging", "README.md") == "# demo\n\nmine\n"
    assert show(project, "gpte/add-logging", "docs/a.md") == "a staged\n"
    app = show(project, "gpte/add-logging", "src/app.py")
    assert app.endswith("# unstaged\n") and "import logging" in app
    listed = git(project, "ls-tree", "-r", "--name-only", "gpte/add-logging").split()
    assert "docs/b.md" not in listed and "notes.txt" not in listed
    assert "1 untracked file(s) are not included" in err


def test_checkout_switches_when_safe(project: Path, llm_server: LLMServer) -> None:
    llm_server.queue(CLEAN_DIFF)
    code, _, err = improve(project, llm_server, "add logging", "--checkout")
    assert code == 0, err
    assert git(project, "symbolic-ref", "--short", "HEAD").strip() == "gpte/add-logging"


def test_bad_input_gets_one_line(tmp_path: Path, llm_server: LLMServer) -> None:
    env = env_for(llm_server)
    outside = run_gpte("improve", "x", cwd=tmp_path, env=env)
    assert outside.returncode == 3 and "not a git repository" in outside.stderr
    empty = make_repo(tmp_path / "empty")
    result = run_gpte("improve", "x", cwd=empty, env=env)
    assert result.returncode == 3 and "no commits" in result.stderr
    project = make_repo(tmp_path / "p", {"a.py": "x = 1\n"})
    nokey = run_gpte("improve", "x", "--model", "gpt-4o", cwd=project)
    assert nokey.returncode == 4 and "OPENAI_API_KEY" in nokey.stderr
    unknown = run_gpte("improve", "x", "--model", "no-such-model", cwd=project)
    assert unknown.returncode == 4
    nothing = run_gpte("improve", "x", "nope/", cwd=project, env=env)
    assert nothing.returncode == 2 and "did not match" in nothing.stderr
    assert "git add" not in nothing.stderr  # git's hint does not apply: only tracked files go
    missing = run_gpte("improve", "-f", "no-such-prompt.md", cwd=project)
    assert missing.returncode == 2
    assert missing.stderr.strip().endswith("'no-such-prompt.md': No such file or directory")
    (tmp_path / "prompt.bin").write_bytes(b"\xff\xfe\x00binary")
    binary = run_gpte("improve", "-f", str(tmp_path / "prompt.bin"), cwd=project)
    assert binary.returncode == 2 and "is not UTF-8 text" in binary.stderr
    git(project, "checkout", "-q", "--detach")
    llm_server.queue("```diff\n--- a.py\n+++ a.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n```\n")
    detached = run_gpte("improve", "set x to 2", "--model", "gpt-4o", cwd=project, env=env)
    assert detached.returncode == 0, detached.stderr  # allowed: the edit is based on HEAD's commit
    assert "HEAD is detached; the edit is based on its commit" in detached.stderr
    for failed in (outside, result, nokey, unknown, nothing):
        assert "Traceback" not in failed.stderr
        assert len(failed.stderr.strip().splitlines()) == 1, failed.stderr


def test_selection_over_the_context_budget_is_refused_with_sizes(
    project: Path, llm_server: LLMServer
) -> None:
    write_files(project, {"data/big.py": "VALUES = [\n" + "    12345678,\n" * 6000 + "]\n"})
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "big")
    result = run_gpte(
        "improve", "x", "--context", "all", "--model", "gpt-4", cwd=project, env=env_for(llm_server)
    )
    assert result.returncode == 2, result.stderr
    assert "over gpt-4's budget" in result.stderr and "data/big.py" in result.stderr
    assert "pathspec" in result.stderr
    assert llm_server.requests == []


def test_dry_run_over_the_budget_shows_the_plan_and_says_a_real_run_would_refuse(
    project: Path,
) -> None:
    # The README's first command is a dry run on a whole repository: it must show what would
    # be sent (and that it is too much), not fail before showing anything.
    write_files(project, {"data/big.py": "VALUES = [\n" + "    12345678,\n" * 6000 + "]\n"})
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "big")
    result = run_gpte(
        "improve", "--dry-run", "--context", "all", "x", "--model", "gpt-4", cwd=project
    )
    assert result.returncode == 0, result.stderr
    assert "data/big.py" in result.stdout and "src/app.py" in result.stdout
    assert "a real run would refuse this" in result.stdout
    assert "over gpt-4's budget" in result.stdout
    as_json = run_gpte(
        "improve", "-n", "x", "--model", "gpt-4", "--json", "--context", "all", cwd=project
    )
    assert "over gpt-4's budget" in json.loads(as_json.stdout)["over_budget"]
    # without --context all the same repository is sent as a selection that fits
    selected = run_gpte("improve", "-n", "x", "--model", "gpt-4", "--json", cwd=project)
    data = json.loads(selected.stdout)
    assert data["over_budget"] is None and data["context"] == "selected"


def test_select_and_images_are_refused_clearly(project: Path, llm_server: LLMServer) -> None:
    select = run_gpte("improve", "x", "--select", cwd=project, env=env_for(llm_server))
    assert select.returncode == 2 and "--select needs a terminal" in select.stderr
    image = project / "shot.png"
    image.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 16)
    no_images = run_gpte(
        "improve",
        "x",
        "--model",
        "gpt-4",
        "--image",
        str(image),
        cwd=project,
        env=env_for(llm_server),
    )
    assert no_images.returncode == 2 and "does not accept images" in no_images.stderr
    assert llm_server.requests == []


def test_prompt_from_file_and_stdin(project: Path, llm_server: LLMServer) -> None:
    (project.parent / "prompt.txt").write_text("add logging\n")
    llm_server.queue(CLEAN_DIFF, CLEAN_DIFF)
    from_file = run_gpte(
        "improve",
        "-f",
        str(project.parent / "prompt.txt"),
        "src/app.py",
        "--model",
        "gpt-4o",
        cwd=project,
        env=env_for(llm_server),
    )
    assert from_file.returncode == 0, from_file.stderr
    assert "README.md" not in llm_server.requests[0].body["messages"][-1]["content"]
    from_stdin = run_gpte(
        "improve",
        "-",
        "--model",
        "gpt-4o",
        "--branch",
        "logs",
        cwd=project,
        input="add logging from stdin\n",
        env=env_for(llm_server),
    )
    assert from_stdin.returncode == 0, from_stdin.stderr
    assert "add logging from stdin" in git(project, "log", "-1", "--format=%B", "logs")


@pytest.mark.parametrize("signame", ["SIGINT", "SIGTERM", "SIGHUP"])
def test_ctrl_c_while_streaming_commits_nothing_and_is_logged(
    project: Path, llm_server: LLMServer, signame: str
) -> None:
    import os
    import signal
    import subprocess
    import time

    from tests.helpers.llm_server import Reply

    before = Snapshot.take(project)
    llm_server.queue(Reply(CLEAN_DIFF, delay=0.2))
    env = dict(os.environ, **env_for(llm_server))
    proc = subprocess.Popen(
        # git-gpte itself: `git` would report its own death by SIGINT, not the tool's exit code
        ["git-gpte", "improve", "add logging", "--model", "gpt-4o"],
        cwd=project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + 30
    while not llm_server.requests and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)  # some of the reply has streamed
    # Ctrl-C on a terminal, a CI cancel, a closed terminal: all end the run the same way
    os.killpg(proc.pid, getattr(signal, signame))
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    before.assert_unchanged(project)
    runs = json.loads(run_gpte("log", "--json", cwd=project).stdout)
    assert runs[0]["outcome"] == "interrupted"


def test_unsafe_path_in_the_reply_commits_nothing(project: Path, llm_server: LLMServer) -> None:
    before = Snapshot.take(project)
    escape = "```diff\n--- /dev/null\n+++ ../outside.py\n@@ -0,0 +1 @@\n+x = 1\n```\n"
    llm_server.queue(escape)
    code, _, err = improve(project, llm_server, "add a file")
    assert code == 7, err
    assert "outside.py" in err and "Traceback" not in err
    assert not (project.parent / "outside.py").exists()
    before.assert_unchanged(project)


def test_truncated_reply_and_rate_limits(project: Path, llm_server: LLMServer) -> None:
    from tests.helpers.llm_server import Reply

    llm_server.queue(Fault(status=429, headers={"retry-after": "0"}), Reply(CLEAN_DIFF))
    code, _, err = improve(project, llm_server, "add logging")
    assert code == 0, err
    assert len(llm_server.requests) == 2
    llm_server.queue(Reply(CLEAN_DIFF[:120], finish_reason="length"))
    code, _, err = improve(project, llm_server, "add logging", "--branch", "cut")
    assert code == 5, err
    assert "Traceback" not in err


def test_network_error_is_one_line(project: Path) -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed once the block ends: nothing listens there
    result = run_gpte(
        "improve",
        "add logging",
        "--model",
        "gpt-4o",
        cwd=project,
        env={
            "OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1",
            "OPENAI_API_KEY": "k",
            "GPTE_MAX_RETRIES": "1",
            "GPTE_MAX_RETRY_SECONDS": "2",
        },
    )
    assert result.returncode == 5, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith("git-gpte: error:")


def test_repository_chosen_by_git_dir_and_work_tree(tmp_path: Path, llm_server: LLMServer) -> None:
    # `git --git-dir=X --work-tree=Y gpte` exports GIT_DIR/GIT_WORK_TREE to the subcommand (a
    # dotfiles-style repository has no .git in its work tree at all); hooks set a relative GIT_DIR.
    source = make_repo(tmp_path / "source", {"src/app.py": APP})
    git(tmp_path, "clone", "-q", "--bare", str(source), "dot.git")
    work = tmp_path / "work"
    (work / "src").mkdir(parents=True)
    location = {"GIT_DIR": str(tmp_path / "dot.git"), "GIT_WORK_TREE": str(work)}
    flags = (f"--git-dir={location['GIT_DIR']}", f"--work-tree={work}")
    git(work, *flags, "checkout", "-q", "-f", "main")
    before = Snapshot.take(source)
    llm_server.queue(CLEAN_DIFF)
    result = run_gpte(
        "improve",
        "add logging",
        "app.py",
        "--model",
        "gpt-4o-mini",
        cwd=work / "src",
        env={**env_for(llm_server), **location},
    )
    assert result.returncode == 0, result.stderr
    assert "src/app.py" in result.stdout
    shown = git(tmp_path / "dot.git", "show", "gpte/add-logging:src/app.py")
    assert 'log.info("starting")' in shown
    assert git(work, *flags, "status", "--porcelain") == ""
    assert (tmp_path / "dot.git" / "gpte").is_dir() and not (work / ".git").exists()

    llm_server.queue(CLEAN_DIFF)
    hook_style = run_gpte(
        "improve",
        "add logging",
        "--model",
        "gpt-4o-mini",
        cwd=source,
        env={**env_for(llm_server), "GIT_DIR": ".git"},
    )
    assert hook_style.returncode == 0, hook_style.stderr
    before.assert_unchanged(source, new_branches=("gpte/add-logging",))

    bare_only = run_gpte(
        "improve", "-n", "x", cwd=tmp_path, env={"GIT_DIR": str(tmp_path / "dot.git")}
    )
    assert bare_only.returncode == 3 and "bare repository" in bare_only.stderr


def test_a_refusal_the_retry_leaves_out_is_still_reported(
    project: Path, llm_server: LLMServer
) -> None:
    readme = "```diff\n--- README.md\n+++ README.md\n@@ -1 +1,2 @@\n # demo\n+More.\n```\n"
    # First answer: README edit applies, app.py hunk is refused. The retry only touches
    # README again and says nothing of app.py: its refusal must survive.
    readme_again = readme.replace("+More.", "+More!").replace("@@ -1 +1,2 @@", "@@ -1,2 +1,2 @@")
    readme_again = readme_again.replace(" # demo\n+More!", " # demo\n-More.\n+More!")
    llm_server.queue(readme + "\n" + INVENTED_CONTEXT, readme_again)
    code, out, err = improve(project, llm_server, "docs and greeting", "--max-retries", "1")
    assert code == 1, err
    assert "refused" in out and "src/app.py" in out
    body = git(project, "log", "-1", "--format=%B", "gpte/docs-greeting")
    assert "Refused hunks" in body and "src/app.py" in body
    assert show(project, "gpte/docs-greeting", "README.md") == "# demo\nMore!\n"


def test_from_worktree_with_checkout_switches_keeping_the_users_work(
    project: Path, llm_server: LLMServer
) -> None:
    write_files(project, {"README.md": "# demo\n\nmine\n", "notes.txt": "untracked\n"})
    git(project, "add", "README.md")
    write_files(project, {"README.md": "# demo\n\nmine, unstaged too\n"})
    llm_server.queue(CLEAN_DIFF)
    code, _, err = improve(project, llm_server, "add logging", "--from-worktree", "--checkout")
    assert code == 0, err
    assert git(project, "symbolic-ref", "--short", "HEAD").strip() == "gpte/add-logging"
    assert (project / "README.md").read_text() == "# demo\n\nmine, unstaged too\n"
    assert (project / "src/app.py").read_text().startswith("import logging\n")
    assert (project / "notes.txt").read_text() == "untracked\n"
    assert git(project, "status", "--porcelain", "--untracked-files=no") == ""


def test_from_worktree_checkout_refuses_when_a_file_is_in_the_way(
    project: Path, llm_server: LLMServer
) -> None:
    write_files(project, {"README.md": "# demo\n\nmine\n", "src/util.py": "# my own, untracked\n"})
    index = (project / ".git" / "index").read_bytes()
    llm_server.queue(NEW_AND_DELETE.split("```diff\n--- README.md")[0])
    code, _, err = improve(project, llm_server, "add util", "--from-worktree", "--checkout")
    assert code == 3, err
    assert "switching to it is not safe" in err
    assert git(project, "symbolic-ref", "--short", "HEAD").strip() == "main"
    assert (project / ".git" / "index").read_bytes() == index
    assert (project / "src/util.py").read_text() == "# my own, untracked\n"
    assert (project / "README.md").read_text() == "# demo\n\nmine\n"


def test_a_repaired_hunk_is_shown_in_the_output_json_log_and_commit(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    # Placed far from its @@ line after leaving out two lines the file does not have: applied,
    # and said so everywhere a user looks.
    module = "".join(f"def f{i}(x):\n    return x + {i}\n" for i in range(200))
    repo = make_repo(tmp_path / "r", {"m.py": module})
    repaired = (
        "```diff\n--- m.py\n+++ m.py\n@@ -60,7 +60,7 @@\n def f150(x):\n # an invented line\n"
        "-    return x + 150\n+    return x - 150\n # another invented line\n def f151(x):\n```\n"
    )
    llm_server.queue(repaired, repaired)
    code, out, err = improve(repo, llm_server, "subtract in f150")
    assert code == 0, err
    assert "corrected: corrected m.py hunk 1 at line 301: left out 2 line(s)" in out
    code, out, err = improve(repo, llm_server, "subtract in f150", "--json", "-b", "again")
    data = json.loads(out)
    assert data["corrected"] and "placed at line 301, not 60" in data["corrected"][0]
    message = git(repo, "log", "-1", "--format=%B", "again")
    assert "Corrected while applying:" in message and "placed at line 301, not 60" in message
    shown = run_gpte("log", "show", data["run_id"], cwd=repo).stdout
    assert "edits: diff format, 1 attempt(s)" in shown and "placed at line 301, not 60" in shown


def test_select_starts_from_the_ranked_selection(tmp_path: Path, llm_server: LLMServer) -> None:
    from tests.helpers.pty_run import run_in_pty

    repo = make_repo(
        tmp_path / "r",
        {
            "src/app.py": APP,
            "src/greeting_rules.py": "GREETING = 'hello'\n",
            "docs/notes.md": "# notes\n",
            **{
                f"tools/other_{k}.py": "".join(
                    f"def tool_{k}_{i}():\n    return {i}\n\n\n" for i in range(40)
                )
                for k in range(12)
            },
        },
    )
    seen = tmp_path / "offered.txt"
    editor = tmp_path / "editor.py"
    # Keeps what it was offered, but sends tools/other.py too (uncommented).
    editor.write_text(
        "import sys, shutil\n"
        f"shutil.copy(sys.argv[1], {str(seen)!r})\n"
        "text = open(sys.argv[1]).read().replace('# tools/other_3.py', 'tools/other_3.py')\n"
        "open(sys.argv[1], 'w').write(text)\n"
    )
    llm_server.queue(CLEAN_DIFF)
    result = run_in_pty(
        [
            "git",
            "gpte",
            "improve",
            "change the greeting",
            "--select",
            "--model",
            "gpt-4o-mini",
            "--context-tokens",
            "600",
        ],
        cwd=repo,
        env={**env_for(llm_server), "EDITOR": f"{sys.executable} {editor}"},
    )
    assert result.returncode == 0, result.output
    offered = seen.read_text()
    listed = [line for line in offered.splitlines() if line and not line.startswith("#")]
    # the ranked selection, best first (alphabetical order would start with docs/notes.md)
    assert listed[0] in ("src/greeting_rules.py", "src/app.py") and "src/app.py" in listed
    assert "# tools/other_3.py" in offered  # the rest, commented out
    sent = llm_server.requests[0].body["messages"][-1]["content"]
    assert "File: tools/other_3.py" in sent and "File: src/app.py" in sent


def test_one_improve_starts_few_git_processes_and_lists_the_base_once(
    project: Path, llm_server: LLMServer, tmp_path: Path
) -> None:
    # Every answer that cannot change during a run is asked once: the base's files, HEAD,
    # the common git directory, the branches (not one question per candidate name).
    trace = tmp_path / "trace.txt"
    llm_server.queue(CLEAN_DIFF)
    result = run_gpte(
        "improve", "add logging", "--model", "gpt-4o-mini", cwd=project,
        env={**env_for(llm_server), "GIT_TRACE": str(trace)}, process=True,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    commands = [
        line.split("built-in: git ", 1)[1]
        for line in trace.read_text().splitlines()
        if "built-in: git " in line
    ]
    gpte_calls = [c for c in commands if not c.startswith("gpte ")]  # git running git-gpte
    assert len(gpte_calls) <= 25, "\n".join(gpte_calls)
    base = git(project, "rev-parse", "HEAD").strip()
    assert sum(1 for c in gpte_calls if c.startswith(f"ls-tree -r -z -l --full-tree {base}")) == 1
    assert sum(1 for c in gpte_calls if "--git-common-dir" in c) == 1


WINDOW_ERROR = Fault(400, message="Requested tokens (17336) exceed context window of 16384")


def test_a_retry_over_the_servers_window_is_sent_short(
    project: Path, llm_server: LLMServer
) -> None:
    # A local server that fails a stream before its first character (as llama-cpp-python does
    # for a request over its window) is asked once more without streaming, which says why; the
    # retry then goes without the earlier answer.
    llm_server.queue(INVENTED_CONTEXT, Cut(""), WINDOW_ERROR, SLOPPY_DIFF)
    code, _, err = improve(project, llm_server, "change greeting")
    assert code == 0, err
    streamed = [r.body.get("stream", False) for r in llm_server.requests]
    assert streamed == [True, True, False, True]
    assert [len(r.body["messages"]) for r in llm_server.requests] == [2, 4, 4, 3]
    assert "without the earlier answers" in err and "cut off mid-stream" in err
    assert 'return "Hello, " + name + "!"' in show(project, "gpte/change-greeting", "src/app.py")


def test_a_retry_that_never_fits_ends_in_the_refusal(project: Path, llm_server: LLMServer) -> None:
    before = Snapshot.take(project)
    llm_server.queue(INVENTED_CONTEXT, WINDOW_ERROR, WINDOW_ERROR)
    code, _, err = improve(project, llm_server, "change greeting")
    assert code == 6, err
    assert "not asking again" in err
    assert "nothing committed" in err.strip().splitlines()[-1]
    assert Snapshot.take(project) == before
