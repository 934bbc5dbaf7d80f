"""``git gpte run`` end to end: real scripts, really executed, through the installed CLI."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import run_gpte
from tests.helpers.gitrepo import Snapshot, commit_all, git, make_repo, write_files
from tests.helpers.processes import wait_gone


def project(tmp_path: Path, run_sh: str, **files: str) -> Path:
    return make_repo(tmp_path / "proj", {"run.sh": run_sh, "main.py": "print('hi')\n", **files})


def worktrees(repo: Path) -> list[str]:
    return [
        line
        for line in git(repo, "worktree", "list", "--porcelain").splitlines()
        if line.startswith("worktree ")
    ]


def assert_clean(repo: Path, before: Snapshot, tmpdir: Path | None = None) -> None:
    before.assert_unchanged(repo)
    assert worktrees(repo) == [f"worktree {repo}"], worktrees(repo)
    assert not (
        Path(git(repo, "rev-parse", "--absolute-git-dir").strip()) / "worktrees"
    ).exists() or not any(
        (Path(git(repo, "rev-parse", "--absolute-git-dir").strip()) / "worktrees").iterdir()
    )
    if tmpdir is not None:
        # Only the repository's run folder stays: its lock and the dependency cache (what
        # run.sh built), never a checkout.
        left = [p for p in tmpdir.iterdir() if not p.name.startswith("gpte-run-")]
        assert left == [], "temporary directories were left behind"
        for home in tmpdir.iterdir():
            assert {p.name for p in home.iterdir()} <= {"lock", "cache"}, list(home.iterdir())


@pytest.fixture
def tmpdir_env(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    return scratch, {"TMPDIR": str(scratch)}


def test_yes_runs_the_entrypoint_and_leaves_no_trace(
    tmp_path: Path, tmpdir_env: tuple[Path, dict[str, str]]
) -> None:
    scratch, env = tmpdir_env
    repo = project(tmp_path, "python3 main.py\necho made > artefact.txt\necho ok >&2\n")
    before = Snapshot.take(repo)
    proc = run_gpte("run", "--yes", cwd=repo, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "hi\nok\n"
    assert "python3 main.py" in proc.stderr  # the script was shown
    assert "exited with code 0" in proc.stderr
    assert_clean(repo, before, scratch)
    assert not (repo / "artefact.txt").exists()


def test_refused_without_confirmation_on_a_non_terminal(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    repo = project(tmp_path, f"touch {marker}\n")
    before = Snapshot.take(repo)
    proc = run_gpte("run", cwd=repo, input="y\n")
    assert proc.returncode == 2
    err = proc.stderr.strip().splitlines()
    assert len(err) == 1 and "not a terminal" in err[0] and "--yes" in err[0], proc.stderr
    assert not marker.exists()
    assert_clean(repo, before)


def test_failing_script_exits_8_with_one_line(tmp_path: Path) -> None:
    repo = project(tmp_path, "echo 'NameError: name x is not defined' >&2\nexit 2\n")
    before = Snapshot.take(repo)
    proc = run_gpte("run", "--yes", cwd=repo)
    assert proc.returncode == 8, proc.stderr
    assert "NameError" in proc.stdout
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("git-gpte: error: ") and "exited with code 2" in last
    assert_clean(repo, before)


def test_timeout_from_git_config_kills_script_and_child(
    tmp_path: Path, tmpdir_env: tuple[Path, dict[str, str]]
) -> None:
    scratch, env = tmpdir_env
    pidfile = tmp_path / "child.pid"
    repo = project(tmp_path, 'sleep 300 &\necho $! > "$PIDFILE"\nsleep 300\n')
    git(repo, "config", "gpte.timeout", "1")
    before = Snapshot.take(repo)
    start = time.monotonic()
    proc = run_gpte("run", "--yes", cwd=repo, env={**env, "PIDFILE": str(pidfile)})
    assert time.monotonic() - start < 30
    assert proc.returncode == 8, proc.stderr
    assert "timed out after 1.0 s" in proc.stderr
    assert wait_gone(int(pidfile.read_text()))
    assert_clean(repo, before, scratch)


def test_timeout_flag_overrides_config(tmp_path: Path) -> None:
    repo = project(tmp_path, "sleep 2\necho finished\n")
    git(repo, "config", "gpte.timeout", "1")
    proc = run_gpte("run", "--yes", "--timeout", "30", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "finished\n"


def test_no_secret_reaches_the_program(tmp_path: Path) -> None:
    repo = project(tmp_path, "env\n")
    git(repo, "config", "gpte.scrubEnv", "MY_CORP_THING, OTHER_*")
    secrets = {
        "OPENAI_API_KEY": "sk-secret-1",
        "ANTHROPIC_API_KEY": "sk-secret-2",
        "GITHUB_TOKEN": "ghs_secret3",
        "GH_TOKEN": "ghs_secret4",
        "ACTIONS_RUNTIME_TOKEN": "secret5",
        "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "secret6",
        "DEPLOY_PASSWORD": "secret7",
        "MY_CORP_THING": "secret8",
        "OTHER_VALUE": "secret9",
    }
    proc = run_gpte("run", "--yes", cwd=repo, env={**secrets, "KEEP_ME": "visible"})
    assert proc.returncode == 0, proc.stderr
    names = {line.split("=", 1)[0] for line in proc.stdout.splitlines() if "=" in line}
    assert "KEEP_ME" in names and "PATH" in names
    assert not names & set(secrets), names & set(secrets)
    for value in secrets.values():
        assert value not in proc.stdout


def test_credentials_from_git_options_and_tools_do_not_reach_the_program(tmp_path: Path) -> None:
    # `git -c http.extraheader=...` hands the header to git-gpte in GIT_CONFIG_PARAMETERS, and
    # `git -c`'s newer form in GIT_CONFIG_COUNT/KEY/VALUE: neither may reach the script.
    repo = project(tmp_path, "env\n")
    secrets = {
        "NPM_CONFIG__AUTH": "npm-secret-1",
        "DOCKER_AUTH_CONFIG": '{"auths": {"r": {"auth": "secret-2"}}}',
        "BUNDLE_GEMS__EXAMPLE__COM": "user:secret-3",
        "INPUT_OPENAI-API-KEY": "sk-secret-4",
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "http.https://example.com/.extraheader",
        "GIT_CONFIG_VALUE_0": "AUTHORIZATION: bearer secret-5",
        "CURL_OPTS": "-H Authorization: Bearer secret-6-abcdef",
    }
    proc = subprocess.run(
        ["git", "-c", "http.extraheader=AUTHORIZATION: basic c2VjcmV0LTc=", "gpte", "run", "--yes"],
        cwd=repo,
        env={**os.environ, **secrets, "KEEP_ME": "visible"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    names = {line.split("=", 1)[0] for line in proc.stdout.splitlines() if "=" in line}
    assert "KEEP_ME" in names
    assert "GIT_CONFIG_PARAMETERS" not in names and not names & set(secrets)
    for secret in ("secret-1", "secret-2", "secret-3", "secret-4", "secret-5", "secret-6"):
        assert secret not in proc.stdout
    assert "c2VjcmV0LTc=" not in proc.stdout and "extraheader" not in proc.stdout


def test_escape_sequences_in_the_programs_output_do_not_reach_the_terminal(
    tmp_path: Path,
) -> None:
    # OSC 52 (clipboard), OSC 0 (title), clear screen, a concealed line, C1 CSI; \t and \n kept.
    script = (
        "printf 'a\\033]52;c;ZXZpbA==\\007b\\033]0;pwned\\033\\\\c\\033[2J\\033[8mhidden\\033[0m'\n"
        "printf '\\302\\23331mred\\tx\\r\\n'\n"
    )
    repo = project(tmp_path, script)
    proc = subprocess.run(
        ["git", "gpte", "run", "--yes"], cwd=repo, capture_output=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == b"abchiddenred\tx\n"
    # the script as shown before running is filtered too (it is only text once shown)
    assert b"\x1b" not in proc.stderr and b"\x07" not in proc.stderr


def test_uncommitted_changes_are_not_seen(tmp_path: Path) -> None:
    repo = project(
        tmp_path, "echo COMMITTED\ncat main.py\ntest -e extra.txt && echo SEEN || echo NOT-SEEN\n"
    )
    (repo / "run.sh").write_text("echo DIRTY\n")
    (repo / "main.py").write_text("print('dirty')\n")
    (repo / "extra.txt").write_text("untracked\n")
    git(repo, "add", "main.py")  # a staged change too
    before = Snapshot.take(repo)
    proc = run_gpte("run", "--yes", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "COMMITTED\nprint('hi')\nNOT-SEEN\n"
    assert "uncommitted changes are not part of this run" in proc.stderr
    assert_clean(repo, before)


def test_base_runs_an_older_commit(tmp_path: Path) -> None:
    repo = project(tmp_path, "echo first\n")
    write_files(repo, {"run.sh": "echo second\n"})
    commit_all(repo)
    proc = run_gpte("run", "--yes", "--base", "HEAD~1", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "first\n"


def test_missing_entrypoint_is_named(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "proj", {"main.py": "print(1)\n"})
    proc = run_gpte("run", "--yes", cwd=repo)
    assert proc.returncode == 2
    assert "'run.sh' does not exist at commit" in proc.stderr
    proc = run_gpte("run", "--yes", "--entrypoint", "scripts/go.sh", cwd=repo)
    assert proc.returncode == 2 and "'scripts/go.sh'" in proc.stderr
    proc = run_gpte("run", "--yes", "--entrypoint", "../evil.sh", cwd=repo)
    assert proc.returncode == 2 and "outside the repository" in proc.stderr


def test_command_option_and_gpt_engineer_toml(tmp_path: Path) -> None:
    repo = project(
        tmp_path,
        "echo from-run-sh\n",
        **{"gpt-engineer.toml": '[run]\ntest = "echo from-toml && exit 2"\n'},
    )
    proc = run_gpte("run", "--yes", cwd=repo)
    assert proc.returncode == 8 and proc.stdout == "from-toml\n", proc.stderr
    proc = run_gpte("run", "--yes", "--command", "echo $((6 * 7))", cwd=repo)
    assert proc.returncode == 0 and proc.stdout == "42\n", proc.stderr
    proc = run_gpte("run", "--yes", "--entrypoint", "run.sh", cwd=repo)
    assert proc.returncode == 0 and proc.stdout == "from-run-sh\n", proc.stderr
    proc = run_gpte("run", "--yes", "--entrypoint", "run.sh", "--command", "true", cwd=repo)
    assert proc.returncode == 2 and "not both" in proc.stderr


def test_huge_output_is_not_streamed_in_full(tmp_path: Path) -> None:
    repo = project(
        tmp_path, 'yes "0123456789abcdef0123456789abcdef" | head -n 200000\necho THE-END\n'
    )
    proc = run_gpte("run", "--yes", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert len(proc.stdout) < 1_300_000  # 6.6 MB produced, about 1 MB streamed plus the tail
    assert proc.stdout.endswith("THE-END\n")
    assert "too long to stream" in proc.stderr


def test_docker_without_an_engine_is_a_clear_error(tmp_path: Path) -> None:
    engine = (
        subprocess.run(["docker", "info"], capture_output=True, check=False)
        if _has_docker()
        else None
    )
    if engine is not None and engine.returncode == 0:
        pytest.skip("a Docker engine answers here")
    marker = tmp_path / "ran"
    repo = project(tmp_path, f"touch {marker}\n")
    proc = run_gpte("run", "--yes", "--docker", cwd=repo)
    assert proc.returncode == 4, proc.stderr
    err = proc.stderr.strip().splitlines()
    assert len(err) == 1 and "--docker" in err[0] and "Docker" in err[0], proc.stderr
    assert not marker.exists()
    assert worktrees(repo) == [f"worktree {repo}"]


def _has_docker() -> bool:
    from shutil import which

    return which("docker") is not None


@pytest.mark.parametrize(
    "sig",
    [signal.SIGINT, signal.SIGTERM, signal.SIGHUP],  # Ctrl-C, a CI cancel, a closed terminal
    ids=["ctrl-c", "sigterm", "sighup"],
)
def test_ctrl_c_kills_the_program_and_removes_the_worktree(
    tmp_path: Path, tmpdir_env: tuple[Path, dict[str, str]], sig: signal.Signals
) -> None:
    scratch, env = tmpdir_env
    pidfile = tmp_path / "child.pid"
    repo = project(tmp_path, 'sleep 300 &\necho $! > "$PIDFILE"\nsleep 300\n')
    before = Snapshot.take(repo)
    proc = subprocess.Popen(
        ["git-gpte", "run", "--yes"],
        cwd=repo,
        env={**os.environ, **env, "PIDFILE": str(pidfile)},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own group stands in for the terminal's foreground group
    )
    try:
        end = time.monotonic() + 20
        while not (pidfile.exists() and pidfile.read_text().strip()) and time.monotonic() < end:
            time.sleep(0.05)
        child = int(pidfile.read_text())
        os.killpg(proc.pid, sig)
        _out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, err
    assert b"interrupted" in err
    assert wait_gone(child), f"child {child} survived Ctrl-C"
    assert_clean(repo, before, scratch)


RUN_WITH_VENV = """\
if [ -d .venv ]; then echo "reused the environment"; else mkdir .venv; echo "built it"; fi
touch .venv/used
if [ -e leftover.txt ]; then echo "a file of the last run is here"; fi
echo junk > leftover.txt
echo "$PWD/main.py failed" >&2
exit 1
"""


def test_what_run_sh_builds_is_kept_between_runs_and_nothing_else(
    tmp_path: Path, tmpdir_env: tuple[Path, dict[str, str]]
) -> None:
    scratch, env = tmpdir_env
    repo = project(tmp_path, RUN_WITH_VENV, **{"requirements.txt": "requests\n"})
    first = run_gpte("run", "--yes", cwd=repo, env=env)
    assert "built it" in first.stdout
    # the output names files by their place in the repository, not the scratch checkout
    assert "main.py failed" in first.stderr and str(scratch) not in first.stdout + first.stderr
    second = run_gpte("run", "--yes", cwd=repo, env=env)
    assert "reused the environment" in second.stdout
    assert "a file of the last run" not in second.stdout  # only .venv came along
    # other dependencies: another environment
    (repo / "requirements.txt").write_text("requests\nrich\n")
    git(repo, "commit", "-qam", "add rich")
    third = run_gpte("run", "--yes", cwd=repo, env=env)
    assert "built it" in third.stdout
