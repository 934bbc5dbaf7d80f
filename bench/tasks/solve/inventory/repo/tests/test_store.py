import json

import pytest

from inventory import InsufficientStockError, InventoryStore, Item, UnknownItemError


@pytest.fixture
def store():
    s = InventoryStore()
    s.add_item(Item("HW-001", "Wood screws 4x40", 0.05, category="hardware", reorder_level=100), 500)
    s.add_item(Item("HW-002", "Wall plugs", 0.03, category="hardware", reorder_level=50,
                    reorder_quantity=100), 20)
    s.add_item(Item("PT-010", "White paint 5l", 24.5, category="paint", unit="l", reorder_level=2,
                    reorder_quantity=6), 4)
    return s


def test_lookup_is_case_insensitive(store):
    assert store.get("hw-001").name == "Wood screws 4x40"
    assert "pt-010" in store
    assert "XX-999" not in store
    assert "nonsense" not in store


def test_unknown_item(store):
    with pytest.raises(UnknownItemError):
        store.get("HW-999")


def test_duplicate_item(store):
    with pytest.raises(ValueError):
        store.add_item(Item("HW-001", "Other screws", 0.04))


def test_receive_and_remove(store):
    store.receive("HW-002", 30)
    store.remove_stock("HW-002", 5)
    assert store.quantity("HW-002") == 45
    assert [m.change for m in store.movements("HW-002")] == [20, 30, -5]


def test_remove_more_than_available(store):
    store.reserve("PT-010", 3)
    with pytest.raises(InsufficientStockError):
        store.remove_stock("PT-010", 2)
    store.release("PT-010", 3)
    store.remove_stock("PT-010", 2)
    assert store.quantity("PT-010") == 2


def test_bad_quantities(store):
    with pytest.raises(ValueError):
        store.receive("HW-001", 0)
    with pytest.raises(ValueError):
        store.remove_stock("HW-001", -1)


def test_low_stock_and_restock(store):
    assert [item.sku for item in store.low_stock()] == ["HW-002"]
    assert store.restock() == {"HW-002": 100}
    assert store.quantity("HW-002") == 120
    assert store.low_stock() == []


def test_search_and_category(store):
    assert [i.sku for i in store.search("PLUG")] == ["HW-002"]
    assert [i.sku for i in store.search("hw-")] == ["HW-001", "HW-002"]
    assert [i.sku for i in store.by_category("Hardware")] == ["HW-001", "HW-002"]


def test_total_value(store):
    assert store.total_value() == 25.0 + 0.6 + 98.0
    assert store.total_value("paint") == 98.0


def test_remove_item(store):
    store.remove_item("hw-002")
    assert len(store) == 2
    store.reserve("PT-010", 1)
    with pytest.raises(ValueError):
        store.remove_item("PT-010")


def test_save_and_load(store, tmp_path):
    store.remove_stock("PT-010", 1)
    path = tmp_path / "stock.json"
    store.save(str(path))
    data = json.loads(path.read_text())
    assert data["version"] == 1
    loaded = InventoryStore.load(str(path))
    assert loaded.items == store.items
    assert loaded.levels == store.levels
    assert [m.to_dict() for m in loaded.history] == [m.to_dict() for m in store.history]


def test_load_missing_file(tmp_path):
    assert len(InventoryStore.load(str(tmp_path / "nothing.json"))) == 0
