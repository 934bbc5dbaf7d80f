"""Stock keeping for a small warehouse: items, stock levels and a JSON-backed store."""

from .models import Item, Movement, StockLevel
from .store import InsufficientStockError, InventoryStore, UnknownItemError

__all__ = [
    "InsufficientStockError",
    "InventoryStore",
    "Item",
    "Movement",
    "StockLevel",
    "UnknownItemError",
]

__version__ = "0.4.1"
