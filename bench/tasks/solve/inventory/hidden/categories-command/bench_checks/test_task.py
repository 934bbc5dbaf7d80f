import os

from inventory import InventoryStore, Item
from inventory.cli import main
from bench_checks.behaviour import check_behaviour


def test_store_categories():
    store = InventoryStore()
    assert store.categories() == []
    store.add_item(Item("PT-001", "Primer", 9.0, category="paint"))
    store.add_item(Item("HW-001", "Hinges", 1.0, category="hardware"))
    store.add_item(Item("HW-002", "Screws", 0.1, category="hardware"))
    store.add_item(Item("GN-001", "Tape", 2.0))
    assert store.categories() == ["general", "hardware", "paint"]


def test_cli_categories(tmp_path, capsys):
    db = str(tmp_path / "stock.json")
    assert main(["--db", db, "add", "PT-001", "Primer", "9", "--category", "paint"]) == 0
    assert main(["--db", db, "add", "HW-001", "Hinges", "1", "--category", "hardware"]) == 0
    assert main(["--db", db, "add", "HW-002", "Screws", "0.1", "--category", "hardware"]) == 0
    capsys.readouterr()
    assert main(["--db", db, "categories"]) in (0, None)
    lines = [line.strip() for line in capsys.readouterr().out.splitlines()]
    assert [line for line in lines if line in ("hardware", "paint")] == ["hardware", "paint"]
    assert os.path.exists(db)


def test_behaviour_unchanged():
    check_behaviour()
