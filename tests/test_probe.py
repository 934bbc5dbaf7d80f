"""The probe: a script of asserts written from the request, run on the result (--probe)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from git_gpte.prompts.probe import (
    Verdict,
    changed_signatures,
    focus_sentences,
    module_name,
    probe_enough,
    probe_script,
    step_verdicts,
)
from git_gpte.prompts.probe_steps import (
    harness,
    is_new_crash,
    named_exceptions,
    quoted,
    raises_one_of,
    steps,
    stopped_exceptions,
    uses_example,
    with_blank_calls,
)
from tests.conftest import run_gpte
from tests.helpers.gitrepo import Snapshot, git, make_repo
from tests.helpers.llm_server import LLMServer, self_hosted_env

STOCK = '''\
"""Stock levels."""


class Store:
    def __init__(self, levels):
        self.levels = levels

    def is_low(self, sku, stock):
        """Whether ``stock`` of ``sku`` calls for reordering."""
        return stock < self.levels[sku]

    def names(self):
        return sorted(self.levels)
'''

REQUEST = "Store.is_low returns False when the stock is exactly at its level; it should be low."
# The same without the words of a boundary: no comparison is tried once the answers failed (see
# tests/test_boundary_cli.py), so what the probe makes of a wrong result is what is committed.
NOT_SEARCHED = "Store.is_low returns False when the stock is at its level; it should be low."

WRONG = STOCK.replace(
    "return stock < self.levels[sku]", "return stock < self.levels[sku] or stock == 0"
)
RIGHT = STOCK.replace("return stock < self.levels[sku]", "return stock <= self.levels[sku]")

PROBE = """\
Here is a script:

```python
from stock import Store

store = Store({"a": 5})
assert store.is_low("a", 5)
assert store.is_low("a", 4)
assert not store.is_low("a", 6)
```
"""


def test_the_probe_is_shown_the_signatures_of_what_changed_not_the_bodies() -> None:
    shown = changed_signatures({"src/shop/stock.py": (STOCK, WRONG), "notes.txt": ("", "x")})
    assert shown.splitlines() == [
        "# src/shop/stock.py: import shop.stock",
        "class Store:",
        "    def __init__(self, levels)",
        "    def is_low(self, sku, stock)",
    ]
    assert changed_signatures({"a-b/c.py": (STOCK, WRONG)}) == ""  # not importable
    assert module_name("pkg/__init__.py") == "pkg"


def test_only_a_short_script_that_parses_and_asserts_is_a_probe() -> None:
    assert probe_script(PROBE) is not None
    assert probe_script("```python\nprint(1)\n```") is None  # asserts nothing
    assert probe_script("```python\nassert (\n```") is None
    assert probe_script("no code at all") is None
    copy = "```python\nclass Store:\n    def is_low(self):\n        return True\n\n\n"
    copy += "assert Store().is_low()\n```"
    assert probe_script(copy, "class Store:\n    def is_low(self, sku, stock)") is None
    assert probe_script(copy) is not None
    # Seen: `invoice.apply_discount = lambda amount, percent: print(...)`, then asserts on it.
    patched = (
        "```python\nimport stock\nstock.Store.is_low = lambda *a: True\nassert stock.Store\n```"
    )
    assert probe_script(patched, "class Store:\n    def is_low(self, sku, stock)") is None
    # Test functions as pytest would collect them are called at the end, once each.
    written = "```python\ndef test_low():\n    assert f()\n\n\ndef test_high():\n    assert g()\n"
    assert probe_script(written + "\ntest_high()\n```").endswith("test_high()\n\n\ntest_low()\n")
    assert probe_script("```python\n" + "assert True\n" * 200 + "```") is None
    cut = probe_enough(PROBE + "\nAnd another:\n```python\nassert 1\n```")
    assert cut is not None and PROBE.rstrip().endswith((PROBE + "\nAnd")[: cut[0]].rstrip()[-20:])
    assert probe_enough("x" * 5000) is not None
    assert probe_enough("```python\nassert 1\n") is None


def test_a_changed_function_called_by_name_is_imported_from_its_module() -> None:
    # Seen: `import todo.models`, then `parse_priority(...)`, which would fail with NameError
    # and the probe be dropped as misusing the code.
    signatures = "# todo/models.py: import todo.models\ndef parse_priority(value)\nclass Task:\n"
    reply = "```python\nfrom __future__ import annotations\nimport todo.models\n\n"
    reply += "assert parse_priority('low') == 1\nassert Task\nassert todo.models.LOW\n```"
    script = probe_script(reply, signatures) or ""
    assert script.splitlines()[:3] == [
        "from __future__ import annotations",
        "from todo.models import Task, parse_priority",
        "import todo.models",
    ]
    own = reply.replace("import todo.models\n", "def parse_priority(v):\n    return 1\n")
    assert probe_script(own) is not None and "from todo" not in (probe_script(own) or "")


def test_pytest_raises_becomes_plain_python(tmp_path: Path) -> None:
    # Seen from the 1.5B model: `with pytest.raises(...)` without importing pytest, asked for
    # plain asserts. It runs as try/except wherever pytest is not installed.
    reply = (
        "```python\nimport pytest\nimport calc\n\n\ndef test_bad():\n"
        "    with pytest.raises(ValueError, match='x'):\n        calc.parse('x')\n```"
    )
    script = probe_script(reply, "def parse(text)")
    assert script is not None and "pytest" not in script
    (tmp_path / "calc.py").write_text("def parse(text):\n    return int(text)\n")
    ran = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True)
    assert ran.returncode == 0, ran.stderr  # int('x') raises ValueError
    (tmp_path / "calc.py").write_text("def parse(text):\n    return 0\n")
    ran = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True)
    assert b"AssertionError: did not raise" in ran.stderr
    # `as info` keeps the pytest form (info.value would be undefined), and its import.
    kept = reply.replace("match='x'):", "match='x') as info:")
    kept = kept.removesuffix("```") + "    assert info\n```"
    assert "pytest.raises" in (probe_script(kept) or "")


def test_standard_modules_and_names_the_probe_never_imports_are_imported() -> None:
    # Seen: probes calling time.sleep with no `import time`, which failed on their own.
    reply = "```python\nfrom rl import Limiter\n\nlimiter = Limiter(1, 0.1)\n"
    reply += "time.sleep(0.2)\nassert limiter.allow()\nseen: Optional[int] = None\n```"
    script = probe_script(reply, "class Limiter:\n    def allow(self)") or ""
    assert "import time\n" in script and "from typing import Optional\n" in script
    # Not when the repository has a module of that name, which the import would find first.
    assert "import time" not in (probe_script(reply, local={"time"}) or "")


@pytest.mark.parametrize(
    ("request_", "focused"),
    [
        (
            'Add get_list(key, default=None, sep=","): it splits the value on sep. '
            "When the key is not set it returns default, or [] if default is None.",
            ["When the key is not set it returns default, or [] if default is None."],
        ),
        # An abbreviation before an example, or a number in code, ends no sentence.
        ("Add a __repr__ that returns e.g. Limiter(limit=5) for a limit of 5.", []),
        (
            "Lists that start at a number lose it: `3. c` should render as <ol start=3>. "
            "Lists that start at 1, and bullet lists, should stay as they are. Fix it.",
            ["Lists that start at 1, and bullet lists, should stay as they are."],
        ),
        ("One. Two three four five six. Seven eight nine ten eleven! Twelve a b c d?", None),
    ],
)
def test_each_later_sentence_of_a_request_gets_a_probe_of_its_own(
    request_: str, focused: list[str] | None
) -> None:
    found = focus_sentences(request_)
    if focused is None:  # at most two besides the probe of the whole request
        assert found == ["Two three four five six.", "Seven eight nine ten eleven!"]
    else:
        assert found == focused


STEPS = """\
from __future__ import annotations

from stock import Store

store = Store({"a": 5})
assert store.is_low("a", 5)
assert store.is_low("zz", 1)
assert Shop()
store.is_low("a", "x")


def test_names():
    assert store.names() == ["a"]


if __name__ == "__main__":
    test_names()
"""


def _run_steps(tmp_path: Path, script: str, stock: str = STOCK) -> dict[int, Verdict] | None:
    (tmp_path / "stock.py").write_text(stock)
    (tmp_path / "gpte_probe.py").write_text(harness(script))
    done = subprocess.run(
        [sys.executable, "gpte_probe.py"], cwd=tmp_path, capture_output=True, text=True
    )
    return step_verdicts(done.returncode, done.stdout + done.stderr)


def test_each_statement_of_the_probe_is_judged_alone(tmp_path: Path) -> None:
    assert steps(STEPS)[1:] == [
        'store = Store({\'a\': 5})', "assert store.is_low('a', 5)", "assert store.is_low('zz', 1)",
        "assert Shop()", "store.is_low('a', 'x')", "test_names()",
    ]  # fmt: skip
    found = _run_steps(tmp_path, STEPS)
    assert found is not None
    assert sorted(found) == [2, 3, 4, 5]  # the import, the set-up and test_names() passed
    assert found[2].judges and found[2].error == "AssertionError"  # not so: judges the code
    assert found[3].judges and found[3].error == "KeyError: 'zz'"  # the code raised: its answer
    assert not found[4].judges and found[4].error.startswith("NameError")  # the probe's own
    assert found[5].judges and found[5].error.startswith("TypeError")  # raised in stock.py
    again = _run_steps(tmp_path, STEPS)
    assert again is not None
    # Failing by an exception just as before the change: the probe exercised nothing changed.
    assert again[3].as_before(found[3]) and not again[2].as_before(found[2])
    assert _run_steps(tmp_path, STEPS, RIGHT) is not None
    # A run that did not get to its end (killed, timed out, a definition that raised).
    assert _run_steps(tmp_path, STEPS, "import os\nos._exit(3)\n") is None
    assert step_verdicts(None, "") is None and step_verdicts(0, "no mark") is None
    assert step_verdicts(0, "@@gpte-probe-step {broken\n@@gpte-probe-done\n") == {}


def test_a_decorated_definition_is_a_step_of_its_own(tmp_path: Path) -> None:
    # The decorator takes a keyword the change adds: on the base it raises TypeError, and the
    # probe must still get to its end, the steps using the function failing with it.
    stock = "def tagged(**options):\n    return lambda func: func\n"
    script = (
        "from stock import tagged\n\n@tagged(quiet=True)\ndef f():\n    return 1\n\n"
        "assert f() == 1\n"
    )
    assert steps(script)[1].startswith("@tagged(quiet=True)")
    found = _run_steps(tmp_path, script, stock.replace("**options", "name=None"))
    assert found is not None
    assert found[1].error.startswith("TypeError")
    assert found[2].error.startswith("NameError")
    assert _run_steps(tmp_path, script, stock) == {}


def _env(server: LLMServer) -> dict[str, str]:
    return self_hosted_env(server, GPTE_PROBE="")  # the model's default: on when self-hosted


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "shop", {"stock.py": STOCK})


def test_a_result_the_probe_fails_goes_back_and_the_right_one_is_kept(
    shop: Path, llm_server: LLMServer
) -> None:
    before = Snapshot.take(shop)
    llm_server.queue(
        f"stock.py\n```python\n{WRONG}```\n", PROBE, f"stock.py\n```python\n{RIGHT}```\n"
    )
    done = run_gpte("improve", REQUEST, "--json", cwd=shop, env=_env(llm_server), timeout=300)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["checked"] is True
    assert len(llm_server.requests) == 3
    asked = llm_server.requests[1].body["messages"][-1]["content"]
    assert "def is_low(self, sku, stock)" in asked and "self.levels[sku]" not in asked
    retry = llm_server.requests[2].body["messages"][-1]["content"]
    assert 'assert store.is_low("a", 5)' in retry
    assert git(shop, "show", f"{data['branch']}:stock.py") == RIGHT
    assert "gpte_probe.py" not in git(shop, "ls-tree", "-r", "--name-only", data["branch"])
    before.assert_unchanged(shop, new_branches=(data["branch"],))


def test_a_result_still_failing_the_probe_is_committed_as_not_done(
    shop: Path, llm_server: LLMServer
) -> None:
    # The probe is the model's own reading of the request and may be what is wrong (seen:
    # asserting that 50 less 30 % is 37.5): it never refuses what the other checks pass, and
    # never lets the result go out as a success either.
    wrong = f"stock.py\n```python\n{WRONG}```\n"
    llm_server.queue(wrong, PROBE, wrong.replace("stock == 0", "stock == 1"))
    done = run_gpte(
        "improve", NOT_SEARCHED, "--max-retries", "1", cwd=shop, env=_env(llm_server), timeout=300
    )
    assert done.returncode == 1, done.stderr
    assert "the probe failed: AssertionError" in done.stderr
    assert "A check written from the request fails on the result" in done.stdout + done.stderr
    branch = git(shop, "branch", "--list", "gpte/*").strip(" *\n")
    body = git(shop, "log", "-1", "--format=%B", branch)
    assert "Problems left after the retries:" in body and "A check written from the" in body
    # --no-probe: the same first answer is committed without asking for a probe.
    llm_server.queue(wrong)
    done = run_gpte(
        "improve", REQUEST, "--no-probe", "-b", "plain", cwd=shop, env=_env(llm_server),
        timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert len(llm_server.requests) == 4


def test_retries_the_probe_asked_for_never_break_a_sound_result(
    shop: Path, llm_server: LLMServer
) -> None:
    # Seen: a probe wrong about the request failed a right result; the two retries it asked
    # for used a name never defined. The right result is what is committed, as not done.
    wrong_probe = PROBE.replace('assert store.is_low("a", 4)', 'assert store.is_low("a", 6)')
    broken = f"stock.py\n```python\n{RIGHT.replace('<= self', '<= get_level(self)')}```\n"
    llm_server.queue(f"stock.py\n```python\n{RIGHT}```\n", wrong_probe, broken, "# no\n" + broken)
    done = run_gpte("improve", REQUEST, cwd=shop, env=_env(llm_server), timeout=300)
    assert done.returncode == 1, done.stderr
    assert len(llm_server.requests) == 4
    assert "keeping the first result" in done.stderr
    assert "undefined name" not in done.stdout
    branch = git(shop, "branch", "--list", "gpte/*").strip(" *\n")
    assert git(shop, "show", f"{branch}:stock.py") == RIGHT
    # Retries that pass every other check but still fail the probe are no better than the
    # first reading (seen: a right word count made wrong): the first is committed.
    other = RIGHT.replace("<= self.levels[sku]", "<= self.levels.get(sku, 0)")
    llm_server.queue(
        f"stock.py\n```python\n{RIGHT}```\n", wrong_probe, f"stock.py\n```python\n{other}```\n",
        f"stock.py\n```python\n{other.replace('get(sku, 0)', 'get(sku, -1)')}```\n",
    )  # fmt: skip
    done = run_gpte("improve", REQUEST, "-b", "two", cwd=shop, env=_env(llm_server), timeout=300)
    assert done.returncode == 1, done.stderr
    assert git(shop, "show", "two:stock.py") == RIGHT


@pytest.mark.parametrize(
    ("probe", "said"),
    [
        (
            "```python\nfrom stock import Store\nassert Store({}).names() == []\n```",
            "passes before",
        ),
        ("```python\nfrom stock import Shop\nassert Shop()\n```", "failed on its own"),
        ("I cannot write that.", "no usable probe"),
    ],
)
def test_a_probe_that_cannot_judge_is_dropped(
    shop: Path, llm_server: LLMServer, probe: str, said: str
) -> None:
    llm_server.queue(f"stock.py\n```python\n{RIGHT}```\n", probe)
    done = run_gpte("improve", REQUEST, cwd=shop, env=_env(llm_server), timeout=300)
    assert said in done.stderr
    assert len(llm_server.requests) == 2
    # Committed, and not as a success: nothing checked what the request asks (the tests
    # passed before the change too).
    assert done.returncode == 1, done.stderr
    assert "problem left: not verified: no check written from the request" in done.stdout
    branch = git(shop, "branch", "--list", "gpte/*").strip(" *\n")
    assert git(shop, "show", f"{branch}:stock.py") == RIGHT
    assert "not verified" in git(shop, "log", "-1", "--format=%B", branch)
    # A check of the user's own is what they vouch for: exit 0 when it passes.
    llm_server.queue(f"stock.py\n```python\n{RIGHT}```\n", probe)
    done = run_gpte(
        "improve", REQUEST, "--check", "python3 -c pass", "-b", "own", cwd=shop,
        env=_env(llm_server), timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def test_a_repository_with_a_file_of_the_probes_name_is_not_probed(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    shop = make_repo(tmp_path / "own", {"stock.py": STOCK, "gpte_probe.py": "print('mine')\n"})
    llm_server.queue(f"stock.py\n```python\n{WRONG}```\n")
    done = run_gpte("improve", REQUEST, cwd=shop, env=_env(llm_server), timeout=300)
    assert len(llm_server.requests) == 1
    assert done.returncode == 1 and "not verified" in done.stdout, done.stderr


TWO_PARTS = REQUEST + " A sku the store has no level for is never low, whatever its stock."
ANY_SKU = STOCK.replace(
    "return stock < self.levels[sku]", "return stock <= self.levels.get(sku, 0)"
)
BOTH = STOCK.replace(
    "return stock < self.levels[sku]", "return sku in self.levels and stock <= self.levels[sku]"
)
UNKNOWN_SKU = """\
```python
from stock import Store

assert not Store({"a": 5}).is_low("zz", 0)
```
"""


def test_a_later_sentence_of_the_request_is_probed_on_its_own(
    shop: Path, llm_server: LLMServer
) -> None:
    # Seen (settings/get-list): the probe of the whole request checked its first sentence
    # only, and a result wrong on the second was committed as a success.
    llm_server.queue(
        f"stock.py\n```python\n{ANY_SKU}```\n", PROBE, UNKNOWN_SKU,
        f"stock.py\n```python\n{BOTH}```\n",
    )  # fmt: skip
    done = run_gpte("improve", TWO_PARTS, "-b", "two", cwd=shop, env=_env(llm_server), timeout=300)
    assert done.returncode == 0, done.stderr
    assert "asking for a probe of: A sku the store has no level for is never low" in done.stderr
    assert len(llm_server.requests) == 4
    whole, focused = (llm_server.requests[i].body["messages"][-1]["content"] for i in (1, 2))
    assert "Check above all" not in whole
    assert "Check above all this part of the request" in focused
    assert "A sku the store has no level for is never low, whatever its stock." in focused
    retry = llm_server.requests[3].body["messages"][-1]["content"]
    assert 'is_low("zz", 0)' in retry and 'is_low("a", 6)' not in retry
    assert git(shop, "show", "two:stock.py") == BOTH


CONTRADICTING = """\
```python
from stock import Store

store = Store({"a": 5})
assert not store.is_low("a", 6)
assert not store.is_low("a", 5)
assert store.is_low("a", 5)
```
"""


def test_a_statement_passing_on_the_base_is_not_held_against_the_result(
    shop: Path, llm_server: LLMServer
) -> None:
    # Seen (csvreport/number-value-error): a probe asserting what the code did before the
    # change beside what was asked; the right result failed the first, and was committed as
    # not done. Only the statements that fail on the base judge a result.
    llm_server.queue(f"stock.py\n```python\n{RIGHT}```\n", CONTRADICTING)
    done = run_gpte("improve", REQUEST, "-b", "right", cwd=shop, env=_env(llm_server), timeout=300)
    assert done.returncode == 0, done.stderr
    assert "the probe passed" in done.stderr
    assert git(shop, "show", "right:stock.py") == RIGHT
    # A result failing the statement that failed on the base is sent back with that statement.
    llm_server.queue(f"stock.py\n```python\n{WRONG}```\n", CONTRADICTING, "no change")
    done = run_gpte(
        "improve", NOT_SEARCHED, "--max-retries", "1", "-b", "wrong", cwd=shop,
        env=_env(llm_server), timeout=300,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    retry = llm_server.requests[-1].body["messages"][-1]["content"]
    assert (
        "fails on the result (AssertionError), at:\n```python\nassert store.is_low('a', 5)\n```"
        in retry
    )


def test_the_examples_a_request_quotes_are_found_in_a_statement() -> None:
    request = (
        "get_bool raises for 'True', \"YES\" or `Off`; the user's text, it's fine. "
        "`Ledger.statement(7, '2024-01-31')` misses a day."
    )
    found = quoted(request)
    assert {"True", "YES", "Off", "2024-01-31"} <= found
    assert not any("user" in text or text == "it" for text in found)
    assert uses_example("assert parse_bool('True') is True", found)
    assert not uses_example('Settings({"a": "True "})', found)  # a string of its own
    assert not uses_example("assert True", found) and not uses_example("def (", found)


UNKNOWN_REQUEST = (
    "Store.is_low('zz', 0) raises KeyError for a sku with no level; it should be False."
)


def test_the_requests_own_example_failing_as_before_judges_the_result(
    shop: Path, llm_server: LLMServer
) -> None:
    # Seen (settings/bool-case): parse_bool('True') raised ValueError before the change and
    # after it, the result having only rewritten the function's ifs; taken for a probe that
    # misuses the code, it was dropped and the result committed as a success.
    unchanged = STOCK.replace(
        "    def names(self):", "    def count(self):\n        return 0\n\n    def names(self):"
    )
    answer = f"stock.py\n```python\n{unchanged}```\n"
    llm_server.queue(answer, UNKNOWN_SKU, answer.replace("return 0", "return 1"))
    done = run_gpte(
        "improve", UNKNOWN_REQUEST, "--max-retries", "1", "-b", "same", cwd=shop,
        env=_env(llm_server), timeout=300,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert "the probe failed: KeyError: 'zz'" in done.stderr
    # The same statement with a sku of its own, not the request's, is taken as misuse when
    # the request does not name the exception as the crash to stop.
    unnamed = UNKNOWN_REQUEST.replace("raises KeyError", "fails")
    llm_server.queue(answer, UNKNOWN_SKU.replace('"zz"', '"qq"'))
    done = run_gpte("improve", unnamed, "-b", "own", cwd=shop, env=_env(llm_server), timeout=300)
    assert done.returncode == 1 and "not verified" in done.stdout, done.stderr
    assert "the probe failed on its own (KeyError: 'qq'): dropped" in done.stderr
    # Named, it judges the result whatever sku raises it: the crash the request says must stop.
    llm_server.queue(answer, UNKNOWN_SKU.replace('"zz"', '"qq"'), answer)
    done = run_gpte(
        "improve", UNKNOWN_REQUEST, "--max-retries", "1", "-b", "named", cwd=shop,
        env=_env(llm_server), timeout=300,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert "the probe failed: KeyError: 'qq'" in done.stderr


def test_the_exceptions_a_request_says_must_stop_are_found() -> None:
    assert stopped_exceptions(
        "parse_rate raises KeyError when the unit is unknown; make it raise ValueError instead"
    ) == {"KeyError"}
    assert stopped_exceptions("Running it on an empty file crashes with ZeroDivisionError.") == {
        "ZeroDivisionError"
    }
    assert stopped_exceptions(
        "Raise a TypeError for a float; it fails with json.JSONDecodeError"
    ) == {"JSONDecodeError"}
    assert stopped_exceptions("Circle should raise ValueError for a negative radius") == set()
    assert raises_one_of("json.decoder.JSONDecodeError: Expecting value", {"JSONDecodeError"})
    assert not raises_one_of("AssertionError", {"KeyError"})


def test_an_assertion_on_an_empty_string_brings_the_call_on_a_blank_one() -> None:
    script = (
        "from stats import mean_length, label\n\n"
        "assert mean_length('') == 0.0 and label(text='', n=2) == 'none'\n"
        "assert mean_length('ab cd') == 2.0\n"
        "assert (lambda: mean_length(''))() == 0.0\n"
        "mean_length('')\n"
    )
    assert steps(with_blank_calls(script)) == [
        "from stats import mean_length, label",
        "assert mean_length('') == 0.0 and label(text='', n=2) == 'none'",
        "mean_length(' \\n')",
        "label(text=' \\n', n=2)",
        "assert mean_length('ab cd') == 2.0",
        "assert (lambda: mean_length(''))() == 0.0",
        "mean_length('')",
    ]
    assert with_blank_calls("assert f('x') == 1\n") == "assert f('x') == 1\n"


STATS = '''\
"""Text statistics."""
import re


def words(text):
    return re.findall(r"[a-z]+", text.lower())


def average_word_length(text):
    ws = words(text)
    return sum(len(w) for w in ws) / len(ws)
'''

EMPTY_REQUEST = (
    "average_word_length crashes with ZeroDivisionError on an empty text. "
    "Make it return 0.0 when the text has no words."
)

EMPTY_PROBE = """\
```python
from stats import average_word_length

assert average_word_length("") == 0.0
assert average_word_length("ab cd") == 2.0
```
"""


def test_a_guard_of_the_empty_string_alone_fails_on_a_blank_one(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    # Seen (textstats/empty-text): ``if text`` passed every probe of "", crashed on a text of
    # spaces, and was committed as a success.
    root = make_repo(tmp_path / "stats", {"stats.py": STATS})
    guard = "    ws = words(text)\n"
    wrong = STATS.replace(guard, "    if not text:\n        return 0.0\n" + guard)
    right = STATS.replace(guard, guard + "    if not ws:\n        return 0.0\n")
    llm_server.queue(
        f"stats.py\n```python\n{wrong}```\n",
        EMPTY_PROBE,  # of the whole request
        EMPTY_PROBE,  # of its second sentence: the same, kept once
        f"stats.py\n```python\n{right}```\n",
    )
    done = run_gpte("improve", EMPTY_REQUEST, "--json", cwd=root, env=_env(llm_server), timeout=300)
    assert done.returncode == 0, done.stderr
    assert len(llm_server.requests) == 4
    retry = llm_server.requests[3].body["messages"][-1]["content"]
    assert "average_word_length(' \\n')" in retry and "ZeroDivisionError" in retry
    assert git(root, "show", f"{json.loads(done.stdout)['branch']}:stats.py") == right


ALLERGIES = """\
class Allergies:
    def __init__(self, score):
        pass

    def allergic_to(self, item):
        pass

    @property
    def lst(self):
        pass
"""

ALLERGIES_REQUEST = (
    "Allergies(score) says whether a person is allergic to an item (eggs 1, peanuts 2, "
    "chocolate 32) and lists their allergies: a score of 34 is peanuts and chocolate."
)

ALLERGIES_PROBE = """\
```python
from allergies import Allergies

allergies = Allergies(34)
assert allergies.allergic_to("peanuts")
assert allergies.lst == ["peanuts", "chocolate"]
```
"""


def _allergies(assign: str, item: str = "name") -> str:
    items = "{'eggs': 1, 'peanuts': 2, 'chocolate': 32}"
    return (
        "ITEMS = " + items + "\n\n\n"
        "class Allergies:\n"
        "    def __init__(self, score):\n"
        f"        {assign} = [{item} for name, bit in ITEMS.items() if score & bit]\n\n"
        "    def allergic_to(self, item):\n"
        "        return item in self.lst\n\n"
        "    @property\n"
        "    def lst(self):\n"
        "        return self._lst\n"
    )


def test_a_statement_crashing_only_after_the_change_judges_the_result(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    # Seen (Exercism's allergies): the result's __init__ assigned to a property, so the probe's
    # ``Allergies(34)``, which ran on the stub, raised AttributeError; every later statement
    # then failed on a name never bound (the probe's own failure), and the result was
    # committed as a success.
    root = make_repo(tmp_path / "allergies", {"allergies.py": ALLERGIES})
    crashing, right = _allergies("self.lst"), _allergies("self._lst")
    numbers = _allergies("self._lst", item="bit")  # no crash, and still wrong
    llm_server.queue(
        f"allergies.py\n```python\n{crashing}```\n",
        ALLERGIES_PROBE,
        f"allergies.py\n```python\n{numbers}```\n",
        f"allergies.py\n```python\n{right}```\n",
    )
    done = run_gpte(
        "improve", ALLERGIES_REQUEST, "--json", cwd=root, env=_env(llm_server), timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert len(llm_server.requests) == 4
    retry = llm_server.requests[2].body["messages"][-1]["content"]
    assert "(AttributeError: property 'lst' of 'Allergies' object has no setter)" in retry
    assert "allergies = Allergies(34)" in retry
    # The statements that failed only because the crash left ``allergies`` unbound still
    # judge the next result.
    again = llm_server.requests[3].body["messages"][-1]["content"]
    assert "(AssertionError), at:\n```python\nassert allergies.allergic_to('peanuts')" in again
    assert git(root, "show", f"{json.loads(done.stdout)['branch']}:allergies.py") == right


def test_a_crash_the_request_names_or_asks_for_is_not_counted_as_new() -> None:
    named = named_exceptions("raise KeyError for an unknown item; it crashes with TypeError")
    assert named == {"KeyError", "TypeError"}
    assert is_new_crash("AttributeError: 'NoneType' object has no attribute 'x'", named)
    assert not is_new_crash("KeyError: 'zz'", named)
    assert not is_new_crash("ValueError: bad quantity", frozenset())
    assert not is_new_crash("AssertionError", frozenset())


def test_a_statement_guessing_a_docstrings_words_does_not_judge(
    shop: Path, llm_server: LLMServer
) -> None:
    """Seen on rich: asked for a docstring explaining a function's arguments, the model
    probed ``f.__doc__ == "..."`` with words of its own, and a right docstring was committed
    with exit 1."""
    from git_gpte.prompts.probe_steps import guesses_wording

    assert guesses_wording('assert f.__doc__ == "Pick a unit."')
    assert guesses_wording('assert inspect.getdoc(f) == "x"')
    assert guesses_wording('assert f.__doc__.strip() != "x"')
    assert not guesses_wording('assert "size" in f.__doc__')  # words the request may give
    assert not guesses_wording('assert f("a") == "b"') and not guesses_wording("def (")
    documented = STOCK.replace(
        "    def names(self):\n", '    def names(self):\n        """The SKUs, sorted."""\n'
    )
    probe = (
        "```python\nfrom stock import Store\n\n"
        'assert Store.names.__doc__ == "Return the sorted names."\n```\n'
    )
    llm_server.queue(f"stock.py\n```python\n{documented}```\n", probe)
    done = run_gpte(
        "improve", "Add a docstring to Store.names", cwd=shop, env=_env(llm_server), timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert len(llm_server.requests) == 2  # the probe did not send the result back
