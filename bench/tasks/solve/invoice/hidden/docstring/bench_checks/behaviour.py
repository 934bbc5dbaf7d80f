import invoice


def check_behaviour(module=invoice):
    inv = module.invoice_from_rows("ACME", [("Widget", "2.50", "4"), ("Gadget", "10", " 1 ")])
    assert inv.subtotal() == 20.0
    assert inv.total() == 24.0
    inv.discount = 10
    assert inv.total() == 21.6
    text = module.summarize(inv)
    assert text.splitlines()[0] == "Invoice for ACME"
    assert "Widget: 4 x 2.50" in text
