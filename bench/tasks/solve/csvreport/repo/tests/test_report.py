import pytest

from csvreport.loader import load_records
from csvreport.report import (
    Summary,
    build_report,
    count_by,
    format_table,
    group_by,
    report_from_file,
    summarize,
)


@pytest.fixture
def records(sales_csv):
    return load_records(sales_csv, number_fields=["quantity", "amount"], date_fields=["date"])


def test_group_by_keeps_first_seen_order(records):
    assert list(group_by(records, "region")) == ["North", "South", "East"]
    assert count_by(records, "product") == {"Widget": 2, "Gadget": 2, "Gizmo": 2}


def test_summarize_sorts_by_total(records):
    summaries = summarize(records, "region", "amount")
    assert [s.group for s in summaries] == ["North", "East", "South"]
    north = summaries[0]
    assert north.count == 3
    assert north.total == pytest.approx(1380.5)
    assert north.minimum == 30.0 and north.maximum == 1200.0


def test_summary_average():
    s = Summary("x")
    assert s.average == 0.0
    s.add(2)
    s.add(4)
    assert s.average == 3.0


def test_format_table_alignment():
    text = format_table(["name", "n"], [["a", "1"], ["bbb", "22"]])
    assert text.splitlines() == ["name   n", "----  --", "a      1", "bbb   22"]


def test_build_report(records):
    text = build_report(records, "region", "amount")
    lines = text.splitlines()
    assert lines[0] == "amount by region"
    body = [line.split()[0] for line in lines[5:]]
    assert body == ["North", "East", "South", "TOTAL"]
    assert "2,523.00" in lines[-1]


def test_build_report_uses_first_numeric_column(records):
    assert build_report(records, "region").splitlines()[0] == "quantity by region"


def test_build_report_without_numbers():
    with pytest.raises(ValueError):
        build_report([{"a": "x"}], "a")


def test_report_from_file(sales_csv):
    text = report_from_file(sales_csv, "product", "amount", number_fields=["amount"])
    assert text.splitlines()[0] == "amount by product"
