import todo.models
from todo.storage import TaskStore
from bench_checks.behaviour import check_behaviour


def test_task_has_notes():
    assert todo.models.Task("Shop").notes == ""
    assert todo.models.Task("Shop", notes="milk, eggs").notes == "milk, eggs"


def test_notes_are_stored():
    with TaskStore(":memory:") as store:
        with_notes = store.add("Shop", tags="home", notes="milk, eggs")
        without = store.add("Read")
        assert store.get(with_notes).notes == "milk, eggs"
        assert store.get(without).notes == ""
        listed = {task.id: task.notes for task in store.list_tasks()}
        assert listed == {with_notes: "milk, eggs", without: ""}


def test_notes_survive_reopening(tmp_path):
    path = str(tmp_path / "tasks.db")
    with TaskStore(path) as store:
        task_id = store.add("Shop", notes="bring bags")
    with TaskStore(path) as store:
        assert store.get(task_id).notes == "bring bags"


def test_behaviour_unchanged():
    check_behaviour()
