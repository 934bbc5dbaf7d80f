import invoice
from bench_checks.behaviour import check_behaviour


def test_renamed():
    assert hasattr(invoice, "discounted_amount")
    assert not hasattr(invoice, "apply_discount")
    assert invoice.discounted_amount(200, 10) == 180


def test_behaviour_unchanged():
    check_behaviour()
