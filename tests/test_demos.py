"""``--check auto``: a module's ``__main__`` block that ran on the base must run on the result.

The pure parts (which modules have a demo, how it runs, what counts as a crash), then the CLI
against the scripted server with a self-hosted model: a project with no tests, whose demo the
wrong answer breaks (seen with the 1.5B model: a ``strip()`` dropped), gets the right one; a
demo that does not run cleanly on the base judges nothing; a demo exiting non-zero by design is
not a crash.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from git_gpte.pipeline.demos import crash_of, crashed, demo_command, demo_run, has_main_block
from git_gpte.run import RunResult
from tests.conftest import run_gpte
from tests.helpers.gitrepo import Snapshot, git, make_repo
from tests.helpers.llm_server import LLMServer
from tests.helpers.llm_server import self_hosted_env as local_env

QUANTITY = '''\
"""Order quantities."""


def parse_quantity(text):
    return int(text.strip())


if __name__ == "__main__":
    print([parse_quantity(t) for t in ("4", " 1 ")])
'''

PROMPT = "parse_quantity should raise ValueError when the text is not a positive whole number."

# What the model answered: right on "abc" and "0", and " 1 " now fails too.
WRONG = QUANTITY.replace(
    "    return int(text.strip())",
    "    if not text.isdigit() or int(text) <= 0:\n"
    '        raise ValueError("not a positive whole number")\n'
    "    return int(text.strip())",
)
RIGHT = WRONG.replace("if not text.isdigit()", "text = text.strip()\n    if not text.isdigit()")


def _result(code: int, output: str = "", *, timed_out: bool = False) -> RunResult:
    return RunResult(code, timed_out, 0.1, output, len(output), False, "python3 -m orders")


def test_a_demo_is_a_top_level_main_block() -> None:
    assert has_main_block(QUANTITY)
    assert has_main_block("if '__main__' == __name__:\n    main()\n")
    assert not has_main_block("def f():\n    if __name__ == '__main__':\n        pass\n")
    assert not has_main_block("if __name__ != '__main__':\n    pass\n")
    assert not has_main_block("if (\n")
    assert demo_command("src/shop/orders.py") == "python3 -m shop.orders"
    assert demo_command("scripts/make-report.py") == "python3 scripts/make-report.py"


def test_a_crashing_demo_says_what_the_failing_call_was_given(tmp_path: Path) -> None:
    script = tmp_path / "scripts" / "make-report.py"
    script.parent.mkdir()
    script.write_text(
        "def half(n, *, strict=True):\n    assert n % 2 == 0, n\n\n\n"
        "if __name__ == '__main__':\n    half(3)\n"
    )
    command = demo_run("scripts/make-report.py")
    assert command.display == "python3 scripts/make-report.py"
    ran = subprocess.run(command.argv, cwd=tmp_path, capture_output=True, text=True)
    assert ran.returncode == 1
    assert ran.stderr.startswith("Traceback (most recent call last):")
    assert ran.stderr.endswith("half was called with n=3, strict=True\n")
    # An exit the demo chose is its own: passed on, nothing added.
    (tmp_path / "usage.py").write_text(
        "import sys\n\nif __name__ == '__main__':\n    sys.exit(2)\n"
    )
    exits = subprocess.run(demo_run("usage.py").argv, cwd=tmp_path, capture_output=True, text=True)
    assert (exits.returncode, exits.stderr) == (2, "")


def test_only_a_crash_fails_a_demo() -> None:
    traceback = 'Traceback (most recent call last):\n  File "x.py", line 1\nValueError: x\n'
    assert crashed(_result(1, traceback))
    assert crashed(_result(-9, "", timed_out=True))
    assert not crashed(_result(0, "[4, 1]\n"))
    assert not crashed(_result(2, "usage: orders [-h] FILE\n"))  # may be what was asked


def test_the_call_a_crash_names_is_read_from_the_output(tmp_path: Path) -> None:
    (tmp_path / "shop.py").write_text(
        "class Cart:\n    def add(self, sku, count=1):\n        raise KeyError(sku)\n\n\n"
        "if __name__ == '__main__':\n    Cart().add('A-1')\n"
    )
    ran = subprocess.run(demo_run("shop.py").argv, cwd=tmp_path, capture_output=True, text=True)
    crash = crash_of(ran.stderr)
    assert crash is not None and crash.function == "Cart.add"  # a method by its class
    assert crash.raised == "KeyError: 'A-1'" and crash.arguments.endswith("sku='A-1', count=1")
    assert crash_of("Timed out after 20 s\n") is None


def test_a_result_that_crashes_the_demo_goes_back(tmp_path: Path, llm_server: LLMServer) -> None:
    repo = make_repo(tmp_path / "orders", {"orders.py": QUANTITY})
    before = Snapshot.take(repo)
    # Asked for the function alone, the model answers with it alone, with no path.
    function = RIGHT[RIGHT.index("def parse_quantity") : RIGHT.index("\n\n\nif __name__")]
    llm_server.queue(f"orders.py\n```python\n{WRONG}```\n", f"```python\n{function}\n```\n")
    done = run_gpte("improve", PROMPT, cwd=repo, env=local_env(llm_server), timeout=300)
    assert done.returncode == 0, done.stderr
    assert "running orders.py's demo on the base: python3 -m orders" in done.stderr
    assert "asking again for parse_quantity, which the demo's call now fails" in done.stderr
    assert "the result passes the demo of orders.py" in done.stdout
    # A short retry, even for a short module: the function, the request, then the call.
    retry = llm_server.requests[1].body["messages"]
    assert len(retry) == 2
    asked = retry[-1]["content"]
    assert "def parse_quantity(text):\n    if not text.isdigit()" in asked
    assert "if __name__" not in asked
    assert asked.index(PROMPT) < asked.index(
        "the module's demo calls parse_quantity(text=' 1 '), which ran before your edits and "
        "now raises ValueError: not a positive whole number."
    )
    assert asked.endswith("Answer with the function only, in a ```python block.\n")
    branch = git(repo, "branch", "--list", "gpte/*").strip(" *\n")
    assert git(repo, "show", f"{branch}:orders.py") == RIGHT
    before.assert_unchanged(repo, new_branches=(branch,))


def test_a_crash_outside_the_changed_definitions_gets_the_usual_retry(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    # The edit changes parse_quantity; the demo then crashes in total(), which it did not.
    module = QUANTITY.replace(
        "\n\nif __name__",
        "\n\ndef total(texts):\n    return sum(parse_quantity(t) for t in texts)\n\n\nif __name__",
    ).replace('print([parse_quantity(t) for t in ("4", " 1 ")])', 'print(total(["4"]))')
    repo = make_repo(tmp_path / "orders", {"orders.py": module})
    wrong = module.replace("return int(text.strip())", "return None")
    llm_server.queue(f"orders.py\n```python\n{wrong}```\n", f"orders.py\n```python\n{module}```\n")
    done = run_gpte("improve", PROMPT, cwd=repo, env=local_env(llm_server), timeout=300)
    retry = llm_server.requests[1].body["messages"][-1]["content"]
    assert "total was called with texts=['4']" in retry
    assert "`python3 -m orders` (the module's `__main__` block) runs cleanly" in retry
    assert "asking again for" not in done.stderr


def test_a_demo_that_fails_on_the_base_judges_nothing(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    needs_input = QUANTITY.replace('("4", " 1 ")', "open('orders.txt')")
    repo = make_repo(tmp_path / "orders", {"orders.py": needs_input})
    wrong = WRONG.replace('("4", " 1 ")', "open('orders.txt')")
    llm_server.queue(f"orders.py\n```python\n{wrong}```\n")
    done = run_gpte("improve", PROMPT, cwd=repo, env=local_env(llm_server), timeout=300)
    assert done.returncode == 0, done.stderr
    assert "not judging by orders.py's demo: it exited with code 1 on the base" in done.stderr
    assert "the result passes" not in done.stdout  # nothing judged it
    assert "not checked: nothing ran the result (see above why)" in done.stdout
    assert len(llm_server.requests) == 1
    llm_server.queue(f"orders.py\n```python\n{wrong}```\n")
    done = run_gpte(
        "improve", PROMPT, "--json", "-b", "again", cwd=repo, env=local_env(llm_server),
        timeout=300,
    )  # fmt: skip
    data = json.loads(done.stdout)
    assert data["checked"] is False and data["checked_by"] == [] and data["check"] == "auto"


def test_a_refusal_names_the_checks_that_judged(tmp_path: Path, llm_server: LLMServer) -> None:
    tests = "from orders import parse_quantity\n\n\ndef test_plain():\n"
    tests += "    assert parse_quantity('4') == 4\n"
    repo = make_repo(tmp_path / "orders", {"orders.py": QUANTITY, "tests/test_orders.py": tests})
    crashes = f"orders.py\n```python\n{WRONG}```\n"
    off_by_one = RIGHT.replace("return int(text.strip())", "return int(text.strip()) + 1")
    off_by_one = f"orders.py\n```python\n{off_by_one}```\n"
    llm_server.queue(crashes, off_by_one.replace("+ 1", "+ 2"), off_by_one)
    done = run_gpte(
        "improve", PROMPT, "--max-retries", "2", cwd=repo, env=local_env(llm_server), timeout=300
    )
    assert done.returncode == 8, done.stderr
    # The demo ran on every result, the tests on those the demo passed: both judged.
    assert "still fails one of its checks (the demo of orders.py, the project's tests)" in (
        done.stderr
    )
    assert (
        "the module's demo calls parse_quantity(text=' 1 ')"
        in (llm_server.requests[1].body["messages"][-1]["content"])
    )
