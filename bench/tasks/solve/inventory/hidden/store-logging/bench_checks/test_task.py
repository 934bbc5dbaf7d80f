import logging

from inventory import InventoryStore, Item
from bench_checks.behaviour import check_behaviour


def _records(caplog, level):
    return [r for r in caplog.records if r.name == "inventory.store" and r.levelno == level]


def test_low_stock_warning_logged(caplog, capsys):
    caplog.set_level(logging.DEBUG)
    store = InventoryStore()
    store.add_item(Item("HW-001", "Hinges", 1.0, reorder_level=5), 10)
    store.remove_stock("HW-001", 2)
    assert not _records(caplog, logging.WARNING), "no warning expected while stock is fine"
    store.remove_stock("HW-001", 7)
    warnings = _records(caplog, logging.WARNING)
    assert warnings, "no WARNING record on the inventory.store logger"
    assert "HW-001" in " ".join(r.getMessage() for r in warnings)
    assert capsys.readouterr().out == ""


def test_load_logged(caplog, capsys, tmp_path):
    store = InventoryStore()
    store.add_item(Item("HW-001", "Hinges", 1.0), 10)
    path = str(tmp_path / "stock.json")
    store.save(path)
    capsys.readouterr()
    caplog.set_level(logging.DEBUG)
    assert len(InventoryStore.load(path)) == 1
    assert _records(caplog, logging.INFO), "no INFO record on the inventory.store logger"
    assert capsys.readouterr().out == ""


def test_behaviour_unchanged():
    check_behaviour()
