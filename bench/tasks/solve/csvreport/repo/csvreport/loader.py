"""Reading CSV files into records.

A record is a plain dict mapping column names to values.  Values are strings
unless the column is listed as a number or date column, in which case they are
converted with :func:`parse_number` / :func:`parse_date`.
"""

import csv
from datetime import date, datetime

# Accepted date layouts, tried in order.  Day-first, as our exports use.
DATE_FORMATS = ("%Y-%m-%d", "%d/%m/%Y", "%d.%m.%Y", "%d %b %Y")

CURRENCY_SIGNS = "$€£"


def parse_number(text):
    """Turn text such as '1,234.50', '-3', '$12' or '(40)' into a float.

    Blank cells give None.  Parentheses mean a negative amount, as in
    accounting exports.
    """
    if text is None:
        return None
    cleaned = text.strip().replace(",", "").replace(" ", "")
    for sign in CURRENCY_SIGNS:
        cleaned = cleaned.replace(sign, "")
    if not cleaned:
        return None
    negative = cleaned.startswith("(") and cleaned.endswith(")")
    if negative:
        cleaned = cleaned[1:-1]
    try:
        value = float(cleaned)
    except ValueError:
        return None
    return -value if negative else value


def parse_date(text):
    """Parse a date in one of DATE_FORMATS; blank cells give None."""
    if text is None or not text.strip():
        return None
    text = text.strip()
    for fmt in DATE_FORMATS:
        try:
            return datetime.strptime(text, fmt).date()
        except ValueError:
            continue
    raise ValueError(f"unrecognised date: {text!r}")


def guess_delimiter(path):
    if path.lower().endswith(".tsv"):
        return "\t"
    return ","


def read_rows(path, delimiter=None):
    """Yield each data row of the file as a dict, keys and values stripped.

    Columns without a header are dropped, and short rows are padded with
    empty strings.
    """
    if delimiter is None:
        delimiter = guess_delimiter(path)
    with open(path, newline="", encoding="utf-8-sig") as handle:
        reader = csv.DictReader(handle, delimiter=delimiter)
        for row in reader:
            yield {
                key.strip(): (value or "").strip()
                for key, value in row.items()
                if key is not None and key.strip()
            }


def convert_row(row, number_fields=(), date_fields=()):
    """Return a copy of ``row`` with the given columns converted."""
    record = dict(row)
    for name in number_fields:
        record[name] = parse_number(row.get(name))
    for name in date_fields:
        record[name] = parse_date(row.get(name))
    return record


def load_records(path, number_fields=(), date_fields=(), delimiter=None):
    """Load a CSV file into a list of records.

    Rows whose values cannot be converted are skipped with a message, so
    one bad line in a long export doesn't stop the whole report.
    """
    if delimiter is None:
        delimiter = guess_delimiter(path)
    records = []
    for line_number, row in enumerate(read_rows(path, delimiter), start=2):
        if not any(row.values()):
            continue
        try:
            records.append(convert_row(row, number_fields, date_fields))
        except ValueError as exc:
            print(f"skipping line {line_number} of {path}: {exc}")
    return records


def get_num_cols(records):
    """Names of the columns whose values are all numbers (None allowed), in file order."""
    if not records:
        return []
    names = []
    for name in records[0]:
        values = [record.get(name) for record in records]
        if all(v is None or isinstance(v, (int, float)) for v in values) and any(
            v is not None for v in values
        ):
            names.append(name)
    return names


def columns(records):
    """All column names seen in ``records``, in order of first appearance."""
    seen = {}
    for record in records:
        for name in record:
            seen.setdefault(name, None)
    return list(seen)


def date_range(records, field):
    """The earliest and latest date in ``field``, or (None, None)."""
    dates = [r[field] for r in records if isinstance(r.get(field), date)]
    if not dates:
        return None, None
    return min(dates), max(dates)
