"""Untrusted text in what GitHub renders: status comments, pull-request bodies, thread replies
and the job summary.

File names and refusal reasons come from a model, branch names and commands from whoever
pushed, output from the program under test. GitHub renders Markdown and a subset of HTML, links
``@user`` and ``@org/team`` mentions (which notify people) and ``#123`` references. Every such
string goes through one of these functions, never into Markdown as it is:

* :func:`code` — one line in a code span whose fence is longer than any run of backticks inside,
  so it cannot be closed early; inside a code span nothing is markup, HTML or a mention;
* :func:`cell` — a code span fit for a table cell (GitHub splits rows on ``|`` even in code);
* :func:`fence` — a block of output in a code fence no line inside can close.
"""

from __future__ import annotations

import re

from .sanitize import strip_invisible

_BACKTICKS = re.compile(r"`+")


def _longest_run(text: str) -> int:
    return max((len(run) for run in _BACKTICKS.findall(text)), default=0)


def code(text: str) -> str:
    """``text`` as a one-line code span that renders as exactly its characters."""
    flat = " ".join(strip_invisible(text).split()) or " "
    ticks = "`" * (_longest_run(flat) + 1)
    # A span that starts or ends with a backtick needs a space between it and the fence (the
    # renderer strips one space from each side when both are there).
    if flat.startswith("`") or flat.endswith("`") or (flat.startswith(" ") and flat != " "):
        flat = f" {flat} "
    return f"{ticks}{flat}{ticks}"


def cell(text: str) -> str:
    """``text`` for a Markdown table cell: a code span with ``|`` escaped."""
    return code(text).replace("|", "\\|")


def fence(text: str, lang: str = "text") -> str:
    """``text`` in a code fence no line inside can close."""
    ticks = "`" * max(3, _longest_run(text) + 1)
    return f"{ticks}{lang}\n{strip_invisible(text).rstrip()}\n{ticks}"
