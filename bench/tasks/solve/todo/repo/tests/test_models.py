import datetime as dt

import pytest

from todo.models import HIGH, LOW, NORMAL, Task, parse_due, parse_priority


def test_parse_priority_names_and_numbers():
    assert parse_priority("high") == HIGH
    assert parse_priority(" Low ") == LOW
    assert parse_priority("2") == NORMAL
    assert parse_priority(3) == HIGH


def test_parse_due_formats():
    today = dt.date(2024, 3, 15)
    assert parse_due("2024-04-01") == dt.date(2024, 4, 1)
    assert parse_due("today", today=today) == today
    assert parse_due("tomorrow", today=today) == dt.date(2024, 3, 16)
    assert parse_due("+10", today=today) == dt.date(2024, 3, 25)
    assert parse_due("") is None
    assert parse_due(None) is None


def test_parse_due_rejects_garbage():
    with pytest.raises(ValueError):
        parse_due("next someday")


def test_task_cleans_tags_and_priority():
    task = Task("Shop", priority="high", tags="Home, #errands, home")
    assert task.priority == HIGH
    assert task.tags == ["errands", "home"]
    assert task.has_tag("#Home")
    assert task.priority_name == "high"


def test_overdue_and_days_left():
    today = dt.date(2024, 3, 15)
    late = Task("Late", due=dt.date(2024, 3, 1))
    assert late.is_overdue(today)
    assert late.days_left(today) == -14
    late.done = True
    assert not late.is_overdue(today)
    assert not Task("No date").is_overdue(today)


def test_short():
    task = Task("Shop", priority=LOW, due=dt.date(2024, 3, 20), tags=["home"], id=4)
    assert task.short() == "[ ] #4 Shop (low, due 2024-03-20) +home"
