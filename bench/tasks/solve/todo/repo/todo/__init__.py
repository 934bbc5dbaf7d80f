"""A small personal task list kept in SQLite."""

from .models import HIGH, LOW, NORMAL, Task, parse_due, parse_priority
from .storage import TaskNotFound, TaskStore

__version__ = "0.3.1"

__all__ = [
    "HIGH",
    "LOW",
    "NORMAL",
    "Task",
    "TaskNotFound",
    "TaskStore",
    "parse_due",
    "parse_priority",
]
