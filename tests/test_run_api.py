"""The library API heal and the GitHub Action call: RunOptions, preview, run_commit, RunResult."""

from __future__ import annotations

from pathlib import Path

import pytest

from git_gpte.config import Settings
from git_gpte.errors import ConfigError, UsageError
from git_gpte.git.config import load_settings
from git_gpte.git.repo import Repository
from git_gpte.run import (
    DEFAULT_TIMEOUT,
    DockerEnvironment,
    RunCommand,
    RunOptions,
    RunResult,
    preview,
    run_commit,
)
from tests.helpers.gitrepo import Snapshot, git, make_repo


def settings_for(repo: Path) -> Settings:
    return load_settings(repo, repo)


def test_run_commit_returns_a_result_and_keeps_the_checkout(tmp_path: Path) -> None:
    path = make_repo(tmp_path / "p", {"run.sh": "echo out\nexit 5\n"})
    repo = Repository.discover(path)
    commit = repo.resolve_commit("HEAD")
    before = Snapshot.take(path)
    options = RunOptions.resolve(settings_for(path), timeout=20)
    chunks: list[bytes] = []
    result = run_commit(repo, commit, options, on_output=chunks.append)
    assert isinstance(result, RunResult)
    assert (result.exit_code, result.success, result.timed_out) == (5, False, False)
    assert result.commit == commit and result.environment == "local"
    assert b"".join(chunks) == b"out\n"
    assert "Exit code: 5" in result.feedback_text()
    before.assert_unchanged(path)
    assert len(git(path, "worktree", "list").splitlines()) == 1


def test_options_precedence(tmp_path: Path) -> None:
    path = make_repo(tmp_path / "p", {"run.sh": "true\n"})
    options = RunOptions.resolve(settings_for(path))
    assert options.command == RunCommand.script("run.sh", source="default")
    assert options.timeout == DEFAULT_TIMEOUT and options.scrub == ()
    git(path, "config", "gpte.timeout", "42")
    git(path, "config", "gpte.scrubEnv", "A,B")
    git(path, "config", "gpte.entrypoint", "scripts/start.sh")
    options = RunOptions.resolve(settings_for(path))
    assert options.timeout == 42 and options.scrub == ("A", "B")
    assert options.command.argv == ("bash", "scripts/start.sh")
    assert RunOptions.resolve(settings_for(path), timeout=7).timeout == 7
    (path / "gpt-engineer.toml").write_text('[run]\nbuild = "make"\n')
    assert RunOptions.resolve(settings_for(path)).command.argv == ("bash", "-c", "make")
    with pytest.raises(UsageError):
        RunOptions.resolve(settings_for(path), entrypoint="a.sh", command="b")
    git(path, "config", "gpte.timeout", "soon")
    with pytest.raises(ConfigError):
        RunOptions.resolve(settings_for(path))


def test_preview_shows_the_script_text(tmp_path: Path) -> None:
    path = make_repo(tmp_path / "p", {"run.sh": "pip install --user x\npython main.py\n"})
    repo = Repository.discover(path)
    text = preview(repo, repo.resolve_commit("HEAD"), RunOptions.resolve(settings_for(path)))
    assert "pip install --user x\npython main.py" in text
    assert "temporary worktree" in text and "timeout: 600 s" in text


def test_symlink_entrypoint_is_refused(tmp_path: Path) -> None:
    path = make_repo(tmp_path / "p", {"real.sh": "true\n"})
    (path / "run.sh").symlink_to("/etc/passwd")
    git(path, "add", "run.sh")
    git(path, "commit", "-qm", "link")
    repo = Repository.discover(path)
    with pytest.raises(UsageError, match="not a regular file"):
        run_commit(repo, repo.resolve_commit("HEAD"), RunOptions.resolve(settings_for(path)))


def test_docker_command_line_mounts_only_the_worktree(tmp_path: Path) -> None:
    env = DockerEnvironment("python:3.12-slim", network="none")
    argv = env.docker_argv(RunCommand.script("run.sh"), tmp_path, "gpte-run-x")
    assert argv[:3] == ["docker", "run", "--rm"]
    assert f"{tmp_path}:/workspace" in argv and "--cap-drop" in argv and "no-new-privileges" in argv
    assert argv[-3:] == ["python:3.12-slim", "bash", "run.sh"]
    assert argv[argv.index("--network") + 1] == "none"
    assert not any(a.startswith(("OPENAI", "GITHUB")) for a in argv)


def test_docker_binary_missing_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="not installed"):
        DockerEnvironment(docker="no-such-docker-binary").check()


def test_timed_out_result_texts() -> None:
    result = RunResult(
        exit_code=-15,
        timed_out=True,
        duration=600.2,
        output_tail="waiting\n",
        output_bytes=8,
        truncated=False,
        command="bash run.sh",
        timeout=600,
    )
    assert not result.success
    assert "timed out after 600 s" in result.summary()
    feedback = result.feedback_text()
    assert (
        "Timed out: yes" in feedback and "within 600 seconds" in feedback and "waiting" in feedback
    )
