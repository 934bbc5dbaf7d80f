import datetime as dt

import pytest

from todo.storage import TaskStore


@pytest.fixture
def store():
    with TaskStore(":memory:") as s:
        yield s


@pytest.fixture
def filled(store):
    store.add("Pay rent", priority="high", due=dt.date(2024, 3, 10), tags="home, money")
    store.add("Write report", priority=2, due=dt.date(2024, 3, 15), tags=["work"])
    store.add("Call dentist", priority="low", tags="health")
    store.add("Plan sprint", priority="high", due=dt.date(2024, 3, 18), tags="work,planning")
    store.add("Fix bike", due=dt.date(2024, 3, 30), tags="home")
    return store
