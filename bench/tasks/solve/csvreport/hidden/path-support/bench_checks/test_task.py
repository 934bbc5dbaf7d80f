from pathlib import Path

from csvreport.loader import load_records
from bench_checks.behaviour import SALES, check_behaviour


def test_path_csv(tmp_path):
    path = tmp_path / "sales.csv"
    path.write_text(SALES, encoding="utf-8")
    records = load_records(path, ["amount"], ["date"])
    assert len(records) == 6 and records[0]["amount"] == 1200.0
    assert load_records(str(path), ["amount"], ["date"]) == records


def test_path_tsv(tmp_path):
    path = tmp_path / "DATA.TSV"
    path.write_text("name\tscore\nann\t3\nbob\t4\n", encoding="utf-8")
    expected = [{"name": "ann", "score": 3.0}, {"name": "bob", "score": 4.0}]
    assert load_records(Path(path), ["score"]) == expected
    assert load_records(str(path), ["score"]) == expected


def test_behaviour_unchanged():
    check_behaviour()
