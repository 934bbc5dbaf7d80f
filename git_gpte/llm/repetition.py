"""Noticing a reply that repeats itself without end, so it can be stopped.

Small local models sometimes fall into a loop: the same lines over and over until the output
cap (thousands of tokens, minutes on a small machine). A reply whose last stretch is one unit
of text repeated back to back, several times, is such a loop; code people write does not hold
a few hundred identical characters three times in a row. Pure functions on text.
"""

from __future__ import annotations

# The tail examined, and the longest unit that must repeat (at least three times) within it.
WINDOW = 1500
MAX_UNIT = WINDOW // 3
# Units this short are runs of one character or pattern ("=====", "0, 0, 0"), which data can hold.
MIN_UNIT = 12
# How often to look while a reply streams: every this many new characters.
STEP = 256


def loop_start(text: str) -> int | None:
    """Where ``text`` starts repeating one unit to its end, with one copy of the unit kept
    (cut there to keep what came before the loop), or None when it does not."""
    if len(text) < WINDOW + MIN_UNIT:
        return None
    tail = text[-WINDOW:]
    for unit in range(MIN_UNIT, MAX_UNIT + 1):
        if tail == text[-WINDOW - unit : -unit] and len(set(tail[:unit].strip())) > 2:
            start = len(text) - WINDOW - unit
            while start > 0 and text[start - 1] == text[start - 1 + unit]:
                start -= 1
            return start + unit
    return None


class LoopWatch:
    """Fed the pieces of a streamed reply; says when it has started looping. Looks at the
    tail only (a reply of 500 KB is not joined again every few pieces)."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.tail = ""
        self.size = 0
        self._next = WINDOW + MIN_UNIT

    def feed(self, piece: str) -> int | None:
        """The cut point (see :func:`loop_start`) once the reply loops, else None."""
        self.text.append(piece)
        self.size += len(piece)
        self.tail = (self.tail + piece)[-(WINDOW + MAX_UNIT + 1) :]
        if self.size < self._next:
            return None
        self._next = self.size + STEP
        if loop_start(self.tail) is None:
            return None
        return loop_start("".join(self.text))
