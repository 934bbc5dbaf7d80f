"""What an answer to a request that only adds changed besides, in the definitions it touched.

Some everyday requests ask for an addition and nothing else: "NAME should raise E when ...",
"add logging to NAME". Rewriting the function to add it, the 1.5B model changes other lines
on the way. Seen on jinja (stop 62, docs/benchmarks.md): asked that ``generate_lorem_ipsum``
raise ValueError when min > max, it wrote the check right, wrote it again inside the loop in
place of a comment, and replaced the nine lines that end each paragraph with a dot by one
that does not; the project's tests could not run here, the probe could not tell, and the
result was committed as a success. On requests (solved): asked for logging, it also turned a
generator into a list.

For such a request (one sentence, asking for that addition alone), each stretch of a changed
function that the answer replaced or took out is put back when none of its lines, old or new,
carries the addition (``raise`` or the exception asked for; a log call or logger); a check
written a second time in one function is taken out. Stretches only of blank lines and
comments are left to :mod:`git_gpte.edit.layout`, new functions and module-level lines (an
import, ``logger = ...``) are left alone, so is a function the addition was not made in,
and a function is put back only where the result
still parses and names nothing undefined that the answer's text did not.
"""

from __future__ import annotations

import difflib
import re

from .pycheck import undefined_names
from .revert import changed_definitions, function_spans
from .wholefile import Repair, parses

# "should raise E", "make it raise E"; not "raises E when ...", which often says what the code
# does now (inventory/save-pathlib: "raises a TypeError when it is given a pathlib.Path").
_RAISE = re.compile(r"\b(?i:raise)\s+(?:an?\s+)?(?:[A-Za-z_]\w*\.)*([A-Z]\w*(?:Error|Exception))\b")
_LOGGING = re.compile(
    r"\badd\s+(?:some\s+)?(?:debug\s+)?logging\b|\blog\s+(?:an?\s+|the\s+)?"
    r"(?:debug|info|warning|error)?\s*(?:message|line|entry)",
    re.I,
)
# Words of a request that asks for more than the addition.
_MORE = re.compile(
    r"\b(?:instead|rather|otherwise|replace|rewrite|refactor|rename|fix|also|simplify|clean"
    r"|returns?|change|remove|move|convert|print)\b",
    re.I,
)
_SENTENCE_END = re.compile(r"[.!?]\s+\S")


def keep_unasked_code(before: str, after: str, request: str = "") -> Repair | None:
    """``after`` with the code its changed functions lost or had replaced on the way put
    back, for a request that asks only for a check that raises or for logging; None when
    nothing is put back."""
    carries = _carrier(request)
    if carries is None:
        return None
    text, names = after, []
    for name in changed_definitions(before, after):
        old, new = (function_spans(before) or {}).get(name), (function_spans(text) or {}).get(name)
        if old is None or new is None:
            continue
        merged = _merged(old[0], new[0], carries)
        if merged is None:
            continue
        lines = text.splitlines(keepends=True)
        candidate = "".join(lines[: new[1]]) + merged + "".join(lines[new[2] :])
        if _sound(candidate, text):
            text = candidate
            names.append(name)
    if not names:
        return None
    return Repair(
        text, "put back code the reply changed beside what was asked: " + ", ".join(names)
    )


def _carrier(request: str) -> re.Pattern[str] | None:
    """The lines that carry what the request adds, for a request that asks only to add a
    check that raises or logging; else None."""
    request = request.strip()
    if _SENTENCE_END.search(request) or _MORE.search(request):
        return None
    raised = {m.group(1) for m in _RAISE.finditer(request)}
    if raised:
        names = "|".join(sorted(raised))
        return re.compile(rf"\braise\b|\b(?:{names})\b")
    if _LOGGING.search(request):
        return re.compile(r"\blog", re.I)
    return None


def _merged(old: str, new: str, carries: re.Pattern[str]) -> str | None:
    """``new`` (a function's source) with the stretches that do not carry the addition as
    ``old`` has them, and a check written twice once; None when nothing changes, or when no
    stretch carries the addition (a function changed instead of the one asked for is for
    :mod:`git_gpte.edit.subject` and the retries to tell)."""
    was_lines, now_lines = old.splitlines(keepends=True), new.splitlines(keepends=True)
    out: list[str] = []
    put_back, carried = 0, False
    seen: set[tuple[str, ...]] = set()
    matcher = difflib.SequenceMatcher(None, was_lines, now_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        was, now = was_lines[i1:i2], now_lines[j1:j2]
        added = tuple(line.strip() for line in now if line.strip())
        carries_it = any(carries.search(line) for line in now)
        if tag == "equal" or (_layout(was) and _layout(now)):
            out += now
        elif any(line.lstrip().startswith("raise") for line in now) and added in seen:
            out += was  # the same check a second time
            put_back += 1
        elif tag == "insert" or carries_it or any(carries.search(line) for line in was):
            out += now
            seen.add(added)
            carried = carried or carries_it
        else:
            out += was
            put_back += 1
    return "".join(out) if put_back and carried else None


def _layout(lines: list[str]) -> bool:
    return all(not line.strip() or line.strip().startswith("#") for line in lines)


def _sound(candidate: str, text: str) -> bool:
    """Whether ``candidate`` parses and names nothing undefined that ``text`` does not."""
    if not parses(candidate):
        return False
    now, then = undefined_names(candidate), undefined_names(text)
    return now is not None and (then is None or now <= then)
