"""How pipelines talk to the person (or CI log) watching them.

Pipelines never call ``print``: they take a :class:`Console`, so the same code streams tokens live
on a terminal, prints a quiet progress line in CI, and stays silent under ``--quiet`` or when a
command's output is JSON.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

# Off a terminal, a line this often while a model call goes on (a CI log is not silent for
# minutes); on a terminal the elapsed time is redrawn every TICK until the first token.
HEARTBEAT_S = 30.0
TICK_S = 1.0


class Console:
    """Messages go to stderr so stdout stays clean for results (and ``--json``)."""

    def __init__(
        self,
        *,
        quiet: bool = False,
        verbose: bool = False,
        stream: TextIO | None = None,
        live: bool | None = None,
    ) -> None:
        self.quiet = quiet
        self.verbose = verbose
        self.out = stream if stream is not None else sys.stderr
        # Live token streaming only on a terminal; CI gets progress lines instead.
        self.live = (not quiet) and (self.out.isatty() if live is None else live)
        self._lock = threading.Lock()
        self._spinning = False  # an elapsed-time line is on the terminal
        self._received = 0  # characters of the reply so far (for the heartbeat)
        self.heartbeat_s = _seconds(os.environ.get("GPTE_HEARTBEAT_SECONDS"), HEARTBEAT_S)

    @contextmanager
    def waiting(self, what: str) -> Iterator[None]:
        """While a model call goes on: on a terminal, the elapsed time until the first token;
        elsewhere, a line every ``heartbeat_s`` seconds until the call ends."""
        if self.quiet:
            yield
            return
        done = threading.Event()
        started = time.monotonic()
        self._received = 0

        def tick() -> None:
            every = TICK_S if self.live else self.heartbeat_s
            while not done.wait(every):
                elapsed = time.monotonic() - started
                with self._lock:
                    if self.live:
                        if self._received:
                            return  # the reply is streaming: it shows itself
                        self.out.write(f"\r\x1b[Kwaiting for {what}: {elapsed:.0f} s")
                        self._spinning = True
                    else:
                        got = f", {self._received:,} characters so far" if self._received else ""
                        self.out.write(f"still waiting for {what}: {elapsed:.0f} s{got}\n")
                    self.out.flush()

        thread = threading.Thread(target=tick, name="gpte-waiting", daemon=True)
        thread.start()
        try:
            yield
        finally:
            done.set()
            thread.join()
            with self._lock:
                self._clear()

    def _clear(self) -> None:
        if self._spinning:
            self.out.write("\r\x1b[K")
            self.out.flush()
            self._spinning = False

    def info(self, message: str) -> None:
        if not self.quiet:
            self._write(message + "\n")

    def detail(self, message: str) -> None:
        """Shown only with ``--verbose``."""
        if self.verbose and not self.quiet:
            self._write(message + "\n")

    def warn(self, message: str) -> None:
        """Always shown (even with ``--quiet``): something the user must know."""
        self._write(f"warning: {message}\n")

    def token(self, text: str) -> None:
        """One streamed piece of an LLM reply."""
        with self._lock:
            self._received += len(text)
            if self.live:
                self._clear()
                self.out.write(text)
                self.out.flush()

    def end_stream(self, summary: str = "") -> None:
        """Close a streamed reply; off a terminal, one line saying how much arrived."""
        if self.live:
            self._write("\n")
        elif summary and not self.quiet:
            self._write(summary + "\n")

    def _write(self, text: str) -> None:
        with self._lock:
            self._clear()
            self.out.write(text)
            self.out.flush()


def _seconds(text: str | None, default: float) -> float:
    try:
        value = float(text) if text else default
    except ValueError:
        return default
    return value if value > 0 else default
