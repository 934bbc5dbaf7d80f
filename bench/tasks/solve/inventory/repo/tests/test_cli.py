import pytest

from inventory.cli import main
from inventory.store import InventoryStore


@pytest.fixture
def db(tmp_path):
    path = str(tmp_path / "stock.json")
    assert main(["--db", path, "add", "hw-001", "Wood screws", "0.05", "--category", "hardware",
                 "--quantity", "200", "--reorder-level", "50"]) == 0
    assert main(["--db", path, "add", "PT-010", "White paint", "24.50", "--unit", "l",
                 "--category", "paint", "--quantity", "1", "--reorder-level", "2",
                 "--reorder-quantity", "6"]) == 0
    return path


def test_add_saves(db):
    store = InventoryStore.load(db)
    assert sorted(store.items) == ["HW-001", "PT-010"]
    assert store.quantity("HW-001") == 200


def test_list(db, capsys):
    capsys.readouterr()
    assert main(["--db", db, "list"]) == 0
    out = capsys.readouterr().out
    assert "HW-001" in out and "White paint" in out and "1 l" in out


def test_sell_and_receive(db):
    assert main(["--db", db, "sell", "hw-001", "30"]) == 0
    assert main(["--db", db, "receive", "HW-001", "10"]) == 0
    assert InventoryStore.load(db).quantity("HW-001") == 180


def test_sell_too_many(db, capsys):
    assert main(["--db", db, "sell", "PT-010", "5"]) == 1
    assert "error" in capsys.readouterr().err


def test_low_and_restock(db, capsys):
    capsys.readouterr()
    main(["--db", db, "low"])
    out = capsys.readouterr().out
    assert "PT-010" in out and "HW-001" not in out
    main(["--db", db, "restock"])
    assert InventoryStore.load(db).quantity("PT-010") == 7


def test_value(db, capsys):
    capsys.readouterr()
    main(["--db", db, "value"])
    assert capsys.readouterr().out.strip().splitlines()[-1] == "34.50"
