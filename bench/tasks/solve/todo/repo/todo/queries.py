"""Reports over a TaskStore: what is late, what is coming up, how much is left."""

import datetime as dt
from collections import Counter

from .models import HIGH, PRIORITY_NAMES, normalize_tags


def overdue(store, today=None):
    """Tasks whose due date is before today, most overdue first."""
    today = today or dt.date.today()
    return [task for task in store.list_tasks() if task.due is not None and task.due < today]


def due_within(store, days, today=None):
    """Open tasks due between today and `days` days from today, both included."""
    today = today or dt.date.today()
    last = today + dt.timedelta(days=days)
    return [task for task in store.list_tasks(done=False, due_before=last) if task.due >= today]


def by_tag(store, tags, match_all=False, include_done=False):
    """Tasks carrying any of the given tags (all of them with match_all=True), by id."""
    wanted = normalize_tags(tags)
    if not wanted:
        return []
    found = {}
    for tag in wanted:
        for task in store.list_tasks(tag=tag, done=None if include_done else False):
            found[task.id] = task
    tasks = sorted(found.values(), key=lambda task: task.id)
    if match_all:
        tasks = [task for task in tasks if all(tag in task.tags for tag in wanted)]
    return tasks


def tag_counts(store, include_done=False):
    """How many tasks carry each tag, most used first."""
    counts = Counter()
    for task in store.list_tasks(done=None if include_done else False):
        counts.update(task.tags)
    return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def priority_counts(store):
    counts = {name: 0 for name in PRIORITY_NAMES.values()}
    for task in store.list_tasks(done=False):
        counts[task.priority_name] = counts.get(task.priority_name, 0) + 1
    return counts


def summary(store, today=None):
    """Counts for the status line: total, open, done, overdue, due today, high priority."""
    today = today or dt.date.today()
    tasks = store.list_tasks()
    open_tasks = [task for task in tasks if not task.done]
    return {
        "total": len(tasks),
        "open": len(open_tasks),
        "done": len(tasks) - len(open_tasks),
        "overdue": len(overdue(store, today)),
        "due_today": sum(1 for task in open_tasks if task.due == today),
        "high_priority": sum(1 for task in open_tasks if task.priority >= HIGH),
    }


def next_up(store, limit=5, today=None):
    """What to work on next: open tasks, late ones first, then by priority and due date."""
    today = today or dt.date.today()

    def rank(task):
        late = task.due is not None and task.due < today
        due = task.due or dt.date.max
        return (not late, -task.priority, due, task.id)

    return sorted(store.list_tasks(done=False), key=rank)[:limit]


def completion_rate(store):
    total = store.count()
    if total == 0:
        return 0.0
    return store.count(done=True) / total


def format_summary(counts):
    parts = [f"{counts['open']} open", f"{counts['done']} done"]
    if counts["overdue"]:
        parts.append(f"{counts['overdue']} overdue")
    if counts["due_today"]:
        parts.append(f"{counts['due_today']} due today")
    if counts["high_priority"]:
        parts.append(f"{counts['high_priority']} high priority")
    return ", ".join(parts)


def print_report(store, today=None):
    today = today or dt.date.today()
    counts = summary(store, today)
    print(format_summary(counts))
    late = overdue(store, today)
    if late:
        print("Overdue:")
        for task in late:
            print("  " + task.short())
    soon = due_within(store, 7, today)
    if soon:
        print("This week:")
        for task in soon:
            print("  " + task.short())
