import logging

from todo.storage import TaskStore
from bench_checks.behaviour import check_behaviour


def _info_records(caplog):
    return [r for r in caplog.records if r.name == "todo.storage" and r.levelno == logging.INFO]


def test_logs_instead_of_printing(caplog, capsys):
    caplog.set_level(logging.DEBUG)
    store = TaskStore(":memory:")
    task_id = store.add("Shop")
    assert len(_info_records(caplog)) >= 1, "add() logged nothing at info level"
    caplog.clear()
    store.complete(task_id)
    assert len(_info_records(caplog)) >= 1, "complete() logged nothing at info level"
    caplog.clear()
    store.delete(task_id)
    assert len(_info_records(caplog)) >= 1, "delete() logged nothing at info level"
    store.close()
    assert capsys.readouterr().out == ""


def test_behaviour_unchanged():
    check_behaviour()
