import datetime as dt

from todo import queries
from todo.models import HIGH, LOW, NORMAL, Task, parse_due, parse_priority
from todo.storage import TaskNotFound, TaskStore

TODAY = dt.date(2024, 3, 15)


def make_store():
    store = TaskStore(":memory:")
    store.add("Pay rent", priority="high", due=dt.date(2024, 3, 10), tags="home, Money")
    store.add("Write report", priority=2, due="2024-03-15", tags=["work"])
    store.add("Call dentist", priority="low", tags="health")
    store.add("Plan sprint", priority="high", due=dt.date(2024, 3, 18), tags="work,planning")
    return store


def check_behaviour():
    assert parse_priority("High") == HIGH
    assert parse_priority("1") == LOW
    assert parse_due("tomorrow", today=TODAY) == dt.date(2024, 3, 16)
    task = Task("Shop", tags="Home, #errands")
    assert task.tags == ["errands", "home"] and task.priority == NORMAL

    store = make_store()
    first = store.get(1)
    assert first.title == "Pay rent" and first.tags == ["home", "money"]
    assert first.due == dt.date(2024, 3, 10) and first.priority == HIGH
    assert [t.id for t in store.list_tasks()] == [1, 2, 4, 3]
    assert [t.title for t in store.list_tasks(tag="work")] == ["Write report", "Plan sprint"]
    assert [t.id for t in store.list_tasks(priority="high")] == [1, 4]

    updated = store.update(3, title="Call the dentist", tags="health, phone")
    assert updated.title == "Call the dentist" and updated.tags == ["health", "phone"]

    done = store.complete(2, when=dt.datetime(2024, 3, 15, 10, 0))
    assert done.done and done.completed_at == dt.datetime(2024, 3, 15, 10, 0)
    assert [t.id for t in store.list_tasks(done=False)] == [1, 4, 3]

    assert [t.id for t in queries.by_tag(store, "work, home")] == [1, 4]
    counts = queries.summary(store, TODAY)
    assert counts["total"] == 4 and counts["open"] == 3 and counts["done"] == 1
    assert counts["high_priority"] == 2
    assert [t.title for t in queries.overdue(store, TODAY)] == ["Pay rent"]

    store.delete(4)
    try:
        store.get(4)
    except TaskNotFound:
        pass
    else:
        raise AssertionError("deleted task still there")
    assert store.count() == 3
    store.close()
