import contextlib
import io

from csvreport import cli, loader, report
from csvreport.report import build_report
from bench_checks.behaviour import SALES, check_behaviour


def test_renamed():
    assert hasattr(loader, "numeric_columns")
    assert not hasattr(loader, "get_num_cols")
    records = [{"name": "a", "n": 1.0, "m": None, "k": 2}, {"name": "b", "n": None, "m": None, "k": 3}]
    assert loader.numeric_columns(records) == ["n", "k"]
    assert loader.numeric_columns([]) == []


def test_callers_updated(tmp_path):
    assert not hasattr(report, "get_num_cols")
    assert not hasattr(cli, "get_num_cols")
    records = [{"team": "x", "points": 3.0}, {"team": "y", "points": 5.0}]
    assert build_report(records, "team").splitlines()[0] == "points by team"
    path = tmp_path / "sales.csv"
    path.write_text(SALES, encoding="utf-8")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main([str(path), "--list-columns", "-n", "quantity"]) == 0
    assert out.getvalue().splitlines() == ["date", "region", "product", "quantity (number)", "amount"]


def test_behaviour_unchanged():
    check_behaviour()
