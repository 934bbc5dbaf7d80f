from inventory import InventoryStore, Item
from bench_checks.behaviour import check_behaviour


def test_at_reorder_level_is_low():
    store = InventoryStore()
    store.add_item(Item("HW-001", "Hinges", 1.0, reorder_level=5, reorder_quantity=10), 5)
    store.add_item(Item("HW-002", "Screws", 0.1, reorder_level=5), 6)
    store.add_item(Item("HW-003", "Nails", 0.1, reorder_level=5), 4)
    assert store.is_low("HW-001")
    assert not store.is_low("HW-002")
    assert store.is_low("HW-003")
    assert [item.sku for item in store.low_stock()] == ["HW-001", "HW-003"]
    assert store.restock()["HW-001"] == 10
    assert store.quantity("HW-001") == 15


def test_behaviour_unchanged():
    check_behaviour()
