"""The execution layer on real processes: exit codes, deadlines, process-group kills, capture."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from git_gpte.errors import RunError
from git_gpte.run import DEFAULT_MAX_OUTPUT_BYTES, RunCommand, RunResult, TailBuffer, run_process
from git_gpte.run.environment import LocalEnvironment
from tests.helpers.processes import wait_gone


def script(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "prog.sh"
    path.write_text(body)
    return path


def run_script(
    tmp_path: Path,
    body: str,
    *,
    timeout: float = 30.0,
    grace: float = 1.0,
    extra_env: dict[str, str] | None = None,
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
) -> RunResult:
    env = {**os.environ, **(extra_env or {})}
    return LocalEnvironment(kill_grace=grace).execute(
        RunCommand.script("prog.sh"),
        script(tmp_path, body).parent,
        env=env,
        timeout=timeout,
        max_output_bytes=max_output_bytes,
    )


def test_success_captures_stdout_and_stderr_merged(tmp_path: Path) -> None:
    result = run_script(tmp_path, "echo one\necho two >&2\necho three\n")
    assert result.success and result.exit_code == 0 and not result.timed_out
    assert result.output_tail == "one\ntwo\nthree\n"
    assert result.output_bytes == len("one\ntwo\nthree\n")
    assert not result.truncated
    assert result.command == "bash prog.sh"


def test_exit_code_2_is_a_failure(tmp_path: Path) -> None:
    result = run_script(tmp_path, "echo 'Traceback: boom' >&2\nexit 2\n")
    assert result.exit_code == 2
    assert not result.success
    feedback = result.feedback_text()
    assert "Exit code: 2" in feedback and "Timed out: no" in feedback
    assert "Traceback: boom" in feedback


def test_timeout_kills_the_script_and_its_child(tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    body = 'sleep 300 &\necho $! > "$PIDFILE"\necho started\nsleep 300\n'
    start = time.monotonic()
    result = run_script(tmp_path, body, timeout=1.0, extra_env={"PIDFILE": str(pidfile)})
    elapsed = time.monotonic() - start
    assert result.timed_out and not result.success
    assert elapsed < 10, f"took {elapsed:.1f}s"
    assert result.output_tail == "started\n"
    child = int(pidfile.read_text())
    assert wait_gone(child), f"child {child} survived the timeout"
    feedback = result.feedback_text()
    assert "Timed out: yes" in feedback and "killed" in feedback


def test_timeout_escalates_to_sigkill_when_sigterm_is_ignored(tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    # An ignored SIGTERM is inherited: both the script and its child shrug it off.
    body = "trap '' TERM\nsleep 300 &\necho $! > \"$PIDFILE\"\nsleep 300\n"
    result = run_script(tmp_path, body, timeout=1.0, grace=0.5, extra_env={"PIDFILE": str(pidfile)})
    assert result.timed_out
    child = int(pidfile.read_text())
    assert wait_gone(child), f"child {child} survived SIGKILL"


def test_children_left_running_after_a_normal_exit_are_stopped(tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    body = 'sleep 300 >/dev/null 2>&1 &\necho $! > "$PIDFILE"\necho done\n'
    result = run_script(tmp_path, body, extra_env={"PIDFILE": str(pidfile)})
    assert result.success and result.output_tail == "done\n"
    assert wait_gone(int(pidfile.read_text()))


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs Linux /proc")
@pytest.mark.parametrize("timeout", [30.0, 1.0], ids=["after-exit", "on-timeout"])
def test_daemons_that_left_the_process_group_are_stopped(tmp_path: Path, timeout: float) -> None:
    """setsid and a double fork take a process out of the group; it is stopped all the same."""
    pids = tmp_path / "pids"
    body = (
        'setsid sleep 301 >/dev/null 2>&1 < /dev/null &\necho $! >> "$PIDS"\n'
        "python3 -c '\n"
        "import os, sys, time\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        '        open(sys.argv[1], "a").write(f"{os.getpid()}\\n")\n'
        "        time.sleep(302)\n"
        '\' "$PIDS"\n'
        "sleep 0.3\necho started\n"
    )
    if timeout < 5:
        body += "sleep 300\n"
    result = run_script(tmp_path, body, timeout=timeout, grace=0.5, extra_env={"PIDS": str(pids)})
    assert result.output_tail == "started\n"
    assert result.timed_out is (timeout < 5)
    daemons = [int(line) for line in pids.read_text().split()]
    assert len(daemons) == 2
    survivors = [pid for pid in daemons if not wait_gone(pid)]
    assert not survivors, f"{survivors} outlived the run"


def test_child_holding_the_pipe_does_not_hang_the_run(tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    body = 'sleep 300 &\necho $! > "$PIDFILE"\necho done\n'  # the child inherits stdout
    start = time.monotonic()
    result = run_script(tmp_path, body, extra_env={"PIDFILE": str(pidfile)})
    assert time.monotonic() - start < 10
    assert result.success and result.output_tail == "done\n"
    assert wait_gone(int(pidfile.read_text()))


def test_huge_output_keeps_the_tail_and_counts_the_rest(tmp_path: Path) -> None:
    body = 'for i in $(seq 1 200000); do echo "line $i"; done\necho THE-END\n'
    result = run_script(tmp_path, body, max_output_bytes=4096)
    assert result.success
    assert result.truncated
    assert result.output_tail.endswith("line 200000\nTHE-END\n")
    assert len(result.output_tail.encode()) <= 4096
    assert result.output_tail.startswith("line ")  # cut at a line boundary
    expected_bytes = sum(len(f"line {i}\n") for i in range(1, 200001)) + len("THE-END\n")
    assert result.output_bytes == expected_bytes
    kept = result.output_tail.count("\n")
    assert result.omitted_lines + kept == 200001
    excerpt = result.output_excerpt(200)
    assert excerpt.startswith(f"[... {200001 - excerpt.count(chr(10)) + 1} earlier line(s) omitted")
    assert excerpt.endswith("THE-END\n")


def test_undecodable_bytes_become_text_not_reprs(tmp_path: Path) -> None:
    result = run_script(tmp_path, "printf 'bad \\377\\376 bytes\\n'\nexit 3\n")
    assert result.output_tail == "bad \ufffd\ufffd bytes\n"
    assert "b'" not in result.feedback_text()


def test_stdin_is_closed(tmp_path: Path) -> None:
    result = run_script(tmp_path, 'read -r line\necho "read=$?"\n', timeout=10.0)
    assert result.output_tail == "read=1\n"
    assert not result.timed_out


def test_a_missing_program_is_a_run_error(tmp_path: Path) -> None:
    with pytest.raises(RunError, match="cannot start"):
        run_process(["/nonexistent/prog"], cwd=tmp_path, env={}, timeout=5)


def test_tail_buffer_keeps_at_most_the_limit() -> None:
    buf = TailBuffer(10)
    for i in range(100):
        buf.feed(f"{i}\n".encode())
    text, dropped = buf.result()
    assert text.endswith("99\n") and len(text) <= 10
    assert dropped + text.count("\n") == 100
    assert buf.result() == (text, dropped)  # asking twice gives the same answer


def test_a_program_that_closes_its_output_early_is_waited_for() -> None:
    # It closes its output, then works on and exits 0: a finished run, not one killed.
    from git_gpte.run.process import run_process

    script = "exec >/dev/null 2>&1; sleep 0.5; exit 0"
    for _ in range(5):
        result = run_process(["bash", "-c", script], cwd=".", env=dict(os.environ), timeout=30)
        assert result.exit_code == 0 and not result.timed_out
