"""Text put into a line at a column as ast counts it: in UTF-8 bytes, not characters."""

from __future__ import annotations


def insert_at(line: str, offset: int, text: str) -> str:
    """``line`` with ``text`` at byte ``offset`` (an ast node's ``col_offset`` or
    ``end_col_offset``), so that a name after a non-ASCII character lands where it is."""
    raw = line.encode("utf-8")
    return (raw[:offset] + text.encode("utf-8") + raw[offset:]).decode("utf-8")
