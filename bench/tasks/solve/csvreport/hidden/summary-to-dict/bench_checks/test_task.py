from csvreport.report import Summary
from bench_checks.behaviour import check_behaviour


def test_to_dict():
    s = Summary("North")
    s.add(10.0)
    s.add(30.0)
    assert s.to_dict() == {
        "group": "North",
        "count": 2,
        "total": 40.0,
        "average": 20.0,
        "minimum": 10.0,
        "maximum": 30.0,
    }


def test_to_dict_empty():
    d = Summary("empty").to_dict()
    assert d == {"group": "empty", "count": 0, "total": 0.0, "average": 0.0,
                 "minimum": None, "maximum": None}


def test_behaviour_unchanged():
    check_behaviour()
