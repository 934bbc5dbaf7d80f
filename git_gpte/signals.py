"""SIGTERM and SIGHUP treated like Ctrl-C for the whole command (and while a program runs).

CI runners cancel a job with SIGTERM, and closing a terminal (or losing an ssh connection)
sends SIGHUP. The program under test runs in its own session, so neither signal reaches it;
turning them into KeyboardInterrupt lets the ``finally`` blocks kill its process group and
remove the temporary worktree, exactly as after Ctrl-C. A signal the caller chose to ignore
(``nohup``) stays ignored.
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
