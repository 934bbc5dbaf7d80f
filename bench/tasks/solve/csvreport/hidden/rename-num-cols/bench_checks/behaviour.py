import contextlib
import io
import os
import tempfile
from datetime import date

from csvreport import cli
from csvreport.loader import load_records, parse_date, parse_number
from csvreport.report import build_report, summarize

SALES = """date,region,product,quantity,amount
2024-01-05,North,Widget,4,"1,200.00"
2024-01-17,South,Widget,1,300.00
05/02/2024,North,Gadget,2,150.50
2024-02-20,East,Gadget,10,752.50
2024-03-02,South,Gizmo,3,$90
2024-03-15,North,Gizmo,1,30.00
"""


def check_behaviour():
    assert parse_number("1,234.50") == 1234.5
    assert parse_number("") is None
    assert parse_date("05/02/2024") == date(2024, 2, 5)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "sales.csv")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(SALES)
        records = load_records(path, ["quantity", "amount"], ["date"])
        assert len(records) == 6 and records[0]["amount"] == 1200.0
        summaries = summarize(records, "region", "amount")
        assert [s.group for s in summaries] == ["North", "East", "South"]
        assert summaries[0].count == 3 and abs(summaries[0].average - 1380.5 / 3) < 1e-9
        lines = build_report(records, "region", "amount").splitlines()
        assert lines[0] == "amount by region"
        assert [line.split()[0] for line in lines[5:]] == ["North", "East", "South", "TOTAL"]
        assert build_report(records, "region").splitlines()[0] == "quantity by region"
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert cli.main([path, "-g", "product", "-v", "amount"]) == 0
        assert out.getvalue().startswith("amount by product")
        assert "Gadget" in out.getvalue() and "TOTAL" in out.getvalue()
