"""Command line for the inventory: python -m inventory.cli [--db FILE] COMMAND ..."""

import argparse
import sys

from .models import Item, format_quantity
from .store import InsufficientStockError, InventoryStore, UnknownItemError

DEFAULT_DB = "inventory.json"


def build_parser():
    parser = argparse.ArgumentParser(prog="inventory", description="Keep track of stock.")
    parser.add_argument("--db", default=DEFAULT_DB, help="the JSON file to use (default: %(default)s)")
    sub = parser.add_subparsers(dest="command", required=True)

    add = sub.add_parser("add", help="add a new item")
    add.add_argument("sku")
    add.add_argument("name")
    add.add_argument("unit_cost", type=float)
    add.add_argument("--category", default="general")
    add.add_argument("--unit", default="each")
    add.add_argument("--quantity", type=int, default=0, help="stock to start with")
    add.add_argument("--reorder-level", type=int, default=5)
    add.add_argument("--reorder-quantity", type=int, default=20)

    sub.add_parser("list", help="list items with their stock")

    for name, text in (("receive", "add stock of an item"), ("sell", "take stock of an item out")):
        cmd = sub.add_parser(name, help=text)
        cmd.add_argument("sku")
        cmd.add_argument("quantity", type=int)

    sub.add_parser("low", help="list items at or below their reorder level")
    sub.add_parser("restock", help="receive the reorder quantity of every low item")
    sub.add_parser("value", help="print the total value of the stock")
    return parser


def cmd_add(store, args):
    item = Item(
        args.sku,
        args.name,
        args.unit_cost,
        category=args.category,
        unit=args.unit,
        reorder_level=args.reorder_level,
        reorder_quantity=args.reorder_quantity,
    )
    store.add_item(item, quantity=args.quantity)
    print(f"added {item.sku}")
    return True


def cmd_list(store, args):
    for sku in sorted(store.items):
        item = store.items[sku]
        print(f"{sku:<10} {item.name:<28} {format_quantity(store.quantity(sku), item.unit):>10}")
    return False


def cmd_receive(store, args):
    store.receive(args.sku, args.quantity)
    print(f"{args.sku.upper()}: {store.quantity(args.sku)} on hand")
    return True


def cmd_sell(store, args):
    store.remove_stock(args.sku, args.quantity)
    print(f"{args.sku.upper()}: {store.quantity(args.sku)} on hand")
    return True


def cmd_low(store, args):
    for item in store.low_stock():
        print(f"{item.sku:<10} {item.name:<28} {store.quantity(item.sku):>6} (reorder at {item.reorder_level})")
    return False


def cmd_restock(store, args):
    received = store.restock()
    for sku, quantity in received.items():
        print(f"{sku}: +{quantity}")
    return bool(received)


def cmd_value(store, args):
    print(f"{store.total_value():.2f}")
    return False


COMMANDS = {
    "add": cmd_add,
    "list": cmd_list,
    "receive": cmd_receive,
    "sell": cmd_sell,
    "low": cmd_low,
    "restock": cmd_restock,
    "value": cmd_value,
}


def main(argv=None):
    args = build_parser().parse_args(argv)
    store = InventoryStore.load(args.db)
    try:
        changed = COMMANDS[args.command](store, args)
    except (UnknownItemError, InsufficientStockError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if changed:
        store.save(args.db)
    return 0


if __name__ == "__main__":
    sys.exit(main())
