"""Everything ``git gpte action`` meets on a runner, on 127.0.0.1: a bare repository as ``origin``,
a checkout of it as ``GITHUB_WORKSPACE``, the GitHub REST server, the LLM server, event files in
the shape of GitHub's webhook payloads, and ``$GITHUB_OUTPUT`` / ``$GITHUB_STEP_SUMMARY`` files.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.conftest import run_gpte
from tests.helpers.github_server import GitHubServer
from tests.helpers.gitrepo import git, make_repo
from tests.helpers.llm_server import LLMServer

TOKEN = "ghs_testtoken0123456789abcdefTOKEN"


@dataclass
class ActionRun:
    proc: subprocess.CompletedProcess[str]
    outputs: dict[str, str]
    summary: str

    @property
    def code(self) -> int:
        return self.proc.returncode


def parse_outputs(text: str) -> dict[str, str]:
    """``name<<DELIM`` … ``DELIM`` blocks (and plain ``name=value`` lines) of $GITHUB_OUTPUT."""
    values: dict[str, str] = {}
    lines = iter(text.splitlines())
    for line in lines:
        if "<<" in line:
            name, delim = line.split("<<", 1)
            body = []
            for inner in lines:
                if inner == delim:
                    break
                body.append(inner)
            values[name] = "\n".join(body)
        elif "=" in line:
            name, value = line.split("=", 1)
            values[name] = value
    return values


@dataclass
class World:
    root: Path
    repository: str
    origin: Path
    workspace: Path
    gh: GitHubServer
    llm: LLMServer
    runs: int = 0
    extra_env: dict[str, str] = field(default_factory=dict)

    def remote_refs(self) -> dict[str, str]:
        out = git(self.origin, "for-each-ref", "--format=%(refname) %(objectname)")
        return dict(line.split(" ", 1) for line in out.splitlines())

    def run(self, event_name: str, payload: dict[str, Any], **env: str) -> ActionRun:
        self.runs += 1
        event = self.root / f"event-{self.runs}.json"
        event.write_text(json.dumps(payload))
        output = self.root / f"output-{self.runs}.txt"
        summary = self.root / f"summary-{self.runs}.md"
        full = {
            "GITHUB_ACTIONS": "true",
            "GITHUB_EVENT_NAME": event_name,
            "GITHUB_EVENT_PATH": str(event),
            "GITHUB_REPOSITORY": self.repository,
            "GITHUB_API_URL": self.gh.url,
            "GITHUB_SERVER_URL": "https://github.com",
            "GITHUB_RUN_ID": "4242",
            "GITHUB_WORKSPACE": str(self.workspace),
            "GITHUB_OUTPUT": str(output),
            "GITHUB_STEP_SUMMARY": str(summary),
            "GITHUB_TOKEN": TOKEN,
            "OPENAI_BASE_URL": self.llm.openai_base_url,
            "OPENAI_API_KEY": "sk-test-key-0123456789",
            "MODEL_NAME": "gpt-4o-mini",
            **self.extra_env,
            **env,
        }
        proc = run_gpte("action", cwd=self.workspace, env=full)
        return ActionRun(
            proc,
            parse_outputs(output.read_text() if output.exists() else ""),
            summary.read_text() if summary.exists() else "",
        )


def make_world(
    root: Path,
    gh: GitHubServer,
    llm: LLMServer,
    files: dict[str, str | bytes],
    *,
    repository: str = "octo/demo",
    default_branch: str = "main",
    other_branches: tuple[str, ...] = (),
) -> World:
    """A project pushed to a bare ``origin`` and checked out the way actions/checkout does."""
    seed = make_repo(root / "seed", files)
    if default_branch != "main":
        git(seed, "branch", "-m", "main", default_branch)
    origin = root / "origin.git"
    git(root, "init", "-q", "--bare", str(origin))
    git(seed, "push", "-q", str(origin), f"{default_branch}:refs/heads/{default_branch}")
    for name in other_branches:
        git(seed, "push", "-q", str(origin), f"{default_branch}:refs/heads/{name}")
    git(origin, "symbolic-ref", "HEAD", f"refs/heads/{default_branch}")
    workspace = root / "workspace"
    git(root, "clone", "-q", "--depth", "1", f"file://{origin}", str(workspace))
    gh.add_repo(repository, default_branch=default_branch, git_dir=str(origin))
    return World(root, repository, origin, workspace, gh, llm)


def user(login: str, kind: str = "User") -> dict[str, Any]:
    return {"login": login, "id": abs(hash(login)) % 10**6, "type": kind}


def repo_payload(full_name: str, default_branch: str = "main") -> dict[str, Any]:
    owner, name = full_name.split("/")
    return {
        "id": 1,
        "name": name,
        "full_name": full_name,
        "owner": user(owner, "Organization"),
        "private": False,
        "default_branch": default_branch,
    }


def issue_payload(
    number: int,
    title: str,
    body: str | None,
    *,
    author: str = "alice",
    association: str = "COLLABORATOR",
    labels: tuple[str, ...] = ("gpte",),
    state: str = "open",
    locked: bool = False,
) -> dict[str, Any]:
    return {
        "number": number,
        "title": title,
        "body": body,
        "user": user(author),
        "labels": [{"name": name} for name in labels],
        "state": state,
        "locked": locked,
        "author_association": association,
    }


def labeled_event(
    issue: dict[str, Any], repository: str, *, sender: str | None = None, label: str = "gpte"
) -> dict[str, Any]:
    return {
        "action": "labeled",
        "issue": issue,
        "label": {"name": label},
        "repository": repo_payload(repository),
        "sender": user(sender or issue["user"]["login"]),
    }


def comment_event(
    issue: dict[str, Any],
    repository: str,
    body: str,
    *,
    author: str = "alice",
    association: str = "COLLABORATOR",
    kind: str = "User",
) -> dict[str, Any]:
    return {
        "action": "created",
        "issue": issue,
        "comment": {
            "id": 555,
            "body": body,
            "user": user(author, kind),
            "author_association": association,
        },
        "repository": repo_payload(repository),
        "sender": user(author, kind),
    }


def pull_request_event(
    number: int,
    head_ref: str,
    head_sha: str,
    repository: str,
    *,
    base_ref: str = "main",
    author: str = "alice",
    action: str = "opened",
    association: str = "COLLABORATOR",
    head_repository: str | None = None,
) -> dict[str, Any]:
    return {
        "action": action,
        "number": number,
        "pull_request": {
            "number": number,
            "title": "Some change",
            "state": "open",
            "user": user(author),
            "author_association": association,
            "head": {
                "ref": head_ref,
                "sha": head_sha,
                "repo": repo_payload(head_repository or repository),
            },
            "base": {"ref": base_ref, "sha": "0" * 40, "repo": repo_payload(repository)},
        },
        "repository": repo_payload(repository),
        "sender": user(author),
    }


# ------------------------------------------------------------------ replies and programs
# The model's replies the flows are driven with, and the program the heal tests check.

APP = """\
def greet(name):
    return "hello " + name


def main():
    print(greet("world"))
"""

FIX_DIFF = """\
Here is the change.

```diff
--- src/app.py
+++ src/app.py
@@ -1,2 +1,2 @@
 def greet(name):
-    return "hello " + name
+    return "Hello, " + name + "!"
```
"""

SECOND_DIFF = """\
```diff
--- src/app.py
+++ src/app.py
@@ -4,2 +4,2 @@
 def main():
-    print(greet("world"))
+    print(greet("everyone"))
```
"""

# A diff whose context does not exist: the hunk is refused, never guessed.
BAD_DIFF = """\
```diff
--- src/app.py
+++ src/app.py
@@ -1,2 +1,2 @@
 def salute(person):
-    return "hi " + person
+    return "Hi " + person
```
"""

README_DIFF = """\
```diff
--- README.md
+++ README.md
@@ -1,2 +1,2 @@
 # Hello-World
-Every commmit counts.
+Every commit counts.
```
"""

RUN_SH = "python3 check.py\n"

BROKEN = """\
import sys

TOTAL = 1 + 1
if TOTAL != 3:
    sys.exit("expected 3, got %d" % TOTAL)
print("ok")
"""

FIX = """\
```diff
--- check.py
+++ check.py
@@ -3,1 +3,1 @@
-TOTAL = 1 + 1
+TOTAL = 1 + 2
```
"""

USELESS = """\
```diff
--- check.py
+++ check.py
@@ -6,1 +6,1 @@
-print("ok")
+print("okay")
```
"""


def pull_json(gh: GitHubServer, number: int, repository: str = "octo/demo") -> dict[str, Any]:
    repo = gh.repos[repository.lower()]
    return gh._pull_json(repo, repo.pulls[number])


def review_comment_event(
    gh: GitHubServer, comment: dict[str, Any], number: int = 5
) -> dict[str, Any]:
    """The ``pull_request_review_comment`` payload GitHub sends for ``comment``."""
    return {
        "action": "created",
        "comment": gh._review_comment_json(comment),
        "pull_request": pull_json(gh, number),
        "repository": repo_payload("octo/demo"),
        "sender": user(comment["user"]["login"]),
    }


def status_comments(gh: GitHubServer, number: int, repository: str = "octo/demo") -> list[str]:
    """The bodies of the comments on issue or pull request ``number``."""
    return [c["body"] for c in gh.issue_comments(repository, number)]
