import datetime as dt

from todo import queries

TODAY = dt.date(2024, 3, 15)


def test_overdue(filled):
    assert [t.title for t in queries.overdue(filled, TODAY)] == ["Pay rent"]


def test_due_within(filled):
    assert [t.title for t in queries.due_within(filled, 3, TODAY)] == ["Write report", "Plan sprint"]


def test_by_tag(filled):
    assert [t.id for t in queries.by_tag(filled, "home")] == [1, 5]
    assert [t.id for t in queries.by_tag(filled, "home, work")] == [1, 2, 4, 5]
    assert [t.id for t in queries.by_tag(filled, ["work", "planning"], match_all=True)] == [4]
    assert queries.by_tag(filled, "") == []


def test_tag_counts(filled):
    counts = queries.tag_counts(filled)
    assert list(counts.items())[:2] == [("home", 2), ("work", 2)]
    assert counts["health"] == 1


def test_summary(filled):
    filled.complete(2)
    counts = queries.summary(filled, TODAY)
    assert counts == {
        "total": 5,
        "open": 4,
        "done": 1,
        "overdue": 1,
        "due_today": 0,
        "high_priority": 2,
    }
    assert queries.format_summary(counts) == "4 open, 1 done, 1 overdue, 2 high priority"


def test_next_up(filled):
    assert [t.id for t in queries.next_up(filled, limit=3, today=TODAY)] == [1, 4, 2]


def test_completion_rate(filled):
    assert queries.completion_rate(filled) == 0.0
    filled.complete(3)
    assert queries.completion_rate(filled) == 0.2


def test_print_report(filled, capsys):
    queries.print_report(filled, TODAY)
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "5 open, 0 done, 1 overdue, 1 due today, 2 high priority"
    assert "[ ] #1 Pay rent (high, due 2024-03-10) +home +money" in out
