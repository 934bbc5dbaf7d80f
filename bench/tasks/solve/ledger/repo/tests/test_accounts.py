import datetime as dt
from decimal import Decimal

import pytest

from ledger import (
    AccountClosed,
    InsufficientFunds,
    Ledger,
    LedgerError,
    UnknownAccount,
    calculate_interest,
    export_csv,
    format_money,
    format_statement,
    load_ledger,
    monthly_totals,
    read_csv,
    save_ledger,
    to_money,
)


@pytest.fixture
def books():
    ledger = Ledger()
    checking = ledger.open_account("Ann", opening_balance=1000, opened="2024-01-01")
    savings = ledger.open_account("Ann", "savings", opened="2024-01-01", interest_rate="3.65")
    return ledger, checking, savings


def test_to_money():
    assert to_money("1,250.505") == Decimal("1250.51")
    assert to_money(2) == Decimal("2.00")
    assert to_money(0.1) == Decimal("0.10")
    with pytest.raises(ValueError):
        to_money("ten")
    with pytest.raises(ValueError):
        to_money("NaN")


def test_format_money():
    assert format_money(1234.5) == "1,234.50 EUR"
    assert format_money("-3", "USD") == "-3.00 USD"


def test_account_ids(books):
    ledger, checking, savings = books
    assert checking.id == "CHE-0001"
    assert savings.id == "SAV-0001"
    assert ledger.open_account("Bob").id == "CHE-0002"
    with pytest.raises(UnknownAccount):
        ledger.get("CHE-0099")


def test_deposit_and_withdraw(books):
    ledger, checking, _ = books
    ledger.deposit(checking.id, "250.50", "2024-01-05", "salary")
    ledger.withdraw(checking.id, 100, "2024-01-06")
    assert checking.balance == Decimal("1150.50")
    assert checking.balance_on("2024-01-05") == Decimal("1250.50")
    with pytest.raises(InsufficientFunds):
        ledger.withdraw(checking.id, 5000, "2024-01-07")
    with pytest.raises(ValueError):
        ledger.deposit(checking.id, -5, "2024-01-07")


def test_transfer(books):
    ledger, checking, savings = books
    out, into = ledger.transfer(checking.id, savings.id, 400, "2024-01-10")
    assert out.amount == Decimal("-400.00") and into.amount == Decimal("400.00")
    assert out.transfer_id == into.transfer_id
    assert checking.balance == Decimal("600.00")
    assert savings.balance == Decimal("400.00")
    assert ledger.validate() == []


def test_closed_account(books):
    ledger, checking, savings = books
    ledger.close_account(savings.id, on="2024-02-01")
    with pytest.raises(AccountClosed):
        ledger.deposit(savings.id, 10, "2024-02-02")
    with pytest.raises(LedgerError):
        ledger.close_account(checking.id)


def test_calculate_interest():
    assert calculate_interest(Decimal("1000"), 3.65, 10) == Decimal("1.00")
    assert calculate_interest(Decimal("-50"), 5, 30) == Decimal("0.00")


def test_apply_interest(books):
    ledger, checking, savings = books
    ledger.transfer(checking.id, savings.id, 1000, "2024-01-01")
    posted = ledger.apply_interest("2024-01-01", "2024-01-10")
    assert [t.account_id for t in posted] == [savings.id]
    assert savings.balance == Decimal("1001.00")


def test_reverse(books):
    ledger, checking, _ = books
    deposit = ledger.deposit(checking.id, 80, "2024-01-03")
    ledger.reverse(deposit.id, "2024-01-04")
    assert checking.balance == Decimal("1000.00")
    assert ledger.search("reversal")[0].kind == "withdrawal"


def test_statement_within_period(books):
    ledger, checking, _ = books
    ledger.deposit(checking.id, 200, "2024-01-15", "refund")
    ledger.withdraw(checking.id, 50, "2024-02-10", "shop")
    statement = ledger.statement(checking.id, "2024-01-10", "2024-01-31")
    assert statement.opening_balance == Decimal("1000.00")
    assert statement.closing_balance == Decimal("1200.00")
    assert [line.description for line in statement.lines] == ["deposit: refund"]
    text = format_statement(statement)
    assert "Closing balance" in text and "1,200.00 EUR" in text


def test_monthly_totals(books):
    ledger, checking, _ = books
    ledger.withdraw(checking.id, 30, "2024-02-03")
    totals = monthly_totals(ledger.transactions())
    assert totals == {
        "2024-01": (Decimal("1000.00"), Decimal("0.00")),
        "2024-02": (Decimal("0.00"), Decimal("30.00")),
    }


def test_csv_round_trip(books, tmp_path):
    ledger, checking, savings = books
    ledger.transfer(checking.id, savings.id, 10, "2024-01-02", "pocket money")
    written = export_csv(ledger.transactions(), str(tmp_path / "january"))
    assert written.endswith("january.csv")
    rows = read_csv(written)
    assert [(t.account_id, t.amount) for t in rows] == [
        (checking.id, Decimal("1000.00")),
        (checking.id, Decimal("-10.00")),
        (savings.id, Decimal("10.00")),
    ]
    assert rows[1].transfer_id == rows[2].transfer_id == 1


def test_save_and_load(books, tmp_path):
    ledger, checking, savings = books
    ledger.transfer(checking.id, savings.id, 10, dt.date(2024, 1, 2))
    save_ledger(ledger, tmp_path / "books.json")
    loaded = load_ledger(tmp_path / "books.json")
    assert loaded.get(checking.id).balance == Decimal("990.00")
    assert loaded.open_account("Cy").id == "CHE-0002"
    assert loaded.deposit(savings.id, 1, "2024-01-03").id == 4
