"""A rename made in one place is completed where the old name is still used."""

from __future__ import annotations

from git_gpte.edit.rename import (
    complete_renames,
    imported_names,
    misnamed_renames,
    plain_rename,
    renames,
    requested_name,
    requested_rename,
    top_level_names,
)

LOADER = '''def get_cols(records):
    """Names of the numeric columns."""
    return [k for k in records[0]]


def first(records):
    return get_cols(records)[0]
'''


def test_a_definition_under_a_new_name_and_nothing_else_changed_is_a_rename() -> None:
    renamed = LOADER.replace("def get_cols", "def numeric_columns")
    assert renames(LOADER, renamed) == {"get_cols": "numeric_columns"}
    # a changed body is not a rename (the model rewrote it: it says what it meant)
    changed = renamed.replace("records[0]]", "records[1]]")
    assert renames(LOADER, changed) == {}


def test_the_module_its_importers_and_their_uses_follow() -> None:
    renamed = LOADER.replace("def get_cols", "def numeric_columns")
    others = {
        "pkg/report.py": (
            "from .loader import get_cols, load\n\n\ndef build(r):\n    return get_cols(r)\n"
        ),
        "pkg/cli.py": "from pkg import loader\n\nprint(loader.get_cols([]))\n",
        "pkg/other.py": "def get_cols():\n    return 1\n",  # its own get_cols: not touched
        "tests/test_loader.py": "from pkg.loader import get_cols as cols\n\nassert cols\n",
    }
    done = complete_renames({"pkg/loader.py": LOADER}, {"pkg/loader.py": renamed}, others)
    texts = {d.path: d.text for d in done}
    assert "return numeric_columns(records)[0]" in texts["pkg/loader.py"]
    assert texts["pkg/report.py"].startswith("from .loader import numeric_columns, load")
    assert "return numeric_columns(r)" in texts["pkg/report.py"]
    assert "loader.numeric_columns([])" in texts["pkg/cli.py"]
    assert texts["tests/test_loader.py"].startswith(
        "from pkg.loader import numeric_columns as cols"
    )
    assert "pkg/other.py" not in texts


def test_an_importer_that_imports_the_new_name_has_its_old_uses_renamed() -> None:
    # Seen (csvreport/rename-num-cols): the reply changed cli.py's import to the new name and
    # left one call of the old one, which was then undefined.
    renamed = LOADER.replace("def get_cols", "def numeric_columns")
    cli = "from .loader import numeric_columns\n\n\ndef main(r):\n    return get_cols(r)\n"
    own = "from .loader import numeric_columns\n\n\ndef get_cols(r):\n    return 1\n"
    others = {"pkg/cli.py": cli, "pkg/own.py": own}
    done = complete_renames({"pkg/loader.py": LOADER}, {"pkg/loader.py": renamed}, others)
    texts = {d.path: d.text for d in done}
    assert texts["pkg/cli.py"].endswith("    return numeric_columns(r)\n")
    assert "pkg/own.py" not in texts  # it defines get_cols itself


def test_a_request_for_a_rename_and_nothing_else() -> None:
    assert plain_rename(
        "Rename get_num_cols in csvreport/loader.py to numeric_columns and update its callers "
        "in csvreport/report.py and csvreport/cli.py."
    ) == ("get_num_cols", "numeric_columns")
    assert plain_rename("Rename `foo` to `bar`, including the tests.") == ("foo", "bar")
    assert plain_rename("Rename apply_discount to discounted and make it round.") is None
    assert plain_rename("Rename Store.is_low to needs_reorder") is None  # a method: not ours
    assert plain_rename("rename it") is None and plain_rename("Add logging") is None


def test_a_request_names_the_rename_an_importer_made_alone() -> None:
    defined = {"get_cols", "load"}
    before = imported_names("from .loader import get_cols, load\n")
    assert before == {"get_cols", "load"}
    assert requested_rename("rename get_cols to numeric_cols", "numeric_cols", defined, before) == (
        "get_cols"
    )
    # Not named, the new name not named, or two candidates: no guess.
    assert requested_rename("use numeric_cols", "numeric_cols", defined, before) is None
    assert requested_rename("rename get_cols", "numeric_cols", defined, before) is None
    both = "rename get_cols and load to numeric_cols"
    assert requested_rename(both, "numeric_cols", defined, before) is None
    # Defined there but never imported by this file: not its rename.
    assert (
        requested_rename("rename get_cols to numeric_cols", "numeric_cols", defined, set()) is None
    )
    assert top_level_names("def get_cols(r):\n    return r\nclass K: pass\n") == {"get_cols", "K"}
    assert top_level_names("def (") == set() and imported_names("def (") == set()


def test_renaming_an_import_next_to_the_new_name_leaves_it_once() -> None:
    before = {"pkg/loader.py": "def get_cols(r):\n    return r\n"}
    after = {"pkg/loader.py": "def numeric_cols(r):\n    return r\n"}
    report = "from .loader import numeric_cols, get_cols, load  # noqa\n\nx = numeric_cols\n"
    (done,) = complete_renames(before, after, {"pkg/report.py": report})
    assert done.text.startswith("from .loader import numeric_cols, load  # noqa\n")


def test_a_rename_the_request_names_is_one_even_when_the_body_changed_too() -> None:
    before = "def get_cols(r):\n    return r\n\n\ndef load(p):\n    return p\n"
    after = 'def numeric_cols(r):\n    """The numeric columns."""\n    return r\n\n\ndef load(p):\n'
    after += "    return p\n"
    assert renames(before, after) == {}  # not the same definition under another name
    asked = "Rename get_cols in loader.py to numeric_cols"
    assert renames(before, after, asked) == {"get_cols": "numeric_cols"}
    assert renames(before, after, "add a docstring to numeric_cols") == {}  # one name only
    report = "from loader import get_cols\n\n\ndef build(r):\n    return get_cols(r)\n"
    (done,) = complete_renames(
        {"loader.py": before}, {"loader.py": after}, {"report.py": report}, asked
    )
    assert done.text == report.replace("get_cols", "numeric_cols")


def test_the_name_a_request_gives() -> None:
    assert requested_name("Rename apply_discount to discounted_amount", "apply_discount") == (
        "discounted_amount"
    )
    asked = "Rename get_cols in pkg/loader.py to `numeric_cols` and update its callers."
    assert requested_name(asked, "get_cols") == "numeric_cols"
    assert requested_name("rename get_cols -> numeric_cols", "get_cols") == "numeric_cols"
    assert requested_name("Add logging to get_cols", "get_cols") is None
    assert requested_name("make get_cols faster", "get_cols") is None


def test_a_rename_to_a_name_of_the_models_own_gets_the_requested_name() -> None:
    asked = "Rename the function get_cols to numeric_cols and update its callers."
    mine = LOADER.replace("get_cols", "get_numeric_cols")
    report = "from .loader import get_numeric_cols\n"
    originals = {"loader.py": LOADER, "report.py": "from .loader import get_cols\n"}
    changes = {"loader.py": mine, "report.py": report}
    assert misnamed_renames(originals, changes, asked) == {"get_numeric_cols": "numeric_cols"}
    # the name the model chose is in the request, or the requested one is used already: not
    # this rename (the request is read, not guessed)
    assert misnamed_renames(originals, changes, asked + " (get_numeric_cols is fine)") == {}
    taken = {**changes, "report.py": report + "numeric_cols = 1\n"}
    assert misnamed_renames(originals, taken, asked) == {}
    # a name that was in the code before is not the model's to give up
    assert misnamed_renames({**originals, "x.py": "get_numeric_cols = 2\n"}, changes, asked) == {}


ACCOUNTS = '''from decimal import Decimal


def calculate_interest(balance, days):
    """Simple interest."""
    return Decimal(balance) * days / 365


def read_csv(path):
    return []
'''


def test_a_renamed_definition_written_beside_the_old_takes_its_place() -> None:
    from git_gpte.edit.rename import renamed_beside

    added = (
        "\n\ndef accrued_interest(balance, days):\n"
        '    """Simple interest.\n    \n    """\n'
        "    return Decimal(balance) * days / 365\n"
    )
    asked = "Rename the function calculate_interest to accrued_interest and update its users."
    found = renamed_beside(ACCOUNTS, ACCOUNTS + added, asked)
    assert found is not None
    text, old, new = found
    assert (old, new) == ("calculate_interest", "accrued_interest")
    assert text == ACCOUNTS.replace(
        'def calculate_interest(balance, days):\n    """Simple interest."""\n',
        'def accrued_interest(balance, days):\n    """Simple interest.\n    \n    """\n',
    )
    # not asked for this rename, or the old one was changed too: not a leftover
    assert renamed_beside(ACCOUNTS, ACCOUNTS + added, "add accrued_interest") is None
    changed = ACCOUNTS.replace("/ 365", "/ 360") + added
    assert renamed_beside(ACCOUNTS, changed, asked) is None


def test_a_rename_follows_a_package_that_re_exports_the_name() -> None:
    from git_gpte.edit.rename import complete_renames

    before = {"ledger/accounts.py": ACCOUNTS}
    after = {"ledger/accounts.py": ACCOUNTS.replace("calculate_interest", "accrued_interest")}
    others = {
        "ledger/__init__.py": (
            "from .accounts import calculate_interest\n\n"
            '__all__ = ["Account", "calculate_interest"]\n'
        ),
        "tests/test_accounts.py": (
            "from ledger import calculate_interest\n\n\n"
            "def test_interest():\n    assert calculate_interest(365, 1) == 1\n"
        ),
    }
    done = {r.path: r for r in complete_renames(before, after, others)}
    # the package's exports follow too: it no longer binds the old name
    assert done["ledger/__init__.py"].text == others["ledger/__init__.py"].replace(
        "calculate_interest", "accrued_interest"
    )
    assert done["tests/test_accounts.py"].text == others["tests/test_accounts.py"].replace(
        "calculate_interest", "accrued_interest"
    )
    assert done["tests/test_accounts.py"].places == 2


def test_a_rename_reaches_the_modules_own_all_when_nothing_else_there_uses_it() -> None:
    """Seen on boltons: ``strip_ansi`` listed in strutils' ``__all__`` and used nowhere else in
    the module; the rename left it listed, and the module failed the check."""
    from git_gpte.edit.rename import complete_renames

    module = '__all__ = ["strip", "other"]\n\n\ndef strip(text):\n    return text.strip()\n'
    before = {"mod.py": module}
    after = {"mod.py": module.replace("def strip", "def clean")}
    done = {r.path: r for r in complete_renames(before, after, {})}
    assert done["mod.py"].text == module.replace("strip", "clean").replace(
        "text.clean()", "text.strip()"
    )
