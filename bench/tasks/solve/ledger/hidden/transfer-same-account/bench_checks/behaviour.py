from decimal import Decimal

import ledger
from ledger import accounts


def check_behaviour():
    books = ledger.Ledger()
    checking = books.open_account("Ann", opening_balance=1000, opened="2024-01-01")
    savings = books.open_account("Ann", "savings", opened="2024-01-01", interest_rate="3.65")
    books.deposit(checking.id, "250.50", "2024-01-05", "salary")
    out, into = books.transfer(checking.id, savings.id, 1000, "2024-01-01")
    assert out.transfer_id == into.transfer_id
    assert checking.balance == Decimal("250.50")
    try:
        books.withdraw(checking.id, 5000, "2024-01-06")
    except accounts.InsufficientFunds:
        pass
    else:
        raise AssertionError("overdrawing did not raise InsufficientFunds")
    posted = books.apply_interest("2024-01-01", "2024-01-10")
    assert [t.amount for t in posted] == [Decimal("1.00")]
    assert savings.balance == Decimal("1001.00")
    statement = books.statement(checking.id, "2024-01-02", "2024-01-20")
    assert statement.opening_balance == Decimal("0.00")
    assert statement.closing_balance == Decimal("250.50")
    assert "Closing balance" in ledger.format_statement(statement)
    assert books.validate() == []
    assert ledger.to_money("1,250.505") == Decimal("1250.51")
