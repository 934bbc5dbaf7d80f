from decimal import Decimal

import ledger
from ledger import accounts
from bench_checks.behaviour import check_behaviour


def test_renamed():
    assert accounts.accrued_interest(Decimal("1000"), 3.65, 10) == Decimal("1.00")
    assert not hasattr(accounts, "calculate_interest")
    assert ledger.accrued_interest is accounts.accrued_interest
    assert not hasattr(ledger, "calculate_interest")
    assert "accrued_interest" in ledger.__all__
    assert "calculate_interest" not in ledger.__all__


def test_behaviour_unchanged():
    check_behaviour()
