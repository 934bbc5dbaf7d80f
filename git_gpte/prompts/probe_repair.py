"""A probe that misused the project's code where it sets up, asked for once more with the
project's own calls of what it misused.

Every statement of such a probe fails on its own: ``settings = Settings({"a": "b,c"})`` raises
the project's ValueError (its keys look like ``section.option``) before the change and after
it, and each assertion after it fails by the name never bound. Nothing then judges the result
(settings/get-list: a missing key's default never checked, a wrong answer claimed). Shown the
error alone, the 1.5B model wrote the same call again in 11 of 12 answers (docs/benchmarks.md);
shown the project's tests whole, it copied them. Here it is shown the error and a few lines of
the tests that make the same call (the shortest: the first line of settings/get-list's tests
builds ``Settings`` with a value its test expects to be refused, and the model copied it with
the test's call), and asked for the script again. Pure functions: which names a statement
calls, the lines of a test that call one, the shortest of them, the messages.
"""

from __future__ import annotations

import ast
import re

MAX_USAGE_LINES = 2  # shown, the shortest of those found: the 1.5B model copies the first
MAX_USAGE_CHARS = 160
MAX_USAGE_FOUND = 24

_REPAIR = """\
Your script stopped before it checked anything: the statement
```python
{statement}
```
raised {error}
The mistake is the script's: the project's tests call {name} like this:
```python
{usage}
```
Write your script again with every check it makes, changing only how it calls {name}, as \
the tests do. Answer with the script in one ```python block and nothing else."""


def called_names(statement: str) -> list[str]:
    """The names a statement calls, outermost first: ``Settings`` of ``s =
    Settings(values={...})``, ``load`` of ``x = store.load(path)``."""
    try:
        tree = ast.parse(statement)
    except (SyntaxError, ValueError):
        return []
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            if name and name not in names:
                names.append(name)
    return names


def usage_lines(text: str, name: str, most: int = MAX_USAGE_FOUND) -> list[str]:
    """Lines of ``text`` (a test file) that call ``name`` and hold the whole call, with no
    call chained to its result (``Settings({...}).get_int(...)`` tests ``get_int``): its
    parentheses balance on the line, and it is short."""
    call = re.compile(rf"(?<![\w]){re.escape(name)}\(")
    found: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        match = call.search(stripped)
        if (
            match is not None
            and _plain_call(stripped, match.end())
            and stripped.count("(") == stripped.count(")")
            and len(stripped) <= MAX_USAGE_CHARS
            and not stripped.startswith(("#", "def ", "class "))
            and stripped not in found
        ):
            found.append(stripped)
            if len(found) == most:
                break
    return found


def _plain_call(line: str, opened: int) -> bool:
    """Whether the call whose ``(`` ends at ``opened`` closes on the line with nothing chained
    to it (no ``.attr``, ``[...]`` or call after its ``)``)."""
    depth = 1
    for at in range(opened, len(line)):
        depth += {"(": 1, ")": -1}.get(line[at], 0)
        if depth == 0:
            return not line[at + 1 :].lstrip().startswith((".", "[", "("))
    return False


def shortest(lines: list[str], most: int = MAX_USAGE_LINES) -> list[str]:
    """The ``most`` shortest of ``lines``, in their order (a call with fewer arguments and no
    call chained after it: the plainest use)."""
    kept = set(sorted(lines, key=len)[:most])
    return [line for line in lines if line in kept]


def repair_messages(
    messages: list[dict[str, str]],
    script: str,
    statement: str,
    error: str,
    name: str,
    usage: list[str],
) -> list[dict[str, str]]:
    """The probe's conversation, its script as the answer, and the ask to write it again
    calling ``name`` as the tests' ``usage`` lines do."""
    ask = _REPAIR.format(
        statement=statement.strip(), error=error.strip(), name=name, usage="\n".join(usage)
    )
    return [
        *messages,
        {"role": "assistant", "content": f"```python\n{script.rstrip()}\n```"},
        {"role": "user", "content": ask},
    ]
