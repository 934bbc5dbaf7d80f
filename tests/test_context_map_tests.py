"""The map names the tests, stubs and declarations of the files sent first (pack.py), however
low the request ranks them: the model then knows which tests exercise the code it changes and
where its types are declared."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from git_gpte.context import languages
from tests.conftest import run_gpte
from tests.helpers.bigrepo import big_project
from tests.helpers.gitrepo import make_repo


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("tests/test_cart.py", "cart"),
        ("pkg/cart_test.go", "cart"),
        ("src/cart.test.ts", "cart"),
        ("lib/cart.spec.js", "cart"),
        ("spec/cart_spec.rb", "cart"),
        ("src/test/java/CartTest.java", "cart"),
        ("__tests__/cart.js", "cart"),
        ("index.test-d.ts", "index"),  # tsd's type tests
        ("tests/test_contest.py", "contest"),
        ("tests/conftest.py", None),  # not a test of a module "conf"
        ("tests/helpers.py", None),
        ("shop/cart.py", None),  # not a test
    ],
)
def test_a_test_file_names_the_module_it_tests(path: str, name: str | None) -> None:
    assert languages.tested_name(path) == name


@pytest.mark.parametrize(
    ("path", "test"),
    [
        ("index.test-d.ts", True),
        ("typings/commander-tests.ts", True),  # dtslint's
        ("src/runtime_tests/bun/index.ts", True),
        ("integration-tests/app.js", True),
        ("jinja2/tests.py", False),  # Jinja's template tests, the feature
        ("flask_tests.py", False),  # pytest would not collect it
        ("test.py", False),  # nor this: an old project's suite, changed with its code
        ("werkzeug/test.py", False),  # werkzeug.test, the test client
        ("http/test_round_tripper.go", False),  # Go's tests are *_test.go
        ("pkg/cart_test.go", True),
        ("test.js", True),
        ("src/cart.e2e.ts", True),
        ("latest.js", False),
        ("src/attest.go", False),
        ("lib/test-utils.js", False),  # a helper for tests, named as such, not a test
        ("src/testing.py", False),
    ],
)
def test_test_files_are_told_by_the_conventions_of_their_ecosystem(path: str, test: bool) -> None:
    assert languages.is_test(path) == test


def _invoice_fix(root: Path) -> tuple[dict[str, Any], list[str], list[str]]:
    """``context --json`` for a fix in shop/billing.py: the selection, the paths sent and the
    paths the map lists."""
    request = "fix the invoice total tax in compute_invoice_total"
    res = run_gpte("context", "--json", "--tokens", "1500", request, cwd=root)
    assert res.returncode == 0, res.stderr
    selection = json.loads(res.stdout)
    sent = [pick["path"] for pick in selection["picks"]]
    listed = [entry["path"] for entry in selection["map"]]
    return selection, sent, listed


def test_the_map_names_the_tests_of_the_files_sent_first(tmp_path: Path) -> None:
    files = big_project()
    files["tests/test_billing.py"] = (
        "from shop.billing import ledger_entry_1\n\n\n"
        "def test_ledger_entry():\n    assert ledger_entry_1(2) == 4\n"
    )
    files["tests/test_weather.py"] = (
        "from shop.weather import weather_step_1\n\n\n"
        "def test_weather_step():\n    assert weather_step_1(1)\n"
    )
    selection, sent, listed = _invoice_fix(make_repo(tmp_path / "r", files))
    assert "shop/billing.py" in sent and "shop/weather.py" not in sent
    assert listed[0] == "tests/test_billing.py"
    assert selection["map"][0]["signatures"] == [[4, "def test_ledger_entry():"]]
    assert "tests/test_weather.py" not in listed  # its module was not sent
    assert len(listed) > 1  # the next files still have the rest of the map


def test_the_map_names_the_declarations_of_the_files_sent(tmp_path: Path) -> None:
    # A stub ranks a twentieth of code and is seldom sent; named first in the map, it tells
    # the model changing billing's API where its types are declared.
    files = big_project()
    files["shop/billing.pyi"] = "def ledger_entry_1(amount: int) -> int: ...\n"
    files["shop/weather.pyi"] = "def weather_step_1(day: int) -> bool: ...\n"
    _, sent, listed = _invoice_fix(make_repo(tmp_path / "r", files))
    assert "shop/billing.py" in sent and "shop/billing.pyi" not in sent
    assert listed[0] == "shop/billing.pyi"
    assert "shop/weather.pyi" not in listed[:1]


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("index.d.ts", "index"),
        ("pkg/__init__.pyi", "__init__"),
        ("lib/a.d.mts", "a"),
        ("a.ts", None),
    ],
)
def test_a_declaration_names_the_module_it_declares(path: str, name: str | None) -> None:
    assert languages.declared_name(path) == name
