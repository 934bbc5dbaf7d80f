import pytest

from csvreport import cli
from csvreport.loader import load_records
from csvreport.report import build_report
from bench_checks.behaviour import SALES, check_behaviour


def body(text):
    return [line.split()[0] for line in text.splitlines()[5:]]


def write_sales(tmp_path):
    path = tmp_path / "sales.csv"
    path.write_text(SALES, encoding="utf-8")
    return str(path)


def test_build_report_sort_by(tmp_path):
    records = load_records(write_sales(tmp_path), ["amount"], ["date"])
    assert body(build_report(records, "region", "amount", sort_by="name")) == [
        "East", "North", "South", "TOTAL"]
    assert body(build_report(records, "region", "amount", sort_by="total")) == [
        "North", "East", "South", "TOTAL"]
    assert body(build_report(records, "region", "amount")) == ["North", "East", "South", "TOTAL"]


def test_cli_sort_option(tmp_path, capsys):
    path = write_sales(tmp_path)
    assert cli.main([path, "-g", "region", "-v", "amount", "--sort", "name"]) == 0
    assert body(capsys.readouterr().out) == ["East", "North", "South", "TOTAL"]
    assert cli.main([path, "-g", "region", "-v", "amount", "--sort", "total"]) == 0
    assert body(capsys.readouterr().out) == ["North", "East", "South", "TOTAL"]
    assert cli.main([path, "-g", "region", "-v", "amount"]) == 0
    assert body(capsys.readouterr().out) == ["North", "East", "South", "TOTAL"]


def test_cli_rejects_other_choices(tmp_path):
    with pytest.raises(SystemExit):
        cli.main([write_sales(tmp_path), "-g", "region", "--sort", "size"])


def test_behaviour_unchanged():
    check_behaviour()
