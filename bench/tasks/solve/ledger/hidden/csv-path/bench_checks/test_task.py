from pathlib import Path

import ledger
from bench_checks.behaviour import check_behaviour


def make_transactions():
    books = ledger.Ledger()
    account = books.open_account("Ann", opening_balance=40, opened="2024-01-01")
    books.withdraw(account.id, 15, "2024-01-02", "lunch")
    return books.transactions()


def test_path_without_extension(tmp_path):
    written = ledger.export_csv(make_transactions(), tmp_path / "january")
    assert isinstance(written, str)
    assert Path(written) == tmp_path / "january.csv"
    rows = ledger.read_csv(written)
    assert [str(t.amount) for t in rows] == ["40.00", "-15.00"]


def test_path_with_extension(tmp_path):
    written = ledger.export_csv(make_transactions(), tmp_path / "out.txt")
    assert isinstance(written, str)
    assert Path(written) == tmp_path / "out.txt"
    assert (tmp_path / "out.txt").read_text(encoding="utf-8").startswith("id,account,date")


def test_str_still_works(tmp_path):
    written = ledger.export_csv(make_transactions(), str(tmp_path / "feb"))
    assert written == str(tmp_path / "feb.csv")
    assert len(ledger.read_csv(written)) == 2


def test_behaviour_unchanged():
    check_behaviour()
