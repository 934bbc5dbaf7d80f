"""The project's own tests of what changed, shown to the probe (prompts/probe_examples.py)."""

from __future__ import annotations

from git_gpte.prompts.probe_examples import Changed, changed_names, usage_examples

LEDGER = """\
def build_statement(ledger, start, end):
    return [t for t in ledger.rows if start <= t < end]


def format_money(amount):
    return f"{amount:.2f}"


class Ledger:
    def __init__(self):
        self.rows = []

    def statement(self, start, end):
        return build_statement(self, start, end)

    def deposit(self, day):
        self.rows.append(day)
"""

TESTS = """\
import pytest

from ledger import Ledger, format_money

DAYS = [1, 2, 3]


class FakeClock:
    def now(self):
        return 3


@pytest.fixture
def books():
    ledger = Ledger()
    for day in DAYS:
        ledger.deposit(day)
    return ledger


def test_statement(books):
    assert books.statement(1, 3) == [1, 2]
    assert not books.statement(3, 3)
    with pytest.raises(TypeError):
        books.statement(None, 3)
    done = True
    assert done


def test_money():
    assert format_money(2) == "2.00"


def test_clock(tmp_path):
    assert FakeClock().now() == 3
"""


def test_a_public_caller_of_a_changed_function_counts_as_changed() -> None:
    fixed = LEDGER.replace("start <= t < end", "start <= t <= end")
    names = changed_names({"ledger.py": (LEDGER, fixed), "notes.txt": ("a", "b")})
    # The tests call Ledger.statement, never the build_statement it calls.
    assert names.strong == {"build_statement", "Ledger", "statement"}
    assert names.weak == {"format_money"}
    method = LEDGER.replace("self.rows.append(day)", "self.rows.append(int(day))")
    names = changed_names({"ledger.py": (LEDGER, method)})
    # A changed class brings all its methods: a sibling's call shows how one gets an object.
    assert names.strong == {"Ledger", "statement", "deposit"}
    assert changed_names({"ledger.py": (LEDGER, "def (")}) == Changed(frozenset(), frozenset())


def test_the_test_of_the_change_comes_with_its_fixture_helpers_and_imports() -> None:
    shown = usage_examples(
        {"tests/test_ledger.py": TESTS}, Changed(frozenset({"statement"}), frozenset())
    )
    assert shown == (
        "# tests/test_ledger.py\n"
        "from ledger import Ledger\n"
        "\n"
        "DAYS = [1, 2, 3]\n"
        "\n"
        "def books():\n"  # without @pytest.fixture: a script can call it
        "    ledger = Ledger()\n"
        "    for day in DAYS:\n"
        "        ledger.deposit(day)\n"
        "    return ledger\n"
        "\n"
        "def test_statement(books):\n"  # what it asserts left out: the model copied it
        "    books.statement(1, 3)\n"
        "    books.statement(3, 3)\n"
        "    books.statement(None, 3)\n"
        "    done = True"
    )


def test_tests_of_the_changed_names_come_before_tests_of_the_module() -> None:
    tests = {"tests/test_ledger.py": TESTS}
    names = Changed(frozenset({"format_money"}), frozenset({"Ledger"}))
    shown = usage_examples(tests, names)
    assert "def test_money():" in shown and "test_statement" not in shown
    # With no test of a changed name, the tests of the module's other names are examples.
    shown = usage_examples(tests, Changed(frozenset({"audit"}), frozenset({"Ledger"})))
    assert "def test_statement(books):" in shown and "test_money" not in shown
    assert usage_examples(tests, Changed(frozenset({"audit"}), frozenset())) == ""
    assert usage_examples({"tests/test_broken.py": "def test_("}, names) == ""


def test_examples_stay_within_their_line_budget() -> None:
    long_test = "def test_long():\n" + "".join(f"    assert format_money({i})\n" for i in range(60))
    tests = {"tests/test_long.py": "from ledger import format_money\n\n" + long_test}
    assert usage_examples(tests, Changed(frozenset({"format_money"}), frozenset())) == ""


def test_a_test_of_the_changed_definition_comes_before_tests_of_its_siblings() -> None:
    tests = {
        "tests/test_ledger.py": (
            "from ledger import Ledger\n\n"
            "def test_many():\n    l = Ledger()\n    l.deposit(1)\n    l.deposit(2)\n"
            "    assert l.rows\n\n"
            "def test_statement():\n    assert Ledger().statement(1, 2) == []\n"
        )
    }
    method = LEDGER.replace("return build_statement(self, start, end)", "return []")
    names = changed_names({"ledger.py": (LEDGER, method)})
    assert names.touched == {"Ledger", "statement"}
    shown = usage_examples(tests, names)
    assert shown.index("def test_statement") < shown.index("def test_many")
