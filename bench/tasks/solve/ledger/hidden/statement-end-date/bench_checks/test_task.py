from decimal import Decimal

import ledger
from bench_checks.behaviour import check_behaviour


def make_books():
    books = ledger.Ledger()
    account = books.open_account("Ann", opening_balance=500, opened="2023-12-01")
    books.deposit(account.id, 100, "2024-01-01", "first day")
    books.deposit(account.id, 20, "2024-01-15", "middle")
    books.withdraw(account.id, 70, "2024-01-31", "last day")
    books.withdraw(account.id, 5, "2024-02-01", "next month")
    return books, account


def test_end_date_is_included():
    books, account = make_books()
    statement = books.statement(account.id, "2024-01-01", "2024-01-31")
    memos = [line.description for line in statement.lines]
    assert memos == ["deposit: first day", "deposit: middle", "withdrawal: last day"]
    assert statement.opening_balance == Decimal("500.00")
    assert statement.closing_balance == Decimal("550.00")
    assert statement.closing_balance == account.balance_on("2024-01-31")
    assert statement.lines[-1].balance == Decimal("550.00")


def test_single_day_statement():
    books, account = make_books()
    statement = books.statement(account.id, "2024-01-15", "2024-01-15")
    assert [line.amount for line in statement.lines] == [Decimal("20.00")]
    assert statement.closing_balance == Decimal("620.00")


def test_behaviour_unchanged():
    check_behaviour()
