"""Hermetic environment for every test: a temporary HOME, no system git config, fixed
identity and dates, no API keys or GitHub variables leaking in from the machine."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.gitrepo import Snapshot, make_repo


def _shared() -> Path:
    """The ``shared`` folder (payload examples, corpora) beside the checkout — or beside a folder
    above it, so a linked worktree (``wt/NAME`` next to ``main``) finds the same data."""
    checkout = Path(__file__).resolve().parents[1]
    for folder in checkout.parents:
        if (folder / "shared").is_dir():
            return folder / "shared"
    return checkout.parent / "shared"


SHARED = _shared()

# Read before the hermetic fixture removes every GPTE_* variable from the tests' environment.
_ALL_AS_PROCESSES = os.environ.get("GPTE_TEST_PROCESS") == "1"

_LEAKY_PREFIXES = ("OPENAI_", "ANTHROPIC_", "AZURE_OPENAI_", "GITHUB_", "GIT_", "GPTE_", "RUNNER_")
_LEAKY_NAMES = ("MODEL_NAME", "LOCAL_MODEL", "GH_TOKEN", "EDITOR", "VISUAL", "CI")


@pytest.fixture(autouse=True)
def hermetic(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("home")
    for name in list(os.environ):
        if name.startswith(_LEAKY_PREFIXES) or name in _LEAKY_NAMES:
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_AUTHOR_DATE", "2026-01-01T00:00:00+0000")
    monkeypatch.setenv("GIT_COMMITTER_DATE", "2026-01-01T00:00:00+0000")
    monkeypatch.setenv("GIT_EDITOR", "false")
    monkeypatch.setenv("NO_COLOR", "1")
    # The probe (an extra call after a checked result, on by default for a self-hosted model)
    # off: each test scripts the conversation it is about; tests of the probe turn it on.
    monkeypatch.setenv("GPTE_PROBE", "0")
    # The venv's scripts (git-gpte) must be on PATH so `git gpte` finds them.
    bindir = str(Path(sys.executable).parent)
    monkeypatch.setenv("PATH", bindir + os.pathsep + os.environ.get("PATH", ""))
    (home / ".gitconfig").write_text(
        "[user]\n\tname = Test User\n\temail = test@example.com\n"
        "[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n"
    )
    return home


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository with a small Python project committed on ``main``."""
    return make_repo(
        tmp_path / "repo",
        {
            "README.md": "# demo\n",
            "src/app.py": (
                "def main():\n    print('hello')\n\n\nif __name__ == '__main__':\n    main()\n"
            ),
        },
    )


@pytest.fixture
def snapshot() -> type[Snapshot]:
    return Snapshot


def run_gpte(
    *args: str,
    cwd: Path | str,
    input: str | bytes | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 120,
    process: bool = False,
) -> subprocess.CompletedProcess[str]:
    """Run the CLI on ``args`` in ``cwd`` and return what a process would have: exit code,
    stdout and stderr.

    In-process by default (click's runner: the same ``main`` and error handling, without a
    new interpreter per call, which is most of the suite's time). ``process=True`` runs
    ``git gpte`` as a user would, through git and a new process: for the tests about that
    boundary (git finding the subcommand, signals, the installed script). ``GPTE_TEST_PROCESS=1``
    runs every call that way.
    """
    if process or _ALL_AS_PROCESSES:
        return _run_process(args, cwd, input, env, timeout)
    return _run_in_process(args, cwd, input, env)


def _run_process(
    args: tuple[str, ...],
    cwd: Path | str,
    input: str | bytes | None,
    env: dict[str, str] | None,
    timeout: float,
) -> subprocess.CompletedProcess[str]:
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    data = input.decode() if isinstance(input, bytes) else input
    return subprocess.run(
        ["git", "gpte", *args],
        cwd=cwd,
        input=data if data is not None else "",
        capture_output=True,
        text=True,
        env=full_env,
        timeout=timeout,
        check=False,
    )


def _run_in_process(
    args: tuple[str, ...],
    cwd: Path | str,
    input: str | bytes | None,
    env: dict[str, str] | None,
) -> subprocess.CompletedProcess[str]:
    from click.testing import CliRunner

    from git_gpte.cli import main

    runner = CliRunner()
    previous = os.getcwd()
    os.chdir(cwd)
    try:
        with runner.isolation(input=input or "", env=env) as streams:
            try:
                main(list(args))
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
            out, err = streams[0].getvalue(), streams[1].getvalue()
    finally:
        os.chdir(previous)
    return subprocess.CompletedProcess(
        ["git", "gpte", *args],
        code,
        out.decode("utf-8", "replace"),
        err.decode("utf-8", "replace"),
    )


@pytest.fixture
def gpte() -> Iterator[object]:
    yield run_gpte


@pytest.fixture
def llm_server() -> Iterator[object]:
    """A scripted OpenAI/Azure/Anthropic server on 127.0.0.1 (tests/helpers/llm_server.py)."""
    from tests.helpers.llm_server import LLMServer

    with LLMServer() as server:
        yield server
