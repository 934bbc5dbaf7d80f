"""``git gpte bench``: improve (and heal) measured on task files the user has.

Public API::

    from git_gpte.taskbench import load_tasks, BenchConfig, run_task, summarize, render_table

    tasks = load_tasks(path, fmt="auto")          # gpte JSONL, or APPS / MBPP in their own shape
    result = run_task(task, config)               # one temporary repository per task
    summary = summarize(results, model=...)       # solved %, tokens, cost, time

Sharding (``--shard I/N``, one runner of a CI matrix each) is in :mod:`.shard`; joining and
comparing reports (``git gpte bench merge``) in :mod:`.merge`.
"""

from __future__ import annotations

from .loading import FORMATS, load_tasks
from .report import render_table, summarize
from .runner import BenchConfig, TaskResult, run_task
from .tasks import Task

__all__ = [
    "FORMATS",
    "BenchConfig",
    "Task",
    "TaskResult",
    "load_tasks",
    "render_table",
    "run_task",
    "summarize",
]
