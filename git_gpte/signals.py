"""Ctrl-C, SIGTERM and SIGHUP: one interrupt for the whole command, then a clean stop.

CI runners cancel a job with SIGTERM, and closing a terminal (or losing an ssh connection)
sends SIGHUP; both end the command the way Ctrl-C does. ``cli.main`` installs one handler for
the three: the *first* signal raises KeyboardInterrupt, so runs are recorded as interrupted and
``finally`` blocks clean up (a program under test has its process group killed, its temporary
worktree removed). Every later signal is only noted: the command is already stopping, and a
second KeyboardInterrupt landing inside that cleanup is what used to leave a run ``running`` and
a transaction half rolled back. That second signal is common: git forwards Ctrl-C to its
``git-gpte`` child, which also gets it from the terminal, so one key press is two SIGINTs a few
milliseconds apart. Only a signal arriving :data:`FORCE_AFTER` seconds after the first (a user
pressing Ctrl-C again because cleanup hangs) stops the process at once.

A signal the caller chose to ignore (``nohup``) stays ignored.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Iterator
from types import FrameType

FORCE_AFTER = 5.0  # seconds after the first interrupt when another one ends the process at once

_SIGNALS = tuple(
    sig
    for sig in (
        signal.SIGINT,
        getattr(signal, "SIGTERM", None),
        getattr(signal, "SIGHUP", None),
    )
    if sig
)


class _State:
    first: float | None = None  # monotonic time of the first interrupt
    deferring: int = 0  # depth of ``deferred()`` blocks
    pending: bool = False  # a signal arrived inside ``deferred()``


def interrupted() -> bool:
    """Whether this command has been interrupted already."""
    return _State.first is not None


def _handler(signum: int, frame: FrameType | None) -> None:
    now = time.monotonic()
    if _State.first is None:
        if _State.deferring:
            _State.pending = True
            return
        _State.first = now
        raise KeyboardInterrupt
    if now - _State.first >= FORCE_AFTER:
        os.write(2, b"git-gpte: interrupted again; stopping without cleaning up\n")
        os._exit(130)


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def interrupts_as_keyboard_interrupt(*, exiting: bool = False) -> Iterator[None]:
    """Install the handler for the duration of a command (a no-op off the main thread).

    ``exiting``: the process ends after the block (the console script). Once interrupted, the
    signals are then ignored instead of restored (SIG_IGN, which the interpreter keeps while it
    shuts down, unlike a Python handler), so a second Ctrl-C arriving during shutdown cannot
    turn the clean exit 130 into death by signal.
    """
    if not _main_thread():
        yield
        return
    previous = {}
    for sig in _SIGNALS:
        if sig == getattr(signal, "SIGHUP", None) and signal.getsignal(sig) == signal.SIG_IGN:
            continue  # under nohup: keep running
        previous[sig] = signal.signal(sig, _handler)
    _State.first, _State.pending, _State.deferring = None, False, 0
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, signal.SIG_IGN if exiting and _State.first is not None else old)


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """Hold an interrupt back until the block is done, then deliver it.

    For cleanup that must finish (removing a worktree). Works with the command's handler and,
    where that is not installed (library use, tests), with Python's default Ctrl-C.
    """
    if not _main_thread():
        yield
        return
    ours = signal.getsignal(signal.SIGINT) is _handler
    previous = None
    if not ours:
        try:
            previous = signal.signal(
                signal.SIGINT, lambda signum, frame: setattr(_State, "pending", True)
            )
        except ValueError:  # pragma: no cover - not the main interpreter
            yield
            return
    _State.deferring += 1
    try:
        yield
    finally:
        _State.deferring -= 1
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
        if _State.pending and not _State.deferring:
            _State.pending = False
            if _State.first is None:
                _State.first = time.monotonic()
                raise KeyboardInterrupt


@contextlib.contextmanager
def blocked() -> Iterator[None]:
    """Block the interrupt signals for a short critical section (closing a run's record).

    A signal that arrives meanwhile is delivered when the block ends.
    """
    if not _main_thread() or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)
