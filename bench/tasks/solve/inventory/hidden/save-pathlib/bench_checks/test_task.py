import json
import pathlib

from inventory import InventoryStore, Item
from bench_checks.behaviour import check_behaviour


def _store():
    store = InventoryStore()
    store.add_item(Item("HW-001", "Hinges", 1.0), 10)
    return store


def test_save_path(tmp_path):
    path = tmp_path / "stock.json"
    assert isinstance(path, pathlib.Path)
    _store().save(path)
    assert json.loads(path.read_text())["items"][0]["sku"] == "HW-001"
    assert InventoryStore.load(path).quantity("HW-001") == 10
    assert [p.name for p in tmp_path.iterdir()] == ["stock.json"]


def test_save_str(tmp_path):
    path = str(tmp_path / "other.json")
    _store().save(path)
    assert InventoryStore.load(path).quantity("HW-001") == 10


def test_behaviour_unchanged():
    check_behaviour()
