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
carries the addition (an ``if`` on an input that raises; a log call); a check written a
second time in one function is taken out. Where the answer only added lines, just the
statements that carry the addition are kept, and those assigning a name they use (seen on
humanize, stop 63: beside ``intcomma``'s check, four statements of another function's body
and a ``return`` of another case made to raise). Stretches only of blank lines and comments
are left to :mod:`git_gpte.edit.layout`; new functions and module-level lines (an import,
``logger = ...``) are left alone, and so is a function the addition was not made in; a
function is put back only where the result still parses and names nothing undefined that
the answer's text did not.
"""

from __future__ import annotations

import ast
import difflib
import re
import textwrap
from dataclasses import dataclass, replace

from .definitions import parameter_names
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
_GOES_ON = ("elif ", "else:", "except:", "except ", "finally:", ")", "]", "}")


def keep_unasked_code(before: str, after: str, request: str = "") -> Repair | None:
    """``after`` with the code its changed functions lost or had replaced on the way put
    back, for a request that asks only for a check that raises or for logging; None when
    nothing is put back."""
    adds = _carrier(request)
    if adds is None:
        return None
    text, names = after, []
    for name in changed_definitions(before, after):
        old, new = (function_spans(before) or {}).get(name), (function_spans(text) or {}).get(name)
        if old is None or new is None:
            continue
        merged = _merged(old[0], new[0], adds.on(_parameters(new[0])))
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


@dataclass(frozen=True)
class _Addition:
    """What the request adds: a check raising one of ``raised`` on a name the request uses
    or a parameter (``words``), or logging (``raised`` empty); ``lines`` finds the lines
    that carry it."""

    lines: re.Pattern[str]
    raised: frozenset[str]
    words: frozenset[str]

    def on(self, parameters: set[str]) -> _Addition:
        """The addition to one function: a check may test its parameters too."""
        return replace(self, words=self.words | parameters)

    def carried_by(self, group: list[str]) -> bool:
        """Whether a stretch of statements is the addition: an ``if``/``elif`` on a name
        the request uses that raises, or a log call."""
        if not self.raised:
            return any(self.lines.search(line) for line in group)
        first = next((line.strip() for line in group if _is_code(line)), "")
        test = set(re.findall(r"[A-Za-z_]\w*", first))
        return (
            first.startswith(("if ", "elif "))
            and bool(test & self.words)
            and any(line.strip().startswith("raise") for line in group)
        )


def _carrier(request: str) -> _Addition | None:
    """What the request adds, for a request that asks only to add a check that raises or
    logging; else None."""
    request = request.strip()
    if _SENTENCE_END.search(request) or _MORE.search(request):
        return None
    words = frozenset(re.findall(r"[A-Za-z_]\w*", request))
    raised = frozenset(m.group(1) for m in _RAISE.finditer(request))
    if raised:
        names = "|".join(sorted(raised))
        return _Addition(re.compile(rf"\braise\b|\b(?:{names})\b"), raised, words)
    if _LOGGING.search(request):
        return _Addition(re.compile(r"\blog", re.I), frozenset(), words)
    return None


def _merged(old: str, new: str, adds: _Addition) -> str | None:
    """``new`` (a function's source) with what does not carry the addition as ``old`` has
    it, and a check written twice once; None when nothing changes, or when nothing carries
    the addition (a function changed instead of the one asked for is for
    :mod:`git_gpte.edit.subject` and the retries to tell).

    A stretch the answer replaced, whose old lines were code, stays as written when it
    carries the addition (``return f(x)`` made ``result = f(x)``, a log line, ``return
    result``) and is put back otherwise. Where the answer added lines (in place of blank
    lines or comments at most), only the statements that carry the addition are kept, and
    those assigning a name they use."""
    was_lines, now_lines = old.splitlines(keepends=True), new.splitlines(keepends=True)
    opcodes = difflib.SequenceMatcher(None, was_lines, now_lines, autojunk=False).get_opcodes()
    used = {
        name
        for _, _, _, j1, j2 in opcodes
        for group in _groups(now_lines[j1:j2])
        if adds.carried_by(group)
        for name in re.findall(r"[A-Za-z_]\w*", "".join(group))
    }
    out: list[str] = []
    put_back, carried = 0, False
    seen: set[tuple[str, ...]] = set()
    for tag, i1, i2, j1, j2 in opcodes:
        was, now = was_lines[i1:i2], now_lines[j1:j2]
        groups = _groups(now)
        carriers = [g for g in groups if adds.carried_by(g)]
        added = tuple(line.strip() for g in carriers for line in g if line.strip())
        if tag == "equal" or (_layout(was) and _layout(now)):
            out += now
        elif carriers and added in seen:
            out += was  # the same check a second time
            put_back += 1
        elif any(adds.lines.search(line) for line in was):
            out += now  # the answer changed lines that were the addition's already
        elif not _layout(was):
            out += now if carriers else was
            put_back += not carriers
        else:
            kept = [g for g in groups if g in carriers or _assigns(g) & used]
            dropped = any(not _layout(g) for g in groups if g not in kept)
            out += (was + [line for g in kept for line in g]) if dropped else now
            put_back += dropped
        if carriers:
            carried = True
            seen.add(added)
    return "".join(out) if put_back and carried else None


def _groups(lines: list[str]) -> list[list[str]]:
    """The lines as statements at their least indentation: a line there starts one, with
    the comment lines just above it, unless it goes on with the one before (``elif``,
    ``else``, a closing bracket) or follows comment lines only."""
    code = [line for line in lines if _is_code(line)]
    if not code:
        return [lines] if lines else []
    least = min(len(line) - len(line.lstrip()) for line in code)
    groups: list[list[str]] = []
    for line in lines:
        starts = (
            _is_code(line)
            and len(line) - len(line.lstrip()) == least
            and not line.lstrip().startswith(_GOES_ON)
        )
        if not groups or (starts and any(_is_code(g) for g in groups[-1])):
            comments: list[str] = []  # the comment lines just above a statement go with it
            while groups and groups[-1] and groups[-1][-1].strip().startswith("#"):
                comments.insert(0, groups[-1].pop())
            groups.append([*comments, line])
        else:
            groups[-1].append(line)
    return groups


def _parameters(source: str) -> set[str]:
    """The parameter names of the function ``source`` defines (none when it does not
    parse), but ``self`` and ``cls``."""
    try:
        function = ast.parse(textwrap.dedent(source)).body[0]
    except (SyntaxError, ValueError, IndexError):
        return set()
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return set()
    return parameter_names(function)


def _assigns(group: list[str]) -> set[str]:
    first = next((line for line in group if _is_code(line)), "")
    found = re.match(r"\s*([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*(?::[^=]+)?=(?!=)", first)
    return set(re.findall(r"[A-Za-z_]\w*", found.group(1))) if found else set()


def _is_code(line: str) -> bool:
    return bool(line.strip()) and not line.strip().startswith("#")


def _layout(lines: list[str]) -> bool:
    return all(not line.strip() or line.strip().startswith("#") for line in lines)


def _sound(candidate: str, text: str) -> bool:
    """Whether ``candidate`` parses and names nothing undefined that ``text`` does not."""
    if not parses(candidate):
        return False
    now, then = undefined_names(candidate), undefined_names(text)
    return now is not None and (then is None or now <= then)
