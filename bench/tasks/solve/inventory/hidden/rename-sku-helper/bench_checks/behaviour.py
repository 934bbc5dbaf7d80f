import os
import tempfile

from inventory import InsufficientStockError, InventoryStore, Item
from inventory.cli import main


def make_store():
    store = InventoryStore()
    store.add_item(Item("hw-100", "Hinges", 1.5, category="hardware", reorder_level=10,
                        reorder_quantity=40), 30)
    store.add_item(Item("PT-200", "Primer", 12.0, category="paint", reorder_level=5,
                        reorder_quantity=10), 2)
    return store


def check_behaviour():
    store = make_store()
    assert store.get("HW-100").name == "Hinges"
    assert store.quantity("hw-100") == 30
    store.remove_stock("HW-100", 5)
    store.receive("HW-100", 1)
    assert store.quantity("HW-100") == 26
    try:
        store.remove_stock("PT-200", 3)
    except InsufficientStockError:
        pass
    else:
        raise AssertionError("removing more than is on hand should fail")
    assert [item.sku for item in store.low_stock()] == ["PT-200"]
    assert store.restock() == {"PT-200": 10}
    assert store.total_value() == 26 * 1.5 + 12 * 12.0
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "stock.json")
        store.save(path)
        loaded = InventoryStore.load(path)
        assert loaded.items == store.items
        assert loaded.levels == store.levels
        db = os.path.join(tmp, "cli.json")
        assert main(["--db", db, "add", "HW-300", "Bolts", "0.2", "--quantity", "50"]) == 0
        assert main(["--db", db, "sell", "HW-300", "8"]) == 0
        assert InventoryStore.load(db).quantity("HW-300") == 42
