import todo.models
import todo.queries
import todo.storage
from bench_checks.behaviour import check_behaviour


def test_renamed():
    assert hasattr(todo.models, "clean_tags")
    assert not hasattr(todo.models, "normalize_tags")
    assert todo.models.clean_tags("Work, #home, work") == ["home", "work"]
    assert todo.models.clean_tags(None) == []


def test_no_module_uses_old_name():
    for module in (todo.models, todo.storage, todo.queries):
        assert not hasattr(module, "normalize_tags"), module.__name__


def test_behaviour_unchanged():
    check_behaviour()
