"""A rename made in one place is completed where the old name is still used."""

from __future__ import annotations

from git_gpte.edit.rename import complete_renames, renames

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
