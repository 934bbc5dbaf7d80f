import pytest

SALES = """date,region,product,quantity,amount
2024-01-05,North,Widget,4,"1,200.00"
2024-01-17,South,Widget,1,300.00
05/02/2024,North,Gadget,2,150.50
2024-02-20,East,Gadget,10,752.50
2024-03-02,South,Gizmo,3,$90
2024-03-15,North,Gizmo,1,30.00
"""


@pytest.fixture
def sales_csv(tmp_path):
    path = tmp_path / "sales.csv"
    path.write_text(SALES, encoding="utf-8")
    return str(path)
