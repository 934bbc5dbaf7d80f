"""An answer that changes only docstrings or comments, through ``git gpte improve``.

Seen with the 1.5B model on marshmallow: asked to make ``get_fixed_timezone`` refuse an offset
of 24 hours, it wrote the function back as it was and another one with its docstring
reflowed. Sent the whole module again with "its code is unchanged", it did the same; shown the
function alone with the request (the retry for an answer that copied what it was shown), it
added the check in 4 answers of 4.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import run_gpte
from tests.helpers.gitrepo import git, make_repo
from tests.helpers.llm_server import LLMServer, self_hosted_env

HELPERS = "".join(
    f'\n\ndef helper_{n}(value):\n    """Helper number {n}."""\n    return value * {n}\n'
    for n in range(12)
)

TIMEZONE = '''def fixed_timezone(offset):
    """Return a tzinfo with a fixed offset from UTC, in minutes."""
    sign = "-" if offset < 0 else "+"
    hhmm = "%02d%02d" % divmod(abs(offset), 60)
    return dt.timezone(dt.timedelta(minutes=offset), sign + hhmm)
'''

FROM_RFC = '''def from_rfc(text):
    """Parse an RFC 822 date."""
    return text
'''

ZONES = f"import datetime as dt\n\n\n{TIMEZONE}\n\n{FROM_RFC}{HELPERS}"

# The function as it was, and another with only its docstring changed.
REFLOWED = FROM_RFC.replace("an RFC 822 date", "an RFC 822 formatted date string")
UNCHANGED = f"zones.py\n```python\n{TIMEZONE}\n\n{REFLOWED}```\n"

GUARD = """    if abs(offset) >= 24 * 60:
        raise ValueError("the offset must be under 24 hours")
"""
FIXED = (
    "zones.py\n```python\n" + TIMEZONE.replace('minutes."""\n', f'minutes."""\n{GUARD}') + "```\n"
)


def test_an_answer_changing_no_code_is_asked_again_with_only_what_it_chose(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    repo = make_repo(tmp_path / "r", {"zones.py": ZONES})
    llm_server.queue(UNCHANGED, FIXED)
    request = "fixed_timezone should raise ValueError when the offset is 24 hours or more"
    done = run_gpte(
        "improve", request, "--json", "--edit-format", "definitions", "--no-probe",
        cwd=repo, env=self_hosted_env(llm_server), timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    result = git(repo, "show", f"{json.loads(done.stdout)['branch']}:zones.py")
    assert 'raise ValueError("the offset must be under 24 hours")' in result
    retry = llm_server.requests[1].body["messages"]
    assert [m["role"] for m in retry] == ["system", "user"]  # a new, short conversation
    asked = retry[1]["content"]
    assert "def fixed_timezone(offset):" in asked and "Write the definitions that must" in asked
    assert "def helper_3" not in asked  # not the whole module again
