"""A Python project larger than a small context budget, for the context-selection tests.

Twenty modules of about the same size on unrelated subjects, and one (``shop/billing.py``) whose
``compute_invoice_total`` the requests name, deep enough in a long file that a small budget sends
it as an excerpt, not whole.
"""

from __future__ import annotations

SUBJECTS = [
    "weather",
    "garden",
    "music",
    "orbit",
    "recipe",
    "chess",
    "poetry",
    "traffic",
    "library",
    "fossil",
    "volcano",
    "harbor",
    "glacier",
    "canyon",
    "meadow",
    "lantern",
    "compass",
    "quarry",
    "violin",
    "falcon",
]


def _module(subject: str, functions: int = 24) -> str:
    lines = [f'"""Helpers about {subject}s."""', "", "import math", ""]
    for k in range(functions):
        lines += [
            "",
            f"def {subject}_step_{k}(value, factor={k + 2}):",
            f'    """Scale a {subject} value by the {subject} factor number {k}."""',
            f"    {subject}_total = value * factor + {k}",
            f"    if {subject}_total > {100 + k}:",
            f"        {subject}_total = math.sqrt({subject}_total)",
            f"    return round({subject}_total, {k % 4})",
            "",
        ]
    return "\n".join(lines) + "\n"


def billing_module() -> str:
    """A long module; ``compute_invoice_total`` starts past line 200."""
    lines = ['"""Invoices and their totals."""', "", "from decimal import Decimal", ""]
    for k in range(30):
        lines += [
            "",
            f"def ledger_entry_{k}(amount):",
            f'    """Ledger entry number {k}."""',
            f"    return Decimal(amount) * {k + 1}",
            "",
        ]
    lines += [
        "",
        "def compute_invoice_total(items, tax_rate):",
        '    """The invoice total: the sum of the item prices plus tax."""',
        "    subtotal = sum(price for _, price in items)",
        "    total = subtotal + subtotal * tax_rate",
        "    return total",
        "",
    ]
    for k in range(30):
        lines += [
            "",
            f"def archive_record_{k}(record):",
            f'    """Archive record number {k}."""',
            f"    return dict(record, archived={k})",
            "",
        ]
    return "\n".join(lines) + "\n"


def big_project() -> dict[str, str | bytes]:
    files: dict[str, str | bytes] = {f"shop/{subject}.py": _module(subject) for subject in SUBJECTS}
    files["shop/__init__.py"] = ""
    files["shop/billing.py"] = billing_module()
    files["README.md"] = "# shop\n\nA demo shop.\n"
    return files


def line_of(text: str, needle: str) -> int:
    """The 1-based number of the first line of ``text`` containing ``needle``."""
    for number, line in enumerate(text.splitlines(), 1):
        if needle in line:
            return number
    raise AssertionError(f"{needle!r} not found")
