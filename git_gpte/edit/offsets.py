"""Text put into a line at a column as ast counts it: in UTF-8 bytes, not characters."""

from __future__ import annotations

import ast


def insert_at(line: str, offset: int, text: str) -> str:
    """``line`` with ``text`` at byte ``offset`` (an ast node's ``col_offset`` or
    ``end_col_offset``), so that a name after a non-ASCII character lands where it is."""
    raw = line.encode("utf-8")
    return (raw[:offset] + text.encode("utf-8") + raw[offset:]).decode("utf-8")


def indent_unit(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """One step of indentation as ``node`` writes it (its body's against its ``def``): what a
    line put into a block it opens is indented by."""
    step = node.body[0].col_offset - node.col_offset if node.body else 4
    return " " * (step if step > 0 else 4)
