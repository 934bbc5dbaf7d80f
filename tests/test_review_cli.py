"""``git gpte review``: consent, answers from a pipe and a terminal, notes, run log, export.

Runs come from the real ``git gpte improve`` against the scripted local LLM server, so the
review reads the same run log and commits a user's would.
"""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path

import pytest

from tests.conftest import run_gpte
from tests.helpers.gitrepo import Snapshot, git, make_repo
from tests.helpers.llm_server import LLMServer
from tests.helpers.pty_run import run_in_pty

APP = "def greet(name):\n    return 'hello ' + name\n"

GOOD = """\
```diff
--- app.py
+++ app.py
@@ -1,2 +1,2 @@
 def greet(name):
-    return 'hello ' + name
+    return 'Hello, ' + name + '!'
```
"""

BAD = """\
```diff
--- app.py
+++ app.py
@@ -1,2 +1,2 @@
 def greet_everybody(names):
-    return ', '.join(names)
+    return '; '.join(names)
```
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "proj", {"app.py": APP})


def improve(project: Path, server: LLMServer, prompt: str, *replies: str) -> str:
    """Run improve; return the run id (from the log, so failed runs work too)."""
    server.queue(*(replies or (GOOD,)))
    result = run_gpte(
        "improve",
        prompt,
        "--model",
        "gpt-4o-mini",
        "--max-retries",
        str(max(len(replies) - 1, 0)),
        cwd=project,
        env={"OPENAI_BASE_URL": server.openai_base_url, "OPENAI_API_KEY": "sk-test"},
    )
    assert "Traceback" not in result.stderr
    runs = json.loads(run_gpte("log", "--json", cwd=project).stdout)
    return str(runs[0]["id"])


def review(project: Path, *args: str, input: str = "") -> tuple[int, str, str]:
    result = run_gpte("review", *args, cwd=project, input=input)
    assert "Traceback" not in result.stderr
    return result.returncode, result.stdout, result.stderr


def note(project: Path, commit: str) -> dict:
    return json.loads(git(project, "notes", "--ref", "gpte", "show", commit))


def config(project: Path, key: str) -> str:
    return git(project, "config", "--get", key, check=False).strip()


def commit_of(project: Path, run_id: str) -> str:
    data = json.loads(run_gpte("log", "show", run_id, "--json", cwd=project).stdout)
    return str(data["commit"])


def exported(project: Path) -> list[dict]:
    code, out, err = review(project, "--export", "-")
    assert code == 0, err
    return [json.loads(line) for line in out.splitlines()]


def test_consent_given_answers_piped_note_readable_with_plain_git(
    project: Path, llm_server: LLMServer
) -> None:
    run_id = improve(project, llm_server, "friendlier greeting")
    before = Snapshot.take(project)

    code, out, err = review(project, input="y\ny\nn\nu\nworked, but the tests were missing\n")

    assert code == 0, err
    assert config(project, "gpte.feedback") == "true"
    commit = commit_of(project, run_id)
    data = note(project, commit)  # plain git reads it
    assert data["git-gpte-reviews"] == 1 and len(data["reviews"]) == 1
    record = data["reviews"][0]
    assert record["run_id"] == run_id and record["model"] == "gpt-4o-mini"
    assert record["prompt"] == "friendlier greeting"
    assert (record["ran"], record["perfect"], record["useful"]) == ("yes", "no", "unknown")
    assert record["comment"] == "worked, but the tests were missing"
    assert record["commit"] == commit and record["reviewed_at"].endswith("Z")
    uuid.UUID(record["install_id"])  # a random id ...
    assert "Test User" not in json.dumps(record) and "test@example.com" not in json.dumps(record)
    assert config(project, "gpte.installId") == record["install_id"]  # ... kept in git config
    assert "git notes --ref gpte show" in err and "nothing was sent" in err
    assert out == ""  # questions and messages on stderr
    # the checkout is untouched: only refs/notes/gpte is new
    before.assert_unchanged(project, new_branches=())
    # and the run log has the same record
    assert exported(project) == [record]


def test_consent_refused_is_remembered_and_nothing_is_stored(
    project: Path, llm_server: LLMServer
) -> None:
    improve(project, llm_server, "friendlier greeting")
    code, _, err = review(project, input="n\n")
    assert code == 0, err
    assert config(project, "gpte.feedback") == "false"
    assert "will not be asked again" in err
    assert git(project, "show-ref", "--", "refs/notes/gpte", check=False) == ""
    # the second time nothing is asked, even with answers waiting on stdin
    code, _, err = review(project, input="y\ny\ny\ny\n\n")
    assert code == 0
    assert "feedback is off" in err and "Keep review records" not in err
    assert git(project, "show-ref", "--", "refs/notes/gpte", check=False) == ""
    assert exported(project) == []


def test_consent_remembered_and_a_second_review_replaces_the_first(
    project: Path, llm_server: LLMServer
) -> None:
    run_id = improve(project, llm_server, "friendlier greeting")
    assert review(project, input="y\ny\ny\ny\n\n")[0] == 0
    # consent is not asked again: the first line now answers the first question
    code, _, err = review(project, run_id[:6], input="n\nn\nn\nchanged my mind\n")
    assert code == 0, err
    assert "Keep review records" not in err
    reviews = note(project, commit_of(project, run_id))["reviews"]
    assert len(reviews) == 1
    assert (reviews[0]["ran"], reviews[0]["comment"]) == ("no", "changed my mind")
    assert len(exported(project)) == 1


def test_each_run_is_reviewed_on_its_own(project: Path, llm_server: LLMServer) -> None:
    first = improve(project, llm_server, "friendlier greeting")
    second = improve(project, llm_server, "another greeting")
    assert review(project, "--yes", first, input="y\ny\ny\n\n")[0] == 0
    assert review(project, second, input="y\nn\ny\n\n")[0] == 0
    assert commit_of(project, first) != commit_of(project, second)
    assert len(note(project, commit_of(project, second))["reviews"]) == 1
    assert sorted(r["run_id"] for r in exported(project)) == sorted([first, second])


def test_yes_and_no_flags_for_scripts(project: Path, llm_server: LLMServer) -> None:
    run_id = improve(project, llm_server, "friendlier greeting")
    code, _, err = review(project, "--no")
    assert code == 0 and config(project, "gpte.feedback") == "false"
    code, _, err = review(project, "--yes", input="u\nu\nu\n\n")
    assert code == 0, err
    assert config(project, "gpte.feedback") == "true"
    assert note(project, commit_of(project, run_id))["reviews"][0]["useful"] == "unknown"
    assert review(project, "--yes", "--no")[0] == 2


def test_invalid_answers_are_asked_again(project: Path, llm_server: LLMServer) -> None:
    run_id = improve(project, llm_server, "friendlier greeting")
    code, _, err = review(project, "--yes", input="maybe\nY\nsure\n\nn\nyes\n  \n")
    assert code == 0, err
    assert err.count("please answer y (yes), n (no) or u") == 3
    record = note(project, commit_of(project, run_id))["reviews"][0]
    assert (record["ran"], record["perfect"], record["useful"]) == ("yes", "no", "yes")
    assert record["comment"] == ""


def test_input_ending_early_stores_nothing(project: Path, llm_server: LLMServer) -> None:
    improve(project, llm_server, "friendlier greeting")
    code, _, err = review(project, "--yes", input="y\ny\n")
    assert code == 2
    assert "the input ended; nothing was stored" in err
    assert git(project, "show-ref", "--", "refs/notes/gpte", check=False) == ""
    assert exported(project) == []
    # consent questions too
    other = run_gpte("review", cwd=project, input="")
    assert other.returncode == 2 and "nothing was stored" in other.stderr


def test_failed_run_is_recorded_in_the_run_log_only(project: Path, llm_server: LLMServer) -> None:
    run_id = improve(project, llm_server, "greet everybody", BAD)
    code, _, err = review(project, "--yes", input="n\nn\nn\nthe diff did not apply\n")
    assert code == 0, err
    assert "run log (.git/gpte/runs.sqlite) only: the run produced no commit" in err
    assert git(project, "show-ref", "--", "refs/notes/gpte", check=False) == ""
    [record] = exported(project)
    assert record["run_id"] == run_id and record["commit"] is None
    assert record["outcome"] in ("refused", "no-edits")


def test_unknown_run_and_no_runs(project: Path, tmp_path: Path) -> None:
    code, _, err = review(project, "--yes")
    assert code == 2 and "no runs recorded yet" in err
    code, _, err = review(project, "--yes", "abcdef")
    assert code == 2
    outside = run_gpte("review", cwd=tmp_path)
    assert outside.returncode == 3 and "not a git repository" in outside.stderr


def test_export_to_a_file_and_records_from_fetched_notes(
    project: Path, llm_server: LLMServer, tmp_path: Path
) -> None:
    first = improve(project, llm_server, "friendlier greeting")
    assert review(project, "--yes", input="y\ny\ny\nfirst\n")[0] == 0
    second = improve(project, llm_server, "greet everybody", BAD)
    assert review(project, input="n\nn\nn\nsecond\n")[0] == 0
    target = tmp_path / "reviews.jsonl"
    code, _, err = review(project, "--export", str(target))
    assert code == 0 and "wrote 2 review record(s)" in err
    lines = [json.loads(line) for line in target.read_text().splitlines()]
    assert [(r["run_id"], r["comment"]) for r in lines] == [(first, "first"), (second, "second")]
    # a teammate who fetched the notes (and has no run log) exports the noted review
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(project), str(clone))
    git(clone, "fetch", "-q", "origin", "refs/notes/gpte:refs/notes/gpte")
    git(clone, "fetch", "-q", "origin", "refs/heads/*:refs/remotes/origin/*")
    assert [r["run_id"] for r in exported(clone)] == [first]


def test_note_written_by_someone_else_is_not_overwritten(
    project: Path, llm_server: LLMServer
) -> None:
    run_id = improve(project, llm_server, "friendlier greeting")
    commit = commit_of(project, run_id)
    git(project, "notes", "--ref", "gpte", "add", "-m", "my own note", commit)
    code, _, err = review(project, "--yes", input="y\ny\ny\n\n")
    assert code == 3 and "did not write" in err
    assert git(project, "notes", "--ref", "gpte", "show", commit).strip() == "my own note"


@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")
def test_review_on_a_terminal(project: Path, llm_server: LLMServer) -> None:
    run_id = improve(project, llm_server, "friendlier greeting")
    result = run_in_pty(
        ["git", "gpte", "review"],
        cwd=project,
        answers=["y", "y", "what?", "n", "y", "typed on a terminal"],
        prompt_marker="] ",
    )
    assert result.returncode == 0, result.output
    assert "Keep review records in this repository? [y/n]" in result.output
    assert result.output.count("please answer y (yes), n (no) or u") == 1
    record = note(project, commit_of(project, run_id))["reviews"][0]
    assert (record["ran"], record["perfect"], record["useful"]) == ("yes", "no", "yes")
    assert record["comment"] == "typed on a terminal"


def test_hint_after_improve_only_on_a_terminal_and_never_in_ci(
    project: Path, llm_server: LLMServer
) -> None:
    env = {"OPENAI_BASE_URL": llm_server.openai_base_url, "OPENAI_API_KEY": "sk-test"}
    argv = ["git", "gpte", "improve", "greeting one", "--model", "gpt-4o-mini"]
    llm_server.queue(GOOD)
    on_tty = run_in_pty(argv, cwd=project, env=env)
    assert on_tty.returncode == 0, on_tty.output
    run_id = json.loads(run_gpte("log", "--json", cwd=project).stdout)[0]["id"]
    assert f"How did it go? git gpte review {run_id}" in on_tty.output
    # in CI, or with pipes, or with feedback turned off: no hint
    llm_server.queue(GOOD)
    in_ci = run_in_pty([*argv[:3], "greeting two", *argv[4:]], cwd=project, env={**env, "CI": "1"})
    assert in_ci.returncode == 0 and "How did it go?" not in in_ci.output
    llm_server.queue(GOOD)
    piped = run_gpte(*argv[2:3], "greeting three", *argv[4:], cwd=project, env=env)
    assert piped.returncode == 0 and "How did it go?" not in piped.stdout + piped.stderr
    git(project, "config", "gpte.feedback", "false")
    llm_server.queue(GOOD)
    off = run_in_pty([*argv[:3], "greeting four", *argv[4:]], cwd=project, env=env)
    assert off.returncode == 0 and "How did it go?" not in off.output


def test_hint_after_heal_on_a_terminal(tmp_path: Path, llm_server: LLMServer) -> None:
    project = make_repo(tmp_path / "healthy", {"run.sh": "echo fine\n"})
    env = {"OPENAI_BASE_URL": llm_server.openai_base_url, "OPENAI_API_KEY": "sk-test"}
    result = run_in_pty(
        ["git", "gpte", "heal", "--yes", "--model", "gpt-4o-mini"], cwd=project, env=env
    )
    assert result.returncode == 0, result.output
    run_id = json.loads(run_gpte("log", "--json", cwd=project).stdout)[0]["id"]
    assert f"How did it go? git gpte review {run_id}" in result.output
    piped = run_gpte("heal", "--yes", "--model", "gpt-4o-mini", cwd=project, env=env)
    assert piped.returncode == 0 and "How did it go?" not in piped.stdout + piped.stderr


def test_default_run_is_the_heal_not_its_last_fix_attempt(project: Path) -> None:
    from git_gpte.git import Repository
    from git_gpte.llm import RunLog

    log = RunLog(Repository.discover(project).state_dir())
    heal = log.start("heal", prompt="make it run", model="gpt-4o")
    attempt = log.start("heal-attempt", prompt="internal fix instruction", model="gpt-4o")
    attempt.finish("ok")
    heal.finish("failed")
    log.close()
    code, _, err = review(project, "--yes", input="n\nn\nu\n\n")
    assert code == 0, err
    [record] = exported(project)
    assert record["run_id"] == heal.id and record["prompt"] == "make it run"
