"""``git gpte action`` with the heal pipeline: the pre-merge check on ``pull_request`` events, and
self-heal after an issue's edit. Same local servers and bare ``origin`` as action/test_flow.py."""

from __future__ import annotations

from pathlib import Path

from tests.helpers.action_world import (
    BROKEN,
    FIX,
    RUN_SH,
    TOKEN,
    USELESS,
    World,
    issue_payload,
    labeled_event,
    make_world,
    status_comments,
)
from tests.helpers.action_world import pull_request_event as pr_event
from tests.helpers.github_server import GitHubServer
from tests.helpers.gitrepo import git
from tests.helpers.llm_server import LLMServer

REPO = "octo/demo"


def pr_world(tmp_path: Path, gh: GitHubServer, llm: LLMServer, check: str) -> tuple[World, str]:
    world = make_world(tmp_path, gh, llm, {"run.sh": RUN_SH, "check.py": check}, repository=REPO)
    gh.set_permission(REPO, "alice", "write")
    head = world.remote_refs()["refs/heads/main"]
    git(world.origin, "update-ref", "refs/heads/feature", head)
    gh.add_pull(REPO, 40, "feature", "main", "Some change")
    return world, head


def obeyed(stdout: str) -> list[tuple[str, bool]]:
    """Each log line and whether the runner would obey it as a workflow command: not inside a
    ``::stop-commands::TOKEN`` … ``::TOKEN::`` block (what the runner itself tracks)."""
    lines, stopped = [], None
    for line in stdout.splitlines():
        if stopped is not None:
            if line == f"::{stopped}::":
                stopped = None
            lines.append((line, False))
            continue
        if line.startswith("::stop-commands::"):
            stopped = line.removeprefix("::stop-commands::")
        lines.append((line, True))
    return lines


def groups(stdout: str) -> list[tuple[str, list[str]]]:
    """The obeyed ``::group::`` sections of the log: (title, lines inside)."""
    found: list[tuple[str, list[str]]] = []
    current: list[str] | None = None
    for line, live in obeyed(stdout):
        if live and line.startswith("::group::"):
            current = []
            found.append((line.removeprefix("::group::"), current))
        elif live and line == "::endgroup::":
            current = None
        elif current is not None and not live and not line.startswith("::"):
            current.append(line)
    return found


def test_green_pull_request_gets_a_note_and_no_model_call(
    tmp_path: Path, gh: GitHubServer, llm_server: LLMServer
) -> None:
    world, head = pr_world(tmp_path, gh, llm_server, BROKEN.replace("1 + 1", "1 + 2"))

    run = world.run("pull_request", pr_event(40, "feature", head, REPO))

    assert run.code == 0, run.proc.stdout + run.proc.stderr
    assert llm_server.requests == []
    assert world.remote_refs()["refs/heads/feature"] == head
    [status] = [c["body"] for c in gh.issue_comments(REPO, 40)]
    assert "check passed" in status
    assert run.outputs["success"] == "true" and run.outputs["attempts"] == "0"
    assert run.outputs["pr-url"] == f"https://github.com/{REPO}/pull/40"

    # the next push edits the same status comment instead of adding one per push
    again = world.run("pull_request", pr_event(40, "feature", head, REPO, action="synchronize"))
    assert again.code == 0, again.proc.stdout + again.proc.stderr
    assert len(gh.issue_comments(REPO, 40)) == 1


def test_red_pull_request_is_healed_and_the_fix_pushed(
    tmp_path: Path, gh: GitHubServer, llm_server: LLMServer
) -> None:
    world, head = pr_world(tmp_path, gh, llm_server, BROKEN)
    llm_server.queue(FIX)

    run = world.run("pull_request", pr_event(40, "feature", head, REPO, action="synchronize"))

    assert run.code == 0, run.proc.stdout + run.proc.stderr
    new_head = world.remote_refs()["refs/heads/feature"]
    assert new_head != head
    assert git(world.origin, "merge-base", "--is-ancestor", head, new_head) == ""
    assert "1 + 2" in git(world.origin, "show", f"{new_head}:check.py")
    [status] = [c["body"] for c in gh.issue_comments(REPO, 40)]
    assert "healed" in status and "feature" in status
    assert run.outputs["success"] == "true" and int(run.outputs["attempts"]) >= 1
    # the job log: each run's output in its own collapsed group, never obeyed as commands
    sections = groups(run.proc.stdout)
    assert [title for title, _ in sections] == [
        "git-gpte check: bash run.sh",
        "git-gpte heal attempt 1/3: bash run.sh",
    ]
    assert any("expected 3, got 2" in line for line in sections[0][1])
    assert "ok" in sections[1][1]
    assert not any(live and "expected 3" in line for line, live in obeyed(run.proc.stdout))
    # the program under test never saw the token
    for request in llm_server.requests:
        assert TOKEN not in str(request.body)


def test_heal_that_fails_comments_the_output_tail(
    tmp_path: Path, gh: GitHubServer, llm_server: LLMServer
) -> None:
    world, head = pr_world(tmp_path, gh, llm_server, BROKEN)
    llm_server.queue(*[USELESS] * 8)

    run = world.run("pull_request", pr_event(40, "feature", head, REPO), GPTE_MAX_ATTEMPTS="2")

    assert run.code == 8, run.proc.stdout + run.proc.stderr
    assert world.remote_refs()["refs/heads/feature"] == head
    [status] = [c["body"] for c in gh.issue_comments(REPO, 40)]
    assert "check failed" in status and "expected 3, got 2" in status
    assert run.outputs["success"] == "false"
    # every attempt's output is in the job log, and the log ends with why it failed
    assert len(groups(run.proc.stdout)) == 2  # the check, then the one attempt (same failure)
    assert all(any("expected 3, got 2" in x for x in lines) for _, lines in groups(run.proc.stdout))
    why = "pre-merge check failed: `bash run.sh` still fails on feature"
    [error] = [
        line for line, live in obeyed(run.proc.stdout) if live and line.startswith("::error")
    ]
    assert error.startswith("::error title=git-gpte pre-merge check::" + why)
    assert run.proc.stderr.strip().splitlines()[-1].startswith("git-gpte: error: " + why)
    assert "after 1 heal attempt(s): attempt 1 left the same failure" in run.proc.stderr


def test_fork_pull_request_is_not_touched(
    tmp_path: Path, gh: GitHubServer, llm_server: LLMServer
) -> None:
    world, head = pr_world(tmp_path, gh, llm_server, BROKEN)
    event = pr_event(40, "feature", head, REPO, head_repository="someone/fork")

    run = world.run("pull_request", event)

    assert run.code == 0 and run.outputs["skipped"] == "true"
    assert "fork" in run.proc.stdout
    assert llm_server.requests == [] and gh.calls("POST") == []


def test_issue_edit_is_checked_by_self_heal(
    tmp_path: Path, gh: GitHubServer, llm_server: LLMServer
) -> None:
    world = make_world(
        tmp_path, gh, llm_server, {"run.sh": RUN_SH, "check.py": BROKEN}, repository=REPO
    )
    gh.set_permission(REPO, "alice", "write")
    issue = issue_payload(41, "Make the total three", "check.py should add 1 and 2")
    gh.add_issue(REPO, 41, issue["title"], issue["body"])
    llm_server.queue(FIX)

    run = world.run("issues", labeled_event(issue, REPO))

    assert run.code == 0, run.proc.stdout + run.proc.stderr
    [pr] = gh.pulls(REPO)
    body = gh.repos[REPO].issues[pr["number"]]["body"]
    assert "**Self-heal:** passed." in body and "- the edit `" in body
    assert run.outputs["success"] == "true"


def test_fix_goes_to_a_follow_up_pull_request_when_the_branch_refuses_the_push(
    tmp_path: Path, gh: GitHubServer, llm_server: LLMServer
) -> None:
    world, head = pr_world(tmp_path, gh, llm_server, BROKEN)
    # A stale lock on the remote branch makes the push to it fail, as branch protection would.
    (world.origin / "refs" / "heads" / "feature.lock").write_text(head + "\n")
    llm_server.queue(FIX)

    run = world.run("pull_request", pr_event(40, "feature", head, REPO))

    assert run.code == 0, run.proc.stdout + run.proc.stderr
    refs = world.remote_refs()
    assert refs["refs/heads/feature"] == head
    follow_up = [p for p in gh.pulls(REPO) if p["number"] != 40]
    assert [(p["head"], p["base"]) for p in follow_up] == [("gpte/heal-40", "feature")]
    assert "1 + 2" in git(world.origin, "show", "gpte/heal-40:check.py")
    [status] = [c["body"] for c in gh.issue_comments(REPO, 40)]
    assert "follow-up pull request" in status
    assert run.outputs["branch"] == "gpte/heal-40"


def test_the_program_under_test_never_sees_the_token(
    tmp_path: Path, gh: GitHubServer, llm_server: LLMServer
) -> None:
    world = make_world(
        tmp_path,
        gh,
        llm_server,
        {
            "run.sh": "env | grep -i -E 'token|gpte|github|key' | sort; echo env-listed; exit 3\n",
            "check.py": BROKEN,
        },
        repository=REPO,
    )
    gh.set_permission(REPO, "alice", "write")
    head = world.remote_refs()["refs/heads/main"]
    git(world.origin, "update-ref", "refs/heads/feature", head)
    gh.add_pull(REPO, 40, "feature", "main")

    llm_server.queue(USELESS)

    run = world.run("pull_request", pr_event(40, "feature", head, REPO), GPTE_MAX_ATTEMPTS="1")

    assert run.code == 8, run.proc.stdout
    [status] = [c["body"] for c in gh.issue_comments(REPO, 40)]
    assert "still fails" in status and "env-listed" in status, run.proc.stdout
    assert TOKEN not in status and TOKEN not in run.proc.stdout.replace(f"::add-mask::{TOKEN}", "")
    assert "sk-test-key" not in status
    assert "GITHUB_TOKEN" not in status and "GPTE_GITHUB_TOKEN" not in status


def test_heal_docker_input_runs_the_check_in_docker(
    tmp_path: Path, gh: GitHubServer, llm_server: LLMServer
) -> None:
    # No Docker engine answers here, so the input's effect shows as Docker's clear refusal,
    # before any model call and without pushing anything.
    world, head = pr_world(tmp_path, gh, llm_server, BROKEN)

    run = world.run("pull_request", pr_event(40, "feature", head, REPO), GPTE_HEAL_DOCKER="true")

    assert run.code == 4, run.proc.stdout + run.proc.stderr
    assert "docker" in (run.proc.stdout + run.proc.stderr).lower()
    assert llm_server.requests == []
    assert world.remote_refs()["refs/heads/feature"] == head


def test_a_healed_issue_edit_links_each_fix_and_its_files_in_the_status(
    tmp_path: Path, gh: GitHubServer, llm_server: LLMServer
) -> None:
    world = make_world(
        tmp_path, gh, llm_server, {"run.sh": RUN_SH, "check.py": BROKEN}, repository=REPO
    )
    gh.set_permission(REPO, "alice", "write")
    issue = issue_payload(42, "Make the check pass", "check.py should add 1 and 2")
    gh.add_issue(REPO, 42, issue["title"], issue["body"])
    llm_server.queue(USELESS, FIX)  # the edit does not fix it; heal attempt 1 does

    run = world.run("issues", labeled_event(issue, REPO))

    assert run.code == 0, run.proc.stdout + run.proc.stderr
    [status] = status_comments(gh, 42)
    assert "**Self-heal:** the check passed after 1 heal attempt(s)" in status
    fix = git(world.origin, "rev-parse", "refs/heads/gpte/issue-42").strip()
    assert (
        f"- fix 1: [`{fix[:12]}`](https://github.com/{REPO}/commit/{fix}) changed `check.py`"
        in (status)
    )
