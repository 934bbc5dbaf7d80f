"""Running one process tree with a deadline, bounded capture, and nothing left behind.

The program runs in a new session (so its own process group, away from the terminal's Ctrl-C)
with stdin closed and stdout+stderr merged into one pipe. On timeout the whole group gets
SIGTERM, then SIGKILL after a grace period — children and grandchildren too. When the main
process exits on its own, whatever it left running is stopped the same way, so a backgrounded
server does not outlive the temporary worktree. On Ctrl-C (or any error) everything is killed
before the exception goes on.

A process can leave the group (``setsid``, a double-forking daemon) and clear its environment
(``env -i``). On Linux git-gpte makes itself a *child subreaper* (``prctl``), so every orphan of
the run is re-parented to it rather than to init: a program cannot opt out of that. After the run
the process table is read from ``/proc`` and every process of the run's session, every new child
of git-gpte (orphans that landed here) with all its descendants, and every process still
carrying the run's marker variable is stopped, then reaped. What is out of reach: processes
started on the program's behalf by another service (cron, systemd, a container engine, ssh to
this host), and anything at all when git-gpte itself is killed with SIGKILL.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import secrets
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import RunError
from ..signals import deferred
from .capture import DEFAULT_MAX_OUTPUT_BYTES, TailBuffer

OutputCallback = Callable[[bytes], None]

DEFAULT_KILL_GRACE = 3.0
_CHUNK = 65536
# How long a pipe held open by a leftover child is read after the main process has exited.
_IDLE_AFTER_EXIT = 0.2
# The environment variable that marks every process of one run (see _stop_escaped).
RUN_MARKER = "GITGPTE_RUN"


@dataclass(frozen=True)
class ProcessOutcome:
    exit_code: int
    timed_out: bool
    duration: float
    output_tail: str
    output_bytes: int
    truncated: bool
    omitted_lines: int


def run_process(
    argv: Sequence[str],
    *,
    cwd: str | os.PathLike[str],
    env: Mapping[str, str],
    timeout: float,
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
    kill_grace: float = DEFAULT_KILL_GRACE,
    on_output: OutputCallback | None = None,
    on_kill: Callable[[], None] | None = None,
) -> ProcessOutcome:
    """Run ``argv`` (no shell involved) and wait for it, at most ``timeout`` seconds.

    ``on_output`` sees every chunk as it arrives (for live display); ``on_kill`` runs before the
    group is killed (the Docker environment stops its container there).
    """
    if timeout <= 0:
        raise RunError(f"the timeout must be positive, got {timeout}")
    capture = TailBuffer(max_output_bytes)
    become_subreaper()
    before = _children_of(os.getpid(), _process_table())  # our own helpers (git cat-file, ...)
    token = secrets.token_hex(8)
    marker = f"{RUN_MARKER}={token}".encode()  # as it appears in /proc/<pid>/environ
    full_env = {**env, RUN_MARKER: token}
    start = time.monotonic()
    proc: subprocess.Popen[bytes] | None = None
    timed_out = False
    try:
        # An interrupt that lands while Popen is still returning (the program may already be
        # running: under load it often is) waits until ``proc`` is known, so the cleanup below
        # always knows which group to stop.
        with deferred():
            proc = _start(argv, cwd, full_env)
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        pgid = proc.pid  # session leader: its pid is the group id
        deadline = start + timeout
        eof = False
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                timed_out = True
                break
            ready, _, _ = select.select([fd], [], [], min(remaining, _IDLE_AFTER_EXIT))
            if ready:
                chunk = os.read(fd, _CHUNK)
                if not chunk:
                    eof = True
                    break
                _deliver(capture, chunk, on_output)
            elif proc.poll() is not None:
                break  # the main process is gone; something it started holds the pipe
        if eof and not timed_out:
            # The output closed, but the program may still be running (it closed its output,
            # or redirected it): it gets the rest of its time to finish before anything stops.
            try:
                proc.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                timed_out = True
        if timed_out and on_kill is not None:
            on_kill()
        # Timed out: stop everything. Finished: stop whatever it left running.
        _stop_group(pgid, proc, kill_grace)
        _stop_leftovers(marker, pgid, proc.pid, before, kill_grace)
        if not eof:
            _drain(fd, capture, on_output)
        exit_code = proc.wait()
    except BaseException:
        if proc is None:
            raise  # it never started (RunError), or an interrupt came before fork
        if on_kill is not None:
            with contextlib.suppress(Exception):  # best effort while already failing
                on_kill()
        _signal_group(proc.pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            _stop_leftovers(marker, proc.pid, proc.pid, before, 0.0)
        proc.wait()
        raise
    finally:
        if proc is not None and proc.stdout is not None:
            proc.stdout.close()
    duration = time.monotonic() - start
    text, omitted = capture.result()
    return ProcessOutcome(
        exit_code=exit_code,
        timed_out=timed_out,
        duration=duration,
        output_tail=text,
        output_bytes=capture.total_bytes,
        truncated=capture.truncated,
        omitted_lines=omitted,
    )


def _start(
    argv: Sequence[str], cwd: str | os.PathLike[str], env: dict[str, str]
) -> subprocess.Popen[bytes]:
    """The program in a session of its own (so its whole group can be signalled), output merged."""
    try:
        return subprocess.Popen(
            list(argv),
            cwd=Path(cwd),
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            close_fds=True,
        )
    except OSError as exc:
        raise RunError(f"cannot start {argv[0]!r}: {exc.strerror or exc}") from None


def _deliver(capture: TailBuffer, chunk: bytes, on_output: OutputCallback | None) -> None:
    capture.feed(chunk)
    if on_output is not None:
        on_output(chunk)


def _signal_group(pgid: int, sig: signal.Signals) -> bool:
    """Send ``sig`` to the group; False when no process is left in it."""
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    except PermissionError:  # pragma: no cover - a member changed user (setuid); nothing to do
        return False
    return True


def _group_alive(pgid: int, proc: subprocess.Popen[bytes]) -> bool:
    """True while a live (non-zombie) process remains in the group.

    Orphaned members are re-parented to init, which in a container may never reap them; a
    zombie holds nothing, so on Linux ``/proc`` is consulted to ignore them instead of waiting
    out the grace period.
    """
    proc.poll()  # reap the leader so it does not count as a member
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return _live_member_in_proc(pgid)


def _live_member_in_proc(pgid: int) -> bool:
    try:
        entries = os.listdir("/proc")
    except OSError:
        return True  # no /proc: trust killpg
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        # "pid (comm) state ppid pgrp ..." — comm may hold spaces or parentheses.
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) >= 3 and int(fields[2]) == pgid and fields[0] not in (b"Z", b"X"):
            return True
    return False


def _stop_group(pgid: int, proc: subprocess.Popen[bytes], grace: float) -> None:
    """SIGTERM to the group, SIGKILL to whatever is still there after ``grace`` seconds."""
    if not _group_alive(pgid, proc):
        return
    _signal_group(pgid, signal.SIGTERM)
    end = time.monotonic() + grace
    while time.monotonic() < end:
        if not _group_alive(pgid, proc):
            return
        time.sleep(0.05)
    _signal_group(pgid, signal.SIGKILL)


# prctl(2) option: orphaned descendants are re-parented to this process, not to init.
_PR_SET_CHILD_SUBREAPER = 36
_subreaper: list[bool] = []


def become_subreaper() -> bool:
    """Make this process the subreaper of its descendants (Linux; once per process). False
    where the system has no such thing, and then the session and marker sweeps are all there
    is."""
    if not _subreaper:
        ok = False
        if sys.platform.startswith("linux"):
            try:
                libc = ctypes.CDLL(None, use_errno=True)
                ok = libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
            except (OSError, AttributeError):
                ok = False
        _subreaper.append(ok)
    return _subreaper[0]


@dataclass(frozen=True)
class _Proc:
    ppid: int
    sid: int
    zombie: bool


def _process_table() -> dict[int, _Proc]:
    """pid -> (parent, session, zombie?) for every process /proc shows (empty without /proc)."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return {}
    table = {}
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        # "pid (comm) state ppid pgrp session ..." — comm may hold spaces or parentheses.
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) >= 4:
            table[int(entry)] = _Proc(int(fields[1]), int(fields[3]), fields[0] in (b"Z", b"X"))
    return table


def _children_of(pid: int, table: dict[int, _Proc]) -> set[int]:
    return {child for child, info in table.items() if info.ppid == pid}


def _has_marker(pid: int, marker: bytes) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            return marker in handle.read().split(b"\0")
    except OSError:  # gone, or not ours to read
        return False


def _leftovers(marker: bytes, sid: int, main: int, before: set[int]) -> tuple[set[int], set[int]]:
    """(live processes of the run, zombies among our children to reap). The run's processes:
    its session; every child of ours that was not there before the run (an orphan re-parented
    to us, the subreaper) and its descendants; whatever carries the run's marker."""
    own = os.getpid()
    table = _process_table()
    ours = _children_of(own, table) - before - {main}
    roots = {pid for pid, info in table.items() if info.sid == sid} | ours
    roots |= {pid for pid, info in table.items() if not info.zombie and _has_marker(pid, marker)}
    found: set[int] = set()
    stack = list(roots)
    while stack:
        pid = stack.pop()
        if pid in found or pid == own:
            continue
        found.add(pid)
        stack.extend(_children_of(pid, table))
    live = {pid for pid in found if pid in table and not table[pid].zombie and pid != main}
    zombies = {pid for pid in ours if table[pid].zombie}
    return live, zombies


def _signal_all(pids: set[int], sig: signal.Signals) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


def _reap(pids: set[int]) -> None:
    for pid in pids:
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(pid, os.WNOHANG)


def _stop_leftovers(marker: bytes, sid: int, main: int, before: set[int], grace: float) -> None:
    """Stop every process the run left (see :func:`_leftovers`): SIGTERM, then SIGKILL after
    ``grace`` seconds; orphans that end up as our zombies are reaped. Re-scanned each round, so
    a process that forks while being stopped is caught too."""
    live, zombies = _leftovers(marker, sid, main, before)
    _reap(zombies)
    if not live:
        return
    _signal_all(live, signal.SIGTERM)
    end = time.monotonic() + grace
    while time.monotonic() < end:
        time.sleep(0.05)
        live, zombies = _leftovers(marker, sid, main, before)
        _reap(zombies)
        if not live:
            return
        _signal_all(live, signal.SIGTERM)
    for _ in range(20):  # SIGKILL until nothing is left (a fork between scan and kill)
        live, zombies = _leftovers(marker, sid, main, before)
        _reap(zombies)
        if not live:
            return
        _signal_all(live, signal.SIGKILL)
        time.sleep(0.02)


def _drain(fd: int, capture: TailBuffer, on_output: OutputCallback | None) -> None:
    """Read what is left in the pipe without waiting on a writer that escaped the group."""
    end = time.monotonic() + 1.0
    while time.monotonic() < end:
        ready, _, _ = select.select([fd], [], [], 0.05)
        if not ready:
            return
        chunk = os.read(fd, _CHUNK)
        if not chunk:
            return
        _deliver(capture, chunk, on_output)
