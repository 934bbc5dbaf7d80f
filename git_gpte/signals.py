"""SIGTERM and SIGHUP treated like Ctrl-C for the whole command.

CI runners cancel a job with SIGTERM, and closing a terminal (or losing an ssh connection)
sends SIGHUP. ``cli.main`` turns both into KeyboardInterrupt for every command, so runs are
recorded as interrupted and ``finally`` blocks clean up exactly as after Ctrl-C: a program
under test (in its own session, so the signal does not reach it) has its process group killed
and its temporary worktree removed. A signal the caller chose to ignore (``nohup``) stays
ignored.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType

_SIGNALS = tuple(
    sig for sig in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)) if sig
)


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    previous = {}
    for sig in _SIGNALS:
        if sig == getattr(signal, "SIGHUP", None) and signal.getsignal(sig) == signal.SIG_IGN:
            continue  # under nohup: keep running
        previous[sig] = signal.signal(sig, handler)
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
