from csvreport import cli


def test_report(sales_csv, capsys):
    assert cli.main([sales_csv, "--group-by", "region", "--value", "amount"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("amount by region")
    assert "TOTAL" in out


def test_date_filter(sales_csv, capsys):
    args = [sales_csv, "-g", "product", "-v", "amount", "--from", "2024-02-01"]
    assert cli.main(args) == 0
    out = capsys.readouterr().out
    assert "Widget" not in out
    assert "Gadget" in out and "Gizmo" in out


def test_list_columns(sales_csv, capsys):
    assert cli.main([sales_csv, "--list-columns", "--numbers", "amount"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == ["date", "region", "product", "quantity", "amount (number)"]


def test_unknown_group_column(sales_csv, capsys):
    assert cli.main([sales_csv, "-g", "colour", "-v", "amount"]) == 2
    assert "colour" in capsys.readouterr().err
