import datetime as dt

import pytest

from todo.models import HIGH, NORMAL
from todo.storage import TaskNotFound, TaskStore


def test_add_and_get(store):
    task_id = store.add("  Buy milk ", priority="high", due="2024-03-20", tags="Home")
    task = store.get(task_id)
    assert task.id == task_id
    assert task.title == "Buy milk"
    assert task.priority == HIGH
    assert task.due == dt.date(2024, 3, 20)
    assert task.tags == ["home"]
    assert not task.done


def test_add_needs_title(store):
    with pytest.raises(ValueError):
        store.add("   ")


def test_update(store):
    task_id = store.add("Draft", tags="work")
    task = store.update(task_id, title="Final draft", priority=3, tags="work, urgent")
    assert task.title == "Final draft"
    assert task.priority == HIGH
    assert task.tags == ["urgent", "work"]
    with pytest.raises(TypeError):
        store.update(task_id, colour="red")


def test_complete_and_reopen(store):
    task_id = store.add("Water plants")
    when = dt.datetime(2024, 3, 15, 9, 30)
    task = store.complete(task_id, when=when)
    assert task.done and task.completed_at == when
    again = store.complete(task_id, when=dt.datetime(2024, 3, 16))
    assert again.completed_at == when
    assert not store.reopen(task_id).done


def test_delete(store):
    task_id = store.add("Temp")
    store.delete(task_id)
    with pytest.raises(TaskNotFound):
        store.get(task_id)
    with pytest.raises(TaskNotFound):
        store.delete(task_id)


def test_list_filters(filled):
    assert [t.title for t in filled.list_tasks(tag="work")] == ["Write report", "Plan sprint"]
    assert [t.title for t in filled.list_tasks(priority="high")] == ["Pay rent", "Plan sprint"]
    due = filled.list_tasks(due_before=dt.date(2024, 3, 15))
    assert [t.title for t in due] == ["Pay rent", "Write report"]
    filled.complete(2)
    assert [t.id for t in filled.list_tasks(done=True)] == [2]
    assert len(filled.list_tasks(done=False)) == 4


def test_list_order(filled):
    assert [t.id for t in filled.list_tasks()] == [1, 2, 4, 5, 3]
    assert [t.id for t in filled.list_tasks(order="priority")][:2] == [1, 4]
    with pytest.raises(ValueError):
        filled.list_tasks(order="colour")


def test_tags_and_counts(filled):
    assert filled.all_tags() == ["health", "home", "money", "planning", "work"]
    assert filled.count() == 5
    filled.complete(1)
    assert filled.count(done=True) == 1
    assert filled.clear_done() == 1
    assert filled.count() == 4
    assert "money" not in filled.all_tags()


def test_file_database(tmp_path):
    path = tmp_path / "tasks.db"
    with TaskStore(str(path)) as store:
        task_id = store.add("Persist me", tags="x")
    with TaskStore(str(path)) as store:
        task = store.get(task_id)
    assert task.title == "Persist me"
    assert task.priority == NORMAL
    assert task.tags == ["x"]
