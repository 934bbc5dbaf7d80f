from datetime import datetime

import pytest

from inventory.models import Item, Movement, StockLevel, format_quantity


def test_item_cleans_sku_and_category():
    item = Item(" hw-0012 ", "Wood screws 4x40", 3.2, category=" Hardware ")
    assert item.sku == "HW-0012"
    assert item.category == "hardware"


@pytest.mark.parametrize("sku", ["", "12-345", "HW0012", "TOOLONG-123"])
def test_item_rejects_bad_sku(sku):
    with pytest.raises(ValueError):
        Item(sku, "Thing", 1.0)


def test_item_rejects_unknown_unit():
    with pytest.raises(ValueError):
        Item("HW-001", "Thing", 1.0, unit="crate")


def test_item_round_trip():
    item = Item("PT-220", "White paint 5l", 24.5, category="paint", unit="l", reorder_level=2)
    assert Item.from_dict(item.to_dict()) == item


def test_stock_level_available():
    level = StockLevel("HW-001", on_hand=10, reserved=3)
    assert level.available == 7
    assert StockLevel.from_dict(level.to_dict()) == level


def test_movement_round_trip():
    movement = Movement("HW-001", -2, "sold", at=datetime(2024, 3, 1, 9, 30))
    assert Movement.from_dict(movement.to_dict()) == movement


def test_format_quantity():
    assert format_quantity(3) == "3"
    assert format_quantity(1, "box") == "1 box"
    assert format_quantity(12, "box") == "12 boxes"
    assert format_quantity(2, "pack") == "2 packs"
    assert format_quantity(2.5, "kg") == "2.5 kg"
