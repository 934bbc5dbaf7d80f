from decimal import Decimal

import pytest

import ledger
from bench_checks.behaviour import check_behaviour


def test_same_account_transfer_rejected():
    books = ledger.Ledger()
    account = books.open_account("Ann", opening_balance=300, opened="2024-01-01")
    other = books.open_account("Bob", opened="2024-01-01")
    with pytest.raises(ValueError):
        books.transfer(account.id, account.id, 50, "2024-01-05")
    assert account.balance == Decimal("300.00")
    assert len(books.transactions()) == 1
    out, into = books.transfer(account.id, other.id, 50, "2024-01-05")
    assert other.balance == Decimal("50.00")
    assert books.validate() == []


def test_behaviour_unchanged():
    check_behaviour()
