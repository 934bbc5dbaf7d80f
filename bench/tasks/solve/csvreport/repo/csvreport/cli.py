"""Command-line entry point.

    python -m csvreport.cli sales.csv --group-by region --numbers amount,quantity
    python -m csvreport.cli sales.csv --group-by product --value amount \\
        --dates date --from 2024-01-01 --to 2024-03-31
"""

import argparse
import sys

from .loader import get_num_cols, load_records, parse_date
from .report import build_report, filter_by_date


def split_list(text):
    """'a, b,,c' -> ['a', 'b', 'c']"""
    return [part.strip() for part in (text or "").split(",") if part.strip()]


def date_argument(text):
    try:
        return parse_date(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc))


def build_parser():
    parser = argparse.ArgumentParser(
        prog="csvreport", description="Print totals per group for a CSV file."
    )
    parser.add_argument("path", help="the CSV (or .tsv) file to read")
    parser.add_argument("-g", "--group-by", help="column to group the rows by")
    parser.add_argument("-v", "--value", help="numeric column to total (default: the first one)")
    parser.add_argument("-n", "--numbers", default="", help="comma-separated number columns")
    parser.add_argument("-d", "--dates", default="", help="comma-separated date columns")
    parser.add_argument("--date-field", default="date", help="date column used by --from/--to")
    parser.add_argument("--from", dest="start", type=date_argument, help="first date to include")
    parser.add_argument("--to", dest="end", type=date_argument, help="last date to include")
    parser.add_argument("--decimals", type=int, default=2, help="decimal places (default: 2)")
    parser.add_argument("--title", help="title printed above the table")
    parser.add_argument(
        "--list-columns", action="store_true", help="list the columns of the file and exit"
    )
    return parser


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)

    number_fields = split_list(args.numbers)
    date_fields = split_list(args.dates)
    if args.value and args.value not in number_fields:
        number_fields.append(args.value)
    if (args.start or args.end) and args.date_field not in date_fields:
        date_fields.append(args.date_field)

    records = load_records(args.path, number_fields, date_fields)
    if not records:
        print(f"{args.path}: no data rows", file=sys.stderr)
        return 1

    if args.list_columns:
        numeric = get_num_cols(records)
        for name in records[0]:
            print(f"{name} (number)" if name in numeric else name)
        return 0

    if not args.group_by:
        parser.error("--group-by is required unless --list-columns is given")
    if args.group_by not in records[0]:
        print(f"unknown column: {args.group_by}", file=sys.stderr)
        return 2

    records = filter_by_date(records, args.date_field, args.start, args.end)
    try:
        text = build_report(
            records, args.group_by, args.value, title=args.title, decimals=args.decimals
        )
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
