"""Bounded capture of a program's output: the tail is kept, the head is only counted.

A runaway program can print gigabytes; memory stays at about twice the limit, and the text
kept is the end of the output — where the error usually is.
"""

from __future__ import annotations

DEFAULT_MAX_OUTPUT_BYTES = 64 * 1024


class TailBuffer:
    """Accumulates bytes, keeping at most ``limit`` of the most recent ones."""

    def __init__(self, limit: int = DEFAULT_MAX_OUTPUT_BYTES) -> None:
        if limit <= 0:
            raise ValueError("the output limit must be positive")
        self.limit = limit
        self.total_bytes = 0
        self.dropped_lines = 0
        self._buf = bytearray()

    def feed(self, chunk: bytes) -> None:
        self.total_bytes += len(chunk)
        self._buf += chunk
        # Trim in batches so a stream of small chunks does not copy the buffer each time.
        if len(self._buf) > 2 * self.limit:
            self._drop(len(self._buf) - self.limit)

    @property
    def truncated(self) -> bool:
        return self.total_bytes > min(len(self._buf), self.limit)

    def result(self) -> tuple[str, int]:
        """(kept tail as text, number of lines dropped before it).

        When the head was dropped the tail starts at a line boundary, so neither a partial line
        nor a split UTF-8 sequence opens it.
        """
        keep = min(len(self._buf), self.limit)
        start = len(self._buf) - keep
        dropped = self.dropped_lines + self._buf.count(b"\n", 0, start)
        data = bytes(self._buf[start:])
        if self.total_bytes > len(data):
            newline = data.find(b"\n")
            if 0 <= newline < len(data) - 1:
                dropped += 1
                data = data[newline + 1 :]
        return data.decode("utf-8", errors="replace"), dropped

    def _drop(self, count: int) -> None:
        self.dropped_lines += self._buf.count(b"\n", 0, count)
        del self._buf[:count]
