"""GitHub App credentials end to end: ``git gpte action`` with ``app-id`` + ``app-private-key``
mints an installation token through PyGithub against the local GitHub server (which checks the
RS256 JWT against the public half of a key made for this test) and works with that token only."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from git_gpte.action.credentials import normalise_private_key
from tests.helpers.action_world import (
    APP,
    FIX_DIFF,
    World,
    issue_payload,
    labeled_event,
    make_world,
)
from tests.helpers.github_server import GitHubServer
from tests.helpers.llm_server import LLMServer

REPO = "octo/demo"
APP_ID = "424242"
# The workflow's own token: the server refuses it, so only the App's token can do the work.
WORKFLOW_TOKEN = "ghs_workflowtoken_not_accepted_here"


def _key_pair() -> tuple[str, str]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    ).decode()
    public = (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    return private, public


@pytest.fixture(scope="module")
def keys() -> tuple[str, str]:
    return _key_pair()


@pytest.fixture
def gh() -> Iterator[GitHubServer]:
    with GitHubServer(token="ghs_only_the_server_knows_this") as server:
        yield server


@pytest.fixture
def world(tmp_path: Path, gh: GitHubServer, llm_server: LLMServer) -> World:
    w = make_world(tmp_path, gh, llm_server, {"src/app.py": APP}, repository=REPO)
    gh.set_permission(REPO, "alice", "write")
    gh.add_issue(REPO, 7, "Capitalise the greeting", "Please.", user="alice", labels=("gpte",))
    w.extra_env["GITHUB_TOKEN"] = WORKFLOW_TOKEN
    return w


def _event() -> dict[str, object]:
    return labeled_event(issue_payload(7, "Capitalise the greeting", "Please."), REPO)


def test_app_credentials_mint_a_token_used_for_everything(
    world: World, gh: GitHubServer, keys: tuple[str, str]
) -> None:
    private, public = keys
    app = gh.add_app(APP_ID, public, (REPO,))
    world.llm.queue(FIX_DIFF)

    run = world.run("issues", _event(), GPTE_APP_ID=APP_ID, GPTE_APP_PRIVATE_KEY=private)

    assert run.code == 0, run.proc.stdout + run.proc.stderr
    assert "refs/heads/gpte/issue-7" in world.remote_refs()
    assert len(gh.pulls(REPO)) == 1
    # one installation looked up, one token minted, both with a JWT signed by the App's key
    [lookup] = gh.calls("GET", r"/repos/octo/demo/installation$")
    [mint] = gh.calls("POST", r"/app/installations/4321/access_tokens$")
    assert lookup.headers["Authorization"].startswith("Bearer ")
    assert mint.headers["Authorization"].startswith("Bearer ")
    [token] = app.minted
    # every other call carried the installation token, none the workflow's
    others = [r for r in gh.requests if r not in (lookup, mint)]
    assert others and all(r.headers["Authorization"].endswith(token) for r in others)
    # the token and the key are masked and never printed otherwise
    log = run.proc.stdout + run.proc.stderr
    assert log.count(token) == 1 and f"::add-mask::{token}\n" in log
    key_lines = [line for line in private.splitlines() if "-----" not in line]
    assert all(log.count(line) == 1 for line in key_lines)
    assert all(f"::add-mask::{line}\n" in log for line in key_lines)
    assert token not in (world.workspace / ".git" / "config").read_text()
    assert not any(token in str(r.body) for r in world.llm.requests)


def test_a_key_pasted_with_escaped_newlines_still_works(
    world: World, gh: GitHubServer, keys: tuple[str, str]
) -> None:
    private, public = keys
    gh.add_app(APP_ID, public, (REPO,))
    world.llm.queue(FIX_DIFF)
    one_line = private.strip().replace("\n", "\\n")
    assert normalise_private_key(one_line) == private.strip()

    run = world.run("issues", _event(), GPTE_APP_ID=APP_ID, GPTE_APP_PRIVATE_KEY=one_line)

    assert run.code == 0, run.proc.stdout + run.proc.stderr


def test_a_key_that_is_not_the_apps_is_refused_before_any_work(
    world: World, gh: GitHubServer, keys: tuple[str, str]
) -> None:
    _, public = keys
    gh.add_app(APP_ID, public, (REPO,))
    other, _ = _key_pair()
    refs = world.remote_refs()

    run = world.run("issues", _event(), GPTE_APP_ID=APP_ID, GPTE_APP_PRIVATE_KEY=other)

    assert run.code == 9, run.proc.stdout + run.proc.stderr
    assert "(401)" in run.proc.stderr and "same GitHub App" in run.proc.stderr
    assert len(run.proc.stderr.strip().splitlines()) <= 2 and "Traceback" not in run.proc.stderr
    assert world.llm.requests == [] and world.remote_refs() == refs
    assert gh.calls("POST", r"/issues/") == []


def test_an_app_not_installed_on_the_repository_says_so(
    world: World, gh: GitHubServer, keys: tuple[str, str]
) -> None:
    private, public = keys
    gh.add_app(APP_ID, public, ("octo/elsewhere",))

    run = world.run("issues", _event(), GPTE_APP_ID=APP_ID, GPTE_APP_PRIVATE_KEY=private)

    assert run.code == 9
    assert "(404)" in run.proc.stderr and "install the App on octo/demo" in run.proc.stderr
    assert world.llm.requests == []


@pytest.mark.parametrize(
    ("env", "code", "message"),
    [
        ({"GPTE_APP_ID": APP_ID}, 2, "app-id is set but app-private-key is not"),
        ({"GPTE_APP_PRIVATE_KEY": "x"}, 2, "app-private-key is set but app-id is not"),
        ({"GPTE_APP_ID": APP_ID, "GPTE_APP_PRIVATE_KEY": "hunter2"}, 9, "not a PEM private key"),
    ],
)
def test_incomplete_or_malformed_app_credentials_are_one_clear_line(
    world: World, env: dict[str, str], code: int, message: str
) -> None:
    run = world.run("issues", _event(), **env)

    assert run.code == code, run.proc.stdout + run.proc.stderr
    assert message in run.proc.stderr and "Traceback" not in run.proc.stderr
    assert "hunter2" not in run.proc.stderr
    assert world.llm.requests == []
