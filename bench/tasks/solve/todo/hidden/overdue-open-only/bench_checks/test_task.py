import datetime as dt

from todo import queries
from todo.storage import TaskStore
from bench_checks.behaviour import check_behaviour

TODAY = dt.date(2024, 3, 15)


def test_overdue_skips_done_tasks():
    with TaskStore(":memory:") as store:
        store.add("Old and done", due=dt.date(2024, 3, 1))
        store.add("Old and open", due=dt.date(2024, 3, 5))
        store.add("Future", due=dt.date(2024, 3, 20))
        store.add("Also late", due=dt.date(2024, 3, 14))
        store.complete(1)
        assert [t.title for t in queries.overdue(store, TODAY)] == ["Old and open", "Also late"]
        store.complete(2)
        store.complete(4)
        assert queries.overdue(store, TODAY) == []


def test_behaviour_unchanged():
    check_behaviour()
