"""Invoices for a small shop: lines, discounts and totals."""

from dataclasses import dataclass, field

VAT_RATE = 0.2


@dataclass
class Line:
    description: str
    unit_price: float
    quantity: int = 1

    def amount(self):
        return self.unit_price * self.quantity


@dataclass
class Invoice:
    customer: str
    lines: list = field(default_factory=list)
    discount: float = 0.0

    def add_line(self, description, unit_price, quantity=1):
        line = Line(description, unit_price, quantity)
        self.lines.append(line)
        return line

    def subtotal(self):
        return sum(line.amount() for line in self.lines)

    def total(self):
        net = apply_discount(self.subtotal(), self.discount)
        return round(net * (1 + VAT_RATE), 2)


def apply_discount(amount, percent):
    return amount * (1 - percent / 100)


def parse_quantity(text):
    return int(text.strip())


def summarize(invoice):
    rows = [f"Invoice for {invoice.customer}"]
    for line in invoice.lines:
        rows.append(f"  {line.description}: {line.quantity} x {line.unit_price:.2f}")
    rows.append(f"Subtotal: {invoice.subtotal():.2f}")
    rows.append(f"Total (VAT incl.): {invoice.total():.2f}")
    return "\n".join(rows)


def invoice_from_rows(customer, rows):
    invoice = Invoice(customer)
    for description, price, quantity in rows:
        invoice.add_line(description, float(price), parse_quantity(quantity))
    return invoice


if __name__ == "__main__":
    demo = invoice_from_rows("ACME", [("Widget", "2.50", "4"), ("Gadget", "10", " 1 ")])
    print(summarize(demo))
