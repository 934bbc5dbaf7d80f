"""Hostile input and careless models, through the installed CLI: secrets in the repository,
file names that are not UTF-8, paths that reach into git's own files, terminal escapes, output
rendered on GitHub. Real repositories, the real SDKs against the scripted local LLM server."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.conftest import run_gpte
from tests.helpers.gitrepo import Snapshot, git, make_repo
from tests.helpers.llm_server import LLMServer

APP = "def main():\n    print('hello')\n"

EDIT_APP = """\
```diff
--- app.py
+++ app.py
@@ -1,2 +1,2 @@
 def main():
-    print('hello')
+    print('hello, world')
```
"""


def env_for(server: LLMServer) -> dict[str, str]:
    return {"OPENAI_BASE_URL": server.openai_base_url, "OPENAI_API_KEY": "sk-test"}


# ---------------------------------------------------------------- files that hold secrets
SECRET_FILES = {
    ".git-credentials": "https://alice:ghp_TOKEN1secret@github.com\n",
    "home/.aws/credentials": "[default]\naws_secret_access_key = AWS2secret\n",
    "deploy/.docker/config.json": '{"auths": {"r.io": {"auth": "DOCKER3secret"}}}\n',
    "ops/.htpasswd": "admin:$apr1$HTPASSWD4secret\n",
    ".npmrc": "//registry.npmjs.org/:_authToken=NPM5secret\n",
    ".pypirc": "[pypi]\npassword = PYPI6secret\n",
    "ci/.netrc": "machine example.com login a password NETRC7secret\n",
    "k8s/.kube/config": "users:\n- user:\n    token: KUBE8secret\n",
    "infra/terraform.tfstate": '{"resources": [{"password": "TFSTATE9secret"}]}\n',
    "gcp-deployer.json": '{"type": "service_account", "private_key": "SA10secret"}\n',
    "fixtures/signing.txt": "-----BEGIN OPENSSH PRIVATE KEY-----\nPEM11secret\n",
}


def _token(text: str) -> str:
    found = re.search(r"[A-Za-z0-9_]*secret", text)
    assert found is not None
    return found.group()


def test_credentials_files_are_neither_sent_nor_printed(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    repo = make_repo(tmp_path / "p", {"app.py": APP, **SECRET_FILES})
    dry = run_gpte("-v", "improve", "--dry-run", "say hello", cwd=repo)
    assert dry.returncode == 0, dry.stderr
    for path, text in SECRET_FILES.items():
        assert _token(text) not in dry.stdout, path
        assert f"  {path}  (looks like a secret" in dry.stdout, path

    llm_server.queue(EDIT_APP)
    real = run_gpte(
        "improve", "say hello", "--model", "gpt-4o-mini", cwd=repo, env=env_for(llm_server)
    )
    assert real.returncode == 0, real.stderr
    sent = json.dumps(llm_server.requests[0].body)
    assert "app.py" in sent
    for path, text in SECRET_FILES.items():
        assert _token(text) not in sent and path not in sent, path


def test_a_named_secret_file_is_sent_on_purpose(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "p", {"app.py": APP, **SECRET_FILES})
    dry = run_gpte("-v", "improve", "--dry-run", "rotate it", ".git-credentials", cwd=repo)
    assert dry.returncode == 0, dry.stderr
    assert "ghp_TOKEN1secret" in dry.stdout


# ---------------------------------------------------------------- names that are not UTF-8
def test_a_file_name_that_is_not_utf8_is_left_out_not_a_crash(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    repo = make_repo(tmp_path / "p", {"app.py": APP})
    (repo / "caf\udce9.py").write_bytes(b"x = 1\n")  # the name is the bytes caf\xe9.py
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "latin-1 name")
    dry = run_gpte("improve", "--dry-run", "say hello", cwd=repo)
    assert dry.returncode == 0, dry.stderr
    assert "caf\\xe9.py  (file name is not UTF-8)" in dry.stdout
    as_json = run_gpte("improve", "--dry-run", "--json", "say hello", cwd=repo)
    assert json.loads(as_json.stdout)["skipped"] == {"caf\\xe9.py": "file name is not UTF-8"}

    llm_server.queue(EDIT_APP)
    before = Snapshot.take(repo)
    real = run_gpte(
        "improve", "say hello", "--model", "gpt-4o-mini", cwd=repo, env=env_for(llm_server)
    )
    assert real.returncode == 0, real.stderr
    assert "Traceback" not in real.stderr
    before.assert_unchanged(repo, new_branches=("gpte/say-hello",))
    # the file with the odd name is still in the new commit, byte for byte
    names = git(repo, "ls-tree", "-r", "--name-only", "-z", "gpte/say-hello")
    assert "caf" in names and "app.py" in names


@pytest.mark.parametrize("flag", ["--from-worktree"])
def test_uncommitted_change_to_a_non_utf8_name_is_committed_intact(
    tmp_path: Path, llm_server: LLMServer, flag: str
) -> None:
    repo = make_repo(tmp_path / "p", {"app.py": APP})
    (repo / "caf\udce9.py").write_bytes(b"x = 1\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "latin-1 name")
    (repo / "caf\udce9.py").write_bytes(b"x = 2\n")
    llm_server.queue(EDIT_APP)
    real = run_gpte(
        "improve", flag, "say hello", "--model", "gpt-4o-mini", cwd=repo, env=env_for(llm_server)
    )
    assert real.returncode == 0, real.stderr
    shown = git(repo, "-c", "core.quotepath=false", "show", "gpte/say-hello^:caf\udce9.py")
    assert shown == "x = 2\n"


# ---------------------------------------------------------------- terminal escapes
ESCAPING_REPLY = (
    "Done.\x1b]52;c;ZWNobyBwd25lZA==\x07 \x1b]0;owned\x1b\\\x1b[2J\x1b[H\u009b31m\n" + EDIT_APP
)


def test_escape_sequences_in_a_streamed_reply_never_reach_the_terminal(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    from tests.helpers.pty_run import run_in_pty

    repo = make_repo(tmp_path / "p", {"app.py": APP})
    llm_server.queue(ESCAPING_REPLY)
    result = run_in_pty(
        ["git", "gpte", "improve", "say hello", "--model", "gpt-4o-mini"],
        cwd=repo,
        env=env_for(llm_server),
    )
    assert result.returncode == 0, result.output
    assert "Done." in result.output and "print('hello, world')" in result.output  # it streamed
    for sequence in ("\x1b", "\x07", "\u009b", "]52;", "]0;"):
        assert sequence not in result.output
    # the stored reply is intact in the run log; shown, it is filtered too
    run_id = git(repo, "log", "-1", "--format=%(trailers:key=Gpte-Run,valueonly)", "gpte/say-hello")
    shown = run_gpte("log", "show", run_id.strip(), cwd=repo)
    assert shown.returncode == 0, shown.stderr
    assert "Done." in shown.stdout and "\x1b" not in shown.stdout and "\x07" not in shown.stdout
