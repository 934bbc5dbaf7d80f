"""A probe's "did not raise" from a call the change's own guard lets through does not judge."""

from __future__ import annotations

from pathlib import Path

from git_gpte.prompts.probe_guards import expected_raise, new_guards
from tests.conftest import run_gpte
from tests.helpers.gitrepo import Snapshot, git, make_repo
from tests.helpers.llm_server import LLMServer, self_hosted_env

SLUG = '''\
"""Slugs."""


def slugify(text, delim="_"):
    """Join the words of ``text`` with ``delim``."""
    return delim.join(text.split())
'''

REQUEST = "slugify should raise ValueError when delim is an empty string"
DOOR = '    """Join the words of ``text`` with ``delim``."""\n'
RIGHT = SLUG.replace(DOOR, DOOR + '    if not delim:\n        raise ValueError("empty delim")\n')
# The check written as a function of its own that nothing calls (seen on cachetools: a
# module-level ``__init__``): slugify is as it was, and the probe's statement still judges.
ASIDE = SLUG + '\n\ndef check_delim(delim):\n    if not delim:\n        raise ValueError("empty")\n'

# Seen on boltons (stop 62): the call keeps the default delim, which is not empty.
PROBE = """\
```python
from slug import slugify

assert slugify("a b") == "a_b"
try:
    slugify("", delim="_")
    assert False, "slugify('', delim='_') did not raise ValueError"
except ValueError:
    pass
try:
    slugify("a b", delim="")
    assert False, "slugify('a b', delim='') did not raise ValueError"
except ValueError:
    pass
```
"""


def test_a_guard_the_change_adds_is_found_with_the_names_a_call_uses() -> None:
    before = "class Cache:\n    def __init__(self, size):\n        self.size = size\n"
    after = before.replace(
        "        self.size", "        if size < 0:\n            raise ValueError\n        self.size"
    )
    assert new_guards({"c.py": (before, after)}) == {
        ("Cache", "ValueError"),
        ("__init__", "ValueError"),
    }
    # One the base had already is no new guard.
    assert new_guards({"c.py": (after, after)}) == set()
    # An elif on the input reached through the if before it is one (marshmallow's answer).
    text = "def text(val):\n    if isinstance(val, bytes):\n        val = val.decode()\n"
    text += "    return val\n"
    guarded = text.replace(
        "    return",
        "    elif not isinstance(val, str):\n        raise errors.TypeError(val)\n    return",
    )
    assert new_guards({"t.py": (text, guarded)}) == {("text", "TypeError")}


def test_a_raise_after_a_return_or_on_no_input_is_no_guard() -> None:
    base = 'def slug(text, delim="_"):\n    return delim.join(text)\n'
    after_return = base.replace(
        "    return",
        "    if not text:\n        return ''\n"
        "    if not delim:\n        raise ValueError\n    return",
    )
    on_global = base.replace("    return", "    if DEBUG:\n        raise ValueError\n    return")
    unguarded = base.replace("    return", "    raise ValueError\n    return")
    for after in (after_return, on_global, unguarded, "def slug(:\n"):
        assert new_guards({"s.py": (base, after)}) == set()


def test_a_statement_expecting_a_raise_is_read() -> None:
    statement = "try:\n    m.slug('', delim=x())\n    assert False\nexcept ValueError:\n    pass"
    expected = expected_raise(statement)
    assert expected is not None
    assert (expected.called, expected.error, expected.first) == (
        {"slug", "x"}, "ValueError", "m.slug('', delim=x())"
    )  # fmt: skip
    assert expected_raise("assert slug('a') == 'a'") is None
    assert expected_raise("try:\n    slug()\nexcept (A, B):\n    pass") is None


def _env(server: LLMServer) -> dict[str, str]:
    return self_hosted_env(server, GPTE_PROBE="")  # the model's default: on when self-hosted


def test_a_right_guard_is_not_held_to_a_call_that_does_not_meet_it(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    root = make_repo(tmp_path / "slug", {"slug.py": SLUG})
    before = Snapshot.take(root)
    llm_server.queue(f"slug.py\n```python\n{RIGHT}```\n", PROBE)
    done = run_gpte("improve", REQUEST, cwd=root, env=_env(llm_server), timeout=300)
    assert done.returncode == 0, done.stderr
    assert len(llm_server.requests) == 2  # no retry asked for
    assert (
        "the probe expects ValueError from slugify('', delim='_'), a call the change's own "
        "check for it lets through: not held against the result"
    ) in done.stderr
    assert "the probe passed" in done.stderr  # its right statement still judges
    branch = git(root, "branch", "--list", "gpte/*").strip(" *\n")
    assert git(root, "show", f"{branch}:slug.py") == RIGHT
    before.assert_unchanged(root, new_branches=(branch,))


def test_a_check_the_called_function_never_runs_still_fails_the_probe(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    root = make_repo(tmp_path / "slug", {"slug.py": SLUG})
    llm_server.queue(
        f"slug.py\n```python\n{ASIDE}```\n", PROBE, f"slug.py\n```python\n{RIGHT}```\n"
    )
    # Worded so that slugify is not the request's subject (see edit/subject.py): the probe
    # alone then tells the check aside from the one asked for.
    request = "Raise ValueError from slugify when delim is an empty string"
    done = run_gpte("improve", request, cwd=root, env=_env(llm_server), timeout=300)
    assert done.returncode == 0, done.stderr
    assert "the probe failed: AssertionError: slugify('', delim='_')" in done.stderr
    assert len(llm_server.requests) == 3
    branch = git(root, "branch", "--list", "gpte/*").strip(" *\n")
    assert git(root, "show", f"{branch}:slug.py") == RIGHT
