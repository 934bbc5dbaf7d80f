"""The things the inventory keeps: items, their stock levels and stock movements."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime

SKU_PATTERN = re.compile(r"^[A-Z]{2,4}-\d{3,6}$")

# Units an item can be counted in.
UNITS = ("each", "box", "pack", "kg", "m", "l")


def normalize_sku(sku):
    """Upper-case a SKU and drop spaces, e.g. ' hw-0012 ' -> 'HW-0012'.

    Raises ValueError when the result does not look like a SKU
    (two to four letters, a dash, three to six digits).
    """
    cleaned = str(sku).strip().upper().replace(" ", "")
    if not SKU_PATTERN.match(cleaned):
        raise ValueError(f"invalid SKU: {sku!r}")
    return cleaned


@dataclass
class Item:
    """A kind of thing we stock.

    reorder_level is the stock level at which the item should be ordered again,
    reorder_quantity how many to order when it is.
    """

    sku: str
    name: str
    unit_cost: float
    category: str = "general"
    unit: str = "each"
    reorder_level: int = 5
    reorder_quantity: int = 20

    def __post_init__(self):
        self.sku = normalize_sku(self.sku)
        self.name = self.name.strip()
        if not self.name:
            raise ValueError("an item needs a name")
        if self.unit not in UNITS:
            raise ValueError(f"unknown unit {self.unit!r}, expected one of {', '.join(UNITS)}")
        self.category = self.category.strip().lower() or "general"

    def to_dict(self):
        return {
            "sku": self.sku,
            "name": self.name,
            "unit_cost": self.unit_cost,
            "category": self.category,
            "unit": self.unit,
            "reorder_level": self.reorder_level,
            "reorder_quantity": self.reorder_quantity,
        }

    @classmethod
    def from_dict(cls, data):
        return cls(
            sku=data["sku"],
            name=data["name"],
            unit_cost=float(data["unit_cost"]),
            category=data.get("category", "general"),
            unit=data.get("unit", "each"),
            reorder_level=int(data.get("reorder_level", 5)),
            reorder_quantity=int(data.get("reorder_quantity", 20)),
        )


@dataclass
class StockLevel:
    """How many of one item we have, and how many of those are promised to orders."""

    sku: str
    on_hand: int = 0
    reserved: int = 0
    location: str = "main"

    @property
    def available(self) -> int:
        return self.on_hand - self.reserved

    def to_dict(self):
        return {
            "sku": self.sku,
            "on_hand": self.on_hand,
            "reserved": self.reserved,
            "location": self.location,
        }

    @classmethod
    def from_dict(cls, data):
        return cls(
            sku=data["sku"],
            on_hand=int(data.get("on_hand", 0)),
            reserved=int(data.get("reserved", 0)),
            location=data.get("location", "main"),
        )


@dataclass
class Movement:
    """One change to the stock of an item: positive in, negative out."""

    sku: str
    change: int
    reason: str
    at: datetime = field(default_factory=datetime.now)

    def to_dict(self):
        return {
            "sku": self.sku,
            "change": self.change,
            "reason": self.reason,
            "at": self.at.isoformat(timespec="seconds"),
        }

    @classmethod
    def from_dict(cls, data):
        return cls(
            sku=data["sku"],
            change=int(data["change"]),
            reason=data.get("reason", ""),
            at=datetime.fromisoformat(data["at"]),
        )


def format_quantity(quantity, unit="each"):
    """A quantity for people: '3', '1 box', '12 boxes', '2.5 kg'."""
    if unit == "each":
        return str(quantity)
    if unit in ("box", "pack"):
        plural = unit + ("es" if unit.endswith("x") else "s")
        return f"{quantity} {unit if quantity == 1 else plural}"
    return f"{quantity} {unit}"
