"""The pull request's body tells the story of every run: the issue run, a later ``/gpte``
comment, review comments; with the request, the files sent, tokens, what was applied and refused,
each heal attempt and the cost. End to end through ``git gpte action`` against the local GitHub
server, plus the stored form read back as untrusted data."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest

from git_gpte.action.story import Iteration, read_story, story_markdown, with_iteration
from tests.helpers.action_world import (
    APP,
    BAD_DIFF,
    BROKEN,
    FIX,
    FIX_DIFF,
    RUN_SH,
    SECOND_DIFF,
    USELESS,
    World,
    comment_event,
    issue_payload,
    labeled_event,
    make_world,
    pull_request_event,
    review_comment_event,
)
from tests.helpers.github_server import GitHubServer
from tests.helpers.gitrepo import git
from tests.helpers.llm_server import LLMServer

REPO = "octo/demo"


@pytest.fixture
def world(tmp_path: Path, gh: GitHubServer, llm_server: LLMServer) -> World:
    w = make_world(tmp_path, gh, llm_server, {"src/app.py": APP, "README.md": "# demo\n"})
    gh.set_permission(REPO, "alice", "write")
    return w


def body_of(gh: GitHubServer, number: int) -> str:
    return str(gh.repos[REPO].issues[number]["body"])


def test_each_run_adds_its_section_to_the_pull_request(world: World, gh: GitHubServer) -> None:
    title = "Capitalise the `greeting` <img src=x onerror=alert(1)> @octo/owners"
    issue = issue_payload(7, title, "Please capitalise.")
    gh.add_issue(REPO, 7, title, "Please capitalise.")
    world.llm.queue(FIX_DIFF, SECOND_DIFF)

    first = world.run("issues", labeled_event(issue, REPO))
    assert first.code == 0, first.proc.stdout + first.proc.stderr
    [pr] = gh.pulls(REPO)
    body = body_of(gh, pr["number"])
    assert "### What git-gpte did" in body and "#### 1. issue #7 · commit `" in body
    # the request, quoted in a fence: nothing in it renders as HTML, markup or a mention
    assert "```text\nCapitalise the `greeting` <img src=x onerror=alert(1)> @octo/owners" in body
    assert "<details><summary>2 file(s)</summary>" in body  # what was sent
    assert "`README.md`, `src/app.py`" in body
    assert "**Applied:** 1 hunk(s), changing `src/app.py`." in body
    assert "**Self-heal:** not run" in body
    assert "**Total:** 1 run(s)" in body and "tokens in" in body
    assert "[Workflow run](https://github.com/octo/demo/actions/runs/4242)" in body

    again = world.run("issue_comment", comment_event(issue, REPO, "/gpte greet everyone"))
    assert again.code == 0, again.proc.stdout + again.proc.stderr
    body = body_of(gh, pr["number"])
    assert "#### 1. issue #7" in body and "#### 2. /gpte comment" in body
    assert "```text\ngreet everyone\n```" in body
    assert "**Total:** 2 run(s)" in body
    [stored] = [line for line in body.splitlines() if line.startswith("<!-- git-gpte-story ")]
    assert [it.kind for it in read_story(body)] == ["issue #7", "/gpte comment"]
    assert stored.endswith(" -->")


def test_refusals_and_heal_attempts_are_in_the_story(
    tmp_path: Path, gh: GitHubServer, llm_server: LLMServer
) -> None:
    world = make_world(tmp_path, gh, llm_server, {"run.sh": RUN_SH, "check.py": BROKEN})
    gh.set_permission(REPO, "alice", "write")
    issue = issue_payload(8, "Make the check pass", "It says 2.")
    gh.add_issue(REPO, 8, issue["title"], "It says 2.")
    # the edit changes nothing useful and has a hunk that cannot be placed; heal fixes it
    useless_and_bad = USELESS + "\n" + BAD_DIFF.replace("src/app.py", "check.py")
    llm_server.queue(
        useless_and_bad,
        BAD_DIFF.replace("src/app.py", "check.py"),
        BAD_DIFF.replace("src/app.py", "check.py"),
        FIX,
    )

    run = world.run("issues", labeled_event(issue, REPO))

    assert run.code == 1, run.proc.stdout + run.proc.stderr  # a hunk was refused
    [pr] = gh.pulls(REPO)
    body = body_of(gh, pr["number"])
    assert "**Refused** (1, **not** applied):" in body and "- `check.py hunk" in body
    assert "**Check** `bash run.sh`:" in body
    assert "- the edit `" in body and ": **failed** `` `bash run.sh` at " in body
    assert "exited with code 1" in body
    assert "- heal attempt 1 `" in body and "(changed `check.py`): **passed**" in body
    assert "**Self-heal:** passed." in body


def test_review_comments_extend_a_story_and_leave_a_persons_description_alone(
    world: World, gh: GitHubServer
) -> None:
    head = world.remote_refs()["refs/heads/main"]
    for branch in ("gpte/issue-1", "feature"):
        git(world.origin, "update-ref", f"refs/heads/{branch}", head)
    gh.add_pull(REPO, 20, "gpte/issue-1", "main", "Ours")
    earlier = Iteration(kind="issue #1", request="capitalise", commit=head, tokens_in=5)
    gh.repos[REPO].issues[20]["body"] = with_iteration("Closes #1", None, earlier)
    gh.add_pull(REPO, 21, "feature", "main", "Theirs")
    gh.repos[REPO].issues[21]["body"] = "My own description."
    world.llm.queue(FIX_DIFF, FIX_DIFF)

    for number in (20, 21):
        ask = gh.add_review_comment(
            REPO, number, "/gpte capitalise", user="alice", path="src/app.py", line=2
        )
        run = world.run("pull_request_review_comment", review_comment_event(gh, ask, number))
        assert run.code == 0, run.proc.stdout + run.proc.stderr

    ours = body_of(gh, 20)
    assert ours.startswith("Closes #1\n") and "#### 2. review comments" in ours
    assert "src/app.py line 2: capitalise" in ours and "**Total:** 2 run(s)" in ours
    assert body_of(gh, 21) == "My own description."


def _stored(data: object) -> str:
    return f"<!-- git-gpte-story {base64.b64encode(json.dumps(data).encode()).decode()} -->"


def test_the_stored_story_is_read_as_untrusted_data() -> None:
    assert read_story("no story here") == []
    assert read_story("<!-- git-gpte-story not*base64 -->") == []
    assert read_story(_stored({"kind": "x"})) == []  # not a list
    items = read_story(
        _stored(
            [
                {"kind": "issue #1", "request": "r" * 5000, "tokens_in": -3, "cost_usd": "9"},
                {"no kind": True},
                {"kind": "ok", "attempts": [{"attempt": "1"}, {"attempt": 1, "files": "ab"}]},
            ]
        )
    )
    assert [it.kind for it in items] == ["issue #1", "ok"]
    assert len(items[0].request) < 700 and items[0].tokens_in == 0 and items[0].cost_usd is None
    assert [a.attempt for a in items[1].attempts] == [1] and items[1].attempts[0].files == []
    # whatever it holds is rendered escaped: a stored "request" cannot inject markup
    evil = Iteration(kind="x", request="```\n</details><script>", refused=["`` @a <b>"])
    text = story_markdown([evil])
    assert "````text\n```\n</details><script>\n````" in text
    assert "- ``` `` @a <b> ```" in text


def test_a_pre_merge_heal_fix_joins_the_story_of_a_git_gpte_pull_request(
    tmp_path: Path, gh: GitHubServer, llm_server: LLMServer
) -> None:
    world = make_world(tmp_path, gh, llm_server, {"run.sh": RUN_SH, "check.py": BROKEN})
    gh.set_permission(REPO, "alice", "write")
    head = world.remote_refs()["refs/heads/main"]
    git(world.origin, "update-ref", "refs/heads/gpte/issue-3", head)
    gh.add_pull(REPO, 30, "gpte/issue-3", "main", "Ours")
    earlier = Iteration(kind="issue #3", request="add", commit=head, applied=1, tokens_in=9)
    gh.repos[REPO].issues[30]["body"] = with_iteration("Closes #3", None, earlier)
    llm_server.queue(FIX)

    run = world.run("pull_request", pull_request_event(30, "gpte/issue-3", head, REPO))

    assert run.code == 0, run.proc.stdout + run.proc.stderr
    body = body_of(gh, 30)
    section = body.split("#### 2. pre-merge heal")[1]
    assert "```text\nmake `bash run.sh` pass\n```" in section
    assert "- heal attempt 1 `" in section and "**Self-heal:** passed." in section
    assert "**Applied:**" not in section and "**Sent:**" not in section
    assert "**Total:** 2 run(s)" in body


def test_a_tampered_or_hostile_story_is_republished_harmless(
    world: World, gh: GitHubServer
) -> None:
    """Anyone who can edit a pull request body can change the stored story: a kind holding
    HTML, mentions and links, a link to anywhere, an absurd cost; a marker followed by spaces
    that a backtracking pattern would chew on for minutes; JSON nested deeper than Python
    reads. Each run still succeeds, and the body git-gpte writes carries none of it."""
    head = world.remote_refs()["refs/heads/main"]
    hostile = [
        {
            "kind": "<img src=x onerror=alert(1)> @octo/owners [win](https://evil.example)",
            "request": "r",
            "cost_usd": 1e308,
            "tokens_in": 10**30,
            "run_url": "https://evil.example/octo/demo/actions/runs/1",
        }
    ]
    bodies = {
        40: "Closes #4\n\n### What git-gpte did\n\n" + _stored(hostile),
        41: "Closes #5\n\n<!-- git-gpte-story " + " " * 50_000 + "x",
        42: "Closes #6\n\n<!-- git-gpte-story "
        + base64.b64encode(b"[" * 3000 + b"]" * 3000).decode()
        + " -->",
    }
    for number, body in bodies.items():
        branch = f"gpte/issue-{number}"
        git(world.origin, "update-ref", f"refs/heads/{branch}", head)
        gh.add_pull(REPO, number, branch, "main", "Ours")
        gh.repos[REPO].issues[number]["body"] = body
    world.llm.queue(FIX_DIFF, FIX_DIFF, FIX_DIFF)
    for number in bodies:
        ask = gh.add_review_comment(
            REPO, number, "/gpte capitalise", user="alice", path="src/app.py", line=2
        )
        run = world.run("pull_request_review_comment", review_comment_event(gh, ask, number))
        assert run.code == 0, run.proc.stdout + run.proc.stderr
    first = body_of(gh, 40)
    assert (
        "#### 1. `<img src=x onerror=alert(1)> @octo/owners [win](https://evil.example)`" in first
    )
    from markdown_it import MarkdownIt

    html = MarkdownIt("commonmark").render(first)
    outside_code = re.sub(r"<code>.*?</code>", "", html, flags=re.S)
    assert "evil.example" not in outside_code
    assert "<img" not in html and 'href="https://evil' not in html and "$inf" not in first
    assert "#### 2. review comments" in first
    assert body_of(gh, 41) == bodies[41]  # no story there: a person's text, left alone
    assert "#### 1. review comments" in body_of(gh, 42)  # unreadable: the story starts again
