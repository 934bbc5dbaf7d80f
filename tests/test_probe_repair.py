"""A probe stopped by the project's own error where it sets up is asked for once more, shown the
tests' calls of what it misused (prompts/probe_repair.py)."""

from __future__ import annotations

import json
from pathlib import Path

from git_gpte.prompts.probe_repair import called_names, repair_messages, shortest, usage_lines
from tests.conftest import run_gpte
from tests.helpers.gitrepo import Snapshot, git, make_repo
from tests.helpers.llm_server import LLMServer, self_hosted_env

STOCK = '''\
"""Stock levels, by SKU (upper case)."""


class Store:
    def __init__(self, levels):
        for sku in levels:
            if not sku.isupper():
                raise ValueError(f"SKUs are upper case, got {sku!r}")
        self.levels = levels

    def is_low(self, sku, stock):
        """Whether ``stock`` of ``sku`` calls for reordering."""
        return stock < self.levels[sku]
'''
TESTS = """\
from stock import Store


def test_below_the_level_is_low():
    store = Store({"AB": 3})
    assert store.is_low("AB", 2)
"""
REQUEST = "Store.is_low returns False when the stock is exactly at its level; it should be low."
WRONG = STOCK.replace(
    "return stock < self.levels[sku]", "return stock < self.levels[sku] or not stock"
)
RIGHT = STOCK.replace("return stock < self.levels[sku]", "return stock <= self.levels[sku]")


def _probe(sku: str) -> str:
    return (
        "```python\nfrom stock import Store\n\n"
        f'store = Store({{"{sku}": 5}})\nassert store.is_low("{sku}", 5)\n'
        f'assert not store.is_low("{sku}", 6)\n```\n'
    )


def test_the_names_a_statement_calls() -> None:
    assert called_names('settings = Settings(values={"a": "b"})') == ["Settings"]
    assert called_names("x = store.load(open_path(p))") == ["load", "open_path"]
    assert called_names("x = (") == []


def test_a_tests_lines_holding_a_whole_call() -> None:
    text = (
        "def test_x(Settings):\n"
        '    s = Settings({"server.port": "80"})\n'
        "    t = Settings(\n"
        "        {},\n"
        "    )\n"
        "    # Settings({'a': 1}) is refused\n"
        '    u = MySettings({"b": 2})\n'
        '    assert Settings({"a.b": "70000"}).get_int("a.b") == 7\n'
        '    s = Settings({"server.port": "80"})\n'
    )
    assert usage_lines(text, "Settings") == ['s = Settings({"server.port": "80"})']


def test_the_shortest_calls_are_shown_in_their_order() -> None:
    found = [
        'config = Settings({"server.port": "eighty"}, {"server.port": "env:APP_SERVER__PORT"})',
        'Settings({"server.port": "70000"}).get_int("server.port", maximum=65535)',
        'config = Settings({"app.name": "x"})',
        'config = Settings({"server.port": "1", "app.name": "x"})',
    ]
    assert shortest(found) == [found[2], found[3]]


def test_the_repair_shows_the_statement_its_error_and_the_calls() -> None:
    asked = [{"role": "user", "content": "write a probe"}]
    statement = "s = Settings({'a': 1})"
    error = "ValueError: keys look like 'x.y'"
    usage = ['Settings({"server.port": "80"})']
    messages = repair_messages(asked, statement + "\n", statement, error, "Settings", usage)
    assert messages[:1] == asked
    assert messages[1] == {"role": "assistant", "content": "```python\ns = Settings({'a': 1})\n```"}
    last = messages[2]["content"]
    assert "raised ValueError: keys look like 'x.y'" in last
    assert 'Settings({"server.port": "80"})' in last


def test_a_probe_refused_by_the_constructor_is_asked_again_and_then_judges(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    shop = make_repo(tmp_path / "shop", {"stock.py": STOCK, "tests/test_stock.py": TESTS})
    before = Snapshot.take(shop)
    llm_server.queue(
        f"stock.py\n```python\n{WRONG}```\n",
        _probe("a"),  # Store refuses "a": every statement fails on its own
        _probe("A"),
        f"stock.py\n```python\n{RIGHT}```\n",
    )
    env = self_hosted_env(llm_server, GPTE_PROBE="")
    done = run_gpte("improve", REQUEST, "--json", cwd=shop, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert len(llm_server.requests) == 4
    again = llm_server.requests[2].body["messages"]
    assert 'store = Store({"a": 5})' in again[-2]["content"]
    assert "ValueError: SKUs are upper case, got 'a'" in again[-1]["content"]
    assert 'store = Store({"AB": 3})' in again[-1]["content"]
    assert 'assert store.is_low("A", 5)' in llm_server.requests[3].body["messages"][-1]["content"]
    branch = json.loads(done.stdout)["branch"]
    assert git(shop, "show", f"{branch}:stock.py") == RIGHT
    before.assert_unchanged(shop, new_branches=(branch,))


def test_a_probe_asked_again_is_asked_once(tmp_path: Path, llm_server: LLMServer) -> None:
    shop = make_repo(tmp_path / "shop", {"stock.py": STOCK, "tests/test_stock.py": TESTS})
    llm_server.queue(f"stock.py\n```python\n{WRONG}```\n", _probe("a"), _probe("b"))
    done = run_gpte("improve", REQUEST, cwd=shop, env=self_hosted_env(llm_server, GPTE_PROBE=""))
    # No check judges it: committed, and said not to be verified.
    assert done.returncode == 1 and "not verified" in done.stdout, done.stderr
    assert len(llm_server.requests) == 3
    assert "asking again with the tests' calls of Store" in done.stderr
    assert "failed on its own (ValueError: SKUs are upper case, got 'b'): dropped" in done.stderr


def test_a_later_sentences_probe_asked_again_does_not_verify_it(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    # Seen (settings/get-list, twice): both probes refused by the constructor, both asked
    # again, both answered with the tests' calls and the first sentence's checks alone; a
    # result wrong on the second passed them and went out as a success.
    shop = make_repo(tmp_path / "shop", {"stock.py": STOCK, "tests/test_stock.py": TESTS})
    request = REQUEST + " An unknown SKU is never low, whatever its stock."
    later = _probe("b").replace(
        'assert not store.is_low("b", 6)', 'assert not store.is_low("z", 0)'
    )
    again = _probe("A").replace('"A", 6', '"A", 7')  # another script, the same checks
    llm_server.queue(f"stock.py\n```python\n{RIGHT}```\n", _probe("a"), later, _probe("A"), again)
    env = self_hosted_env(llm_server, GPTE_PROBE="")
    done = run_gpte("improve", request, cwd=shop, env=env, timeout=300)
    assert len(llm_server.requests) == 5
    assert done.returncode == 1, done.stderr
    assert (
        'not verified: no check written from the request could judge "An unknown SKU is never'
        in done.stdout
    )
