from datetime import date

import pytest

from csvreport.loader import load_records, parse_date, parse_number


def test_parse_number():
    assert parse_number("1,234.50") == 1234.5
    assert parse_number(" -3 ") == -3.0
    assert parse_number("$12") == 12.0
    assert parse_number("(40)") == -40.0
    assert parse_number("") is None
    assert parse_number(None) is None


def test_parse_date():
    assert parse_date("2024-03-01") == date(2024, 3, 1)
    assert parse_date("01/03/2024") == date(2024, 3, 1)
    assert parse_date("1 Mar 2024") == date(2024, 3, 1)
    assert parse_date("  ") is None
    with pytest.raises(ValueError):
        parse_date("March the first")


def test_load_records(sales_csv):
    records = load_records(sales_csv, number_fields=["amount"], date_fields=["date"])
    assert len(records) == 6
    assert records[0] == {
        "date": date(2024, 1, 5),
        "region": "North",
        "product": "Widget",
        "quantity": "4",
        "amount": 1200.0,
    }
    assert records[2]["date"] == date(2024, 2, 5)


def test_load_records_skips_bad_dates(tmp_path, capsys):
    path = tmp_path / "bad.csv"
    path.write_text("date,amount\n2024-01-01,5\nsoon,6\n\n2024-01-03,7\n", encoding="utf-8")
    records = load_records(str(path), number_fields=["amount"], date_fields=["date"])
    assert [r["amount"] for r in records] == [5.0, 7.0]
    assert "line 3" in capsys.readouterr().out


def test_tab_separated(tmp_path):
    path = tmp_path / "data.tsv"
    path.write_text("name\tscore\nann\t3\nbob\t4\n", encoding="utf-8")
    records = load_records(str(path), number_fields=["score"])
    assert records == [{"name": "ann", "score": 3.0}, {"name": "bob", "score": 4.0}]
