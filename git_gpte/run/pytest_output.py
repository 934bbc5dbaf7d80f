"""pytest's report with each repeated failure shown once.

One broken helper fails every test that reaches it, and pytest prints the same traceback under
each test's name: a fixture that raises gave fourteen copies of one six-line traceback (8.6 kB),
which the capped tail then cut from the front, and which cost a small model about a thousand
tokens of reading (some 15 s on two cores) before it answered the same. A traceback printed
again word for word says nothing new; its tests' names are what is new, so each repeat becomes
a name under the first copy. The summary lines at the end, which name every failing test, stay
as they are.
"""

from __future__ import annotations

import re

# A test's section: "____ test_name ____" or "____ ERROR at setup of test_name ____".
_SECTION = re.compile(r"^_{3,} (.+?) _{3,}$")
# pytest's part headers ("==== FAILURES ====", "==== short test summary info ====").
_PART = re.compile(r"^={3,}( .* )?={3,}$")
# How many repeated names are listed under the first copy before "and N more".
SHOWN_NAMES = 8


def condense(output: str) -> str:
    """``output`` with every test section whose traceback repeats an earlier one's word for
    word left out, and the earlier one naming the tests that repeated it. Output that is not a
    pytest report, or has no repeats, comes back unchanged."""
    lines = output.splitlines(keepends=True)
    sections = _sections(lines)
    first: dict[str, int] = {}  # a traceback -> the index of the section that shows it
    repeats: dict[int, list[str]] = {}
    dropped: set[int] = set()
    for index, (_, name, body) in enumerate(sections):
        if name is None or not body.strip():
            continue
        if body in first:
            repeats.setdefault(first[body], []).append(name)
            dropped.add(index)
        else:
            first[body] = index
    if not dropped:
        return output
    out: list[str] = []
    for index, (header, _, body) in enumerate(sections):
        if index in dropped:
            continue
        out.append(header)
        out.append(body)
        if index in repeats:
            out.append(_same_note(repeats[index]))
    return "".join(out)


def _sections(lines: list[str]) -> list[tuple[str, str | None, str]]:
    """The output cut at section and part headers: (header line, the test's name or None,
    the lines up to the next header). Text before the first header is a section of its own
    with an empty header."""
    sections: list[tuple[str, str | None, list[str]]] = [("", None, [])]
    for line in lines:
        stripped = line.rstrip("\r\n")
        section = _SECTION.match(stripped)
        if section:
            sections.append((line, section.group(1), []))
        elif _PART.match(stripped):
            sections.append((line, None, []))
        else:
            sections[-1][2].append(line)
    return [(header, name, "".join(body)) for header, name, body in sections]


def _same_note(names: list[str]) -> str:
    shown = ", ".join(names[:SHOWN_NAMES])
    more = f" and {len(names) - SHOWN_NAMES} more" if len(names) > SHOWN_NAMES else ""
    return f"[the same traceback for {len(names)} more: {shown}{more}]\n"
