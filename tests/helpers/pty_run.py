"""Run a command with its standard input, output and error on a pseudo-terminal.

For behaviour that depends on a real terminal (questions asked interactively, hints shown only
on a tty). ``answers`` are typed one line at a time, each after ``prompt_marker`` appears in the
output since the previous answer (or all at once when no marker is given).
"""

from __future__ import annotations

import os
import select
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass
class PtyResult:
    returncode: int
    output: str


def run_in_pty(
    argv: Sequence[str],
    *,
    cwd: Path | str,
    answers: Sequence[str] = (),
    prompt_marker: str | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 60,
) -> PtyResult:
    master, slave = os.openpty()
    full_env = dict(os.environ)
    full_env.update(env or {})
    full_env.setdefault("TERM", "dumb")
    proc = subprocess.Popen(
        list(argv),
        cwd=cwd,
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=full_env,
        start_new_session=True,
    )
    os.close(slave)
    chunks: list[bytes] = []
    pending = list(answers)
    seen_at = 0  # output length when the last answer was sent
    deadline = time.monotonic() + timeout
    if prompt_marker is None and pending:
        os.write(master, "".join(a + "\n" for a in pending).encode())
        pending = []
    try:
        while True:
            if time.monotonic() > deadline:
                proc.kill()
                raise AssertionError("timed out; output so far:\n" + b"".join(chunks).decode())
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    data = os.read(master, 65536)
                except OSError:  # EIO: the child closed the terminal
                    data = b""
                if not data:
                    if proc.poll() is not None:
                        break
                    continue
                chunks.append(data)
            text = b"".join(chunks).decode("utf-8", "replace")
            if pending and prompt_marker is not None and prompt_marker in text[seen_at:]:
                seen_at = len(text)
                os.write(master, (pending.pop(0) + "\n").encode())
            if not ready and proc.poll() is not None:
                break
    finally:
        os.close(master)
    code = proc.wait(timeout=10)
    return PtyResult(code, b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n"))


def read_until(fd: int, marker: str, buffer: list[str], deadline: float) -> bool:
    """Read ``fd`` into ``buffer`` until ``marker`` shows, the end, or ``deadline``."""
    while time.monotonic() < deadline:
        if marker in "".join(buffer):
            return True
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                data = os.read(fd, 4096)
            except OSError:
                return marker in "".join(buffer)
            if not data:
                break
            buffer.append(data.decode("utf-8", "replace"))
    return marker in "".join(buffer)
