"""An in-memory inventory that can be saved to and loaded from a JSON file."""

import json
import os

from .models import Item, Movement, StockLevel, normalize_sku

FORMAT_VERSION = 1


class UnknownItemError(KeyError):
    """Raised when a SKU is not in the store."""

    def __str__(self):
        return f"unknown item: {self.args[0]}"


class InsufficientStockError(Exception):
    """Raised when taking more of an item than is available."""


class InventoryStore:
    """Items, their stock levels and the history of stock movements."""

    def __init__(self):
        self.items = {}
        self.levels = {}
        self.history = []

    def __len__(self):
        return len(self.items)

    def __contains__(self, sku):
        try:
            return normalize_sku(sku) in self.items
        except ValueError:
            return False

    # --- items ---------------------------------------------------------------

    def add_item(self, item, quantity=0, location="main"):
        if item.sku in self.items:
            raise ValueError(f"duplicate SKU: {item.sku}")
        self.items[item.sku] = item
        self.levels[item.sku] = StockLevel(item.sku, location=location)
        if quantity:
            self._record(item.sku, quantity, "initial stock")
        return item

    def remove_item(self, sku):
        item = self.get(sku)
        if self.levels[item.sku].reserved:
            raise ValueError(f"{item.sku} has reserved stock and cannot be removed")
        del self.items[item.sku]
        del self.levels[item.sku]
        return item

    def get(self, sku):
        key = normalize_sku(sku)
        try:
            return self.items[key]
        except KeyError:
            raise UnknownItemError(key) from None

    def level(self, sku):
        return self.levels[self.get(sku).sku]

    def quantity(self, sku):
        return self.level(sku).on_hand

    # --- stock movements -----------------------------------------------------

    def _record(self, sku, change, reason):
        self.levels[sku].on_hand += change
        movement = Movement(sku, change, reason)
        self.history.append(movement)
        return movement

    def receive(self, sku, quantity, reason="received"):
        """Add ``quantity`` to the stock of an item."""
        if quantity <= 0:
            raise ValueError("quantity must be positive")
        item = self.get(sku)
        return self._record(item.sku, quantity, reason)

    def remove_stock(self, sku, quantity, reason="sold"):
        """Take ``quantity`` of an item out of stock (sold, damaged, ...)."""
        if quantity <= 0:
            raise ValueError("quantity must be positive")
        item = self.get(sku)
        level = self.levels[item.sku]
        if quantity > level.available:
            raise InsufficientStockError(
                f"cannot take {quantity} of {item.sku}: only {level.available} available"
            )
        movement = self._record(item.sku, -quantity, reason)
        if self.is_low(item.sku):
            print(f"Warning: {item.sku} is low on stock ({level.on_hand} left)")
        return movement

    def reserve(self, sku, quantity):
        level = self.level(sku)
        if quantity > level.available:
            raise InsufficientStockError(
                f"cannot reserve {quantity} of {level.sku}: only {level.available} available"
            )
        level.reserved += quantity

    def release(self, sku, quantity):
        level = self.level(sku)
        level.reserved = max(0, level.reserved - quantity)

    def movements(self, sku=None):
        if sku is None:
            return list(self.history)
        key = normalize_sku(sku)
        return [m for m in self.history if m.sku == key]

    # --- queries -------------------------------------------------------------

    def is_low(self, sku):
        """True when an item's stock has fallen to its reorder level or below."""
        item = self.get(sku)
        return self.levels[item.sku].on_hand < item.reorder_level

    def low_stock(self):
        """The items that need ordering, by SKU."""
        low = [item for item in self.items.values() if self.is_low(item.sku)]
        return sorted(low, key=lambda item: item.sku)

    def restock(self):
        """Receive the reorder quantity of every low item.

        Returns a dict of SKU -> quantity received.
        """
        received = {}
        for item in self.low_stock():
            self.receive(item.sku, item.reorder_quantity, reason="restock")
            received[item.sku] = item.reorder_quantity
        return received

    def search(self, text):
        text = text.strip().lower()
        found = [
            item
            for item in self.items.values()
            if text in item.name.lower() or text in item.sku.lower()
        ]
        return sorted(found, key=lambda item: item.sku)

    def by_category(self, category):
        category = category.strip().lower()
        return sorted(
            (item for item in self.items.values() if item.category == category),
            key=lambda item: item.sku,
        )

    def total_value(self, category=None):
        total = 0.0
        for sku, item in self.items.items():
            if category is not None and item.category != category:
                continue
            total += item.unit_cost * self.levels[sku].on_hand
        return round(total, 2)

    # --- saving and loading ----------------------------------------------------

    def to_dict(self):
        return {
            "version": FORMAT_VERSION,
            "items": [item.to_dict() for item in self.items.values()],
            "levels": [level.to_dict() for level in self.levels.values()],
            "history": [movement.to_dict() for movement in self.history],
        }

    @classmethod
    def from_dict(cls, data):
        version = data.get("version", 1)
        if version > FORMAT_VERSION:
            raise ValueError(f"unsupported file version {version}")
        store = cls()
        for row in data.get("items", []):
            item = Item.from_dict(row)
            store.items[item.sku] = item
            store.levels[item.sku] = StockLevel(item.sku)
        for row in data.get("levels", []):
            level = StockLevel.from_dict(row)
            if level.sku in store.items:
                store.levels[level.sku] = level
        store.history = [Movement.from_dict(row) for row in data.get("history", [])]
        return store

    def save(self, path):
        # write to a temporary file first so a crash never leaves half a file behind
        tmp = path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(self.to_dict(), fh, indent=2)
        os.replace(tmp, path)

    @classmethod
    def load(cls, path):
        """Load a store from ``path``; a missing file gives an empty store."""
        if not os.path.exists(path):
            return cls()
        with open(path, encoding="utf-8") as fh:
            store = cls.from_dict(json.load(fh))
        print(f"Loaded {len(store)} items from {path}")
        return store
