"""Grouping records and formatting the results as a plain-text table."""

from .loader import get_num_cols, load_records

TOTAL_LABEL = "TOTAL"


class Summary:
    """Running totals for one group of records."""

    def __init__(self, group, count=0, total=0.0, minimum=None, maximum=None):
        self.group = group
        self.count = count
        self.total = total
        self.minimum = minimum
        self.maximum = maximum

    def add(self, value):
        self.count += 1
        self.total += value
        if self.minimum is None or value < self.minimum:
            self.minimum = value
        if self.maximum is None or value > self.maximum:
            self.maximum = value

    def merge(self, other):
        """Fold another summary into this one (used for the grand total)."""
        self.count += other.count
        self.total += other.total
        for value in (other.minimum, other.maximum):
            if value is None:
                continue
            if self.minimum is None or value < self.minimum:
                self.minimum = value
            if self.maximum is None or value > self.maximum:
                self.maximum = value

    @property
    def average(self):
        if not self.count:
            return 0.0
        return self.total / self.count


def group_by(records, field):
    """Split records into a dict of lists keyed by ``field``, in first-seen order.

    Records with a blank or missing key go under "(blank)".
    """
    groups = {}
    for record in records:
        key = record.get(field)
        if key is None or key == "":
            key = "(blank)"
        groups.setdefault(key, []).append(record)
    return groups


def summarize(records, group_field, value_field):
    """One Summary per group, largest total first.

    Records without a value in ``value_field`` are left out of the totals.
    """
    summaries = []
    for key, members in group_by(records, group_field).items():
        summary = Summary(key)
        for record in members:
            value = record.get(value_field)
            if value is None:
                continue
            summary.add(value)
        summaries.append(summary)
    summaries.sort(key=lambda s: s.total, reverse=True)
    return summaries


def grand_total(summaries):
    total = Summary(TOTAL_LABEL)
    for summary in summaries:
        total.merge(summary)
    return total


def count_by(records, field):
    """How many records have each value of ``field``."""
    return {key: len(members) for key, members in group_by(records, field).items()}


def format_number(value, decimals=2):
    if value is None:
        return "-"
    return f"{value:,.{decimals}f}"


def _is_numeric_cell(text):
    stripped = text.replace(",", "").replace(".", "", 1).lstrip("-")
    return stripped.isdigit() or text == "-"


def format_table(headers, rows):
    """Lay out ``rows`` (lists of strings) under ``headers`` as fixed-width text.

    Columns whose cells all look like numbers are right-aligned, the rest
    left-aligned.  A rule of dashes separates the header from the body.
    """
    cells = [[str(cell) for cell in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in cells:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], len(cell))
    numeric = [
        bool(cells) and all(_is_numeric_cell(row[i]) for row in cells)
        for i in range(len(headers))
    ]

    def line(values):
        parts = []
        for i, value in enumerate(values):
            if numeric[i]:
                parts.append(value.rjust(widths[i]))
            else:
                parts.append(value.ljust(widths[i]))
        return "  ".join(parts).rstrip()

    out = [line(headers), "  ".join("-" * w for w in widths)]
    out.extend(line(row) for row in cells)
    return "\n".join(out)


def build_report(records, group_field, value_field=None, title=None, decimals=2):
    """A text report of ``value_field`` totalled per ``group_field``.

    When ``value_field`` is not given the first numeric column is used.
    Raises ValueError when there is nothing numeric to report on.
    """
    if value_field is None:
        numeric = get_num_cols(records)
        if not numeric:
            raise ValueError("no numeric column to report on")
        value_field = numeric[0]

    summaries = summarize(records, group_field, value_field)
    headers = [group_field, "count", "total", "average", "min", "max"]
    rows = []
    for s in summaries + [grand_total(summaries)]:
        rows.append(
            [
                s.group,
                str(s.count),
                format_number(s.total, decimals),
                format_number(s.average, decimals),
                format_number(s.minimum, decimals),
                format_number(s.maximum, decimals),
            ]
        )

    if title is None:
        title = f"{value_field} by {group_field}"
    parts = [title, "=" * len(title), "", format_table(headers, rows)]
    return "\n".join(parts)


def filter_by_date(records, field, start=None, end=None):
    """Keep the records whose date in ``field`` lies within [start, end].

    Records without a date are dropped when either bound is given.
    """
    if start is None and end is None:
        return list(records)
    kept = []
    for record in records:
        when = record.get(field)
        if when is None:
            continue
        if start is not None and when < start:
            continue
        if end is not None and when > end:
            continue
        kept.append(record)
    return kept


def report_from_file(path, group_field, value_field=None, number_fields=(), date_fields=(),
                     title=None):
    """Load ``path`` and build the report in one go."""
    records = load_records(path, number_fields, date_fields)
    return build_report(records, group_field, value_field, title=title)
