"""SQLite storage for tasks.

A TaskStore wraps one database file (or ":memory:" for a throwaway list). Tags live in
their own table so that filtering by tag matches whole tags only.
"""

import datetime as dt
import sqlite3

from .models import NORMAL, Task, format_date, normalize_tags, parse_due, parse_priority

SCHEMA = """
CREATE TABLE IF NOT EXISTS tasks (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    title TEXT NOT NULL,
    priority INTEGER NOT NULL DEFAULT 2,
    due TEXT,
    done INTEGER NOT NULL DEFAULT 0,
    created TEXT NOT NULL,
    completed_at TEXT
);
CREATE TABLE IF NOT EXISTS task_tags (
    task_id INTEGER NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    tag TEXT NOT NULL,
    PRIMARY KEY (task_id, tag)
);
CREATE INDEX IF NOT EXISTS task_tags_by_tag ON task_tags(tag);
"""

# Columns that update() may change, besides tags.
UPDATABLE = ("title", "priority", "due")

ORDERINGS = {
    "due": "t.due IS NULL, t.due, t.priority DESC, t.id",
    "priority": "t.priority DESC, t.due IS NULL, t.due, t.id",
    "created": "t.created, t.id",
    "id": "t.id",
}


class TaskNotFound(KeyError):
    """No task with the given id."""


def _parse_timestamp(text):
    if text is None:
        return None
    return dt.datetime.fromisoformat(text)


class TaskStore:
    def __init__(self, path=":memory:"):
        self.path = path
        self.conn = sqlite3.connect(path)
        self.conn.row_factory = sqlite3.Row
        self.conn.execute("PRAGMA foreign_keys = ON")
        self.conn.executescript(SCHEMA)

    def close(self):
        self.conn.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    # --- writing -------------------------------------------------------------------------

    def add(self, title, priority=NORMAL, due=None, tags=None):
        """Store a new open task and return its id."""
        title = (title or "").strip()
        if not title:
            raise ValueError("a task needs a title")
        task = Task(title, priority=parse_priority(priority), due=parse_due(due),
                    tags=normalize_tags(tags))
        with self.conn:
            cur = self.conn.execute(
                "INSERT INTO tasks (title, priority, due, done, created) VALUES (?, ?, ?, 0, ?)",
                (task.title, task.priority, format_date(task.due), task.created.isoformat()),
            )
            task.id = cur.lastrowid
            self._set_tags(task.id, task.tags)
        print(f"Added task {task.id}: {task.title}")
        return task.id

    def update(self, task_id, **changes):
        """Change the title, priority, due date or tags of a task; returns the updated task."""
        unknown = set(changes) - set(UPDATABLE) - {"tags"}
        if unknown:
            raise TypeError(f"cannot update {', '.join(sorted(unknown))}")
        self.get(task_id)
        columns = {}
        for name in UPDATABLE:
            if name not in changes:
                continue
            value = changes[name]
            if name == "priority":
                value = parse_priority(value)
            elif name == "due":
                value = format_date(parse_due(value))
            elif name == "title":
                value = value.strip()
                if not value:
                    raise ValueError("a task needs a title")
            columns[name] = value
        with self.conn:
            if columns:
                assignments = ", ".join(f"{name} = ?" for name in columns)
                self.conn.execute(
                    f"UPDATE tasks SET {assignments} WHERE id = ?",
                    (*columns.values(), task_id),
                )
            if "tags" in changes:
                self._set_tags(task_id, normalize_tags(changes["tags"]))
        return self.get(task_id)

    def complete(self, task_id, when=None):
        """Mark a task done. Completing a done task again keeps its first completion time."""
        task = self.get(task_id)
        if task.done:
            return task
        when = when or dt.datetime.now().replace(microsecond=0)
        with self.conn:
            self.conn.execute(
                "UPDATE tasks SET done = 1, completed_at = ? WHERE id = ?",
                (when.isoformat(), task_id),
            )
        print(f"Completed task {task_id}")
        return self.get(task_id)

    def reopen(self, task_id):
        self.get(task_id)
        with self.conn:
            self.conn.execute(
                "UPDATE tasks SET done = 0, completed_at = NULL WHERE id = ?", (task_id,)
            )
        return self.get(task_id)

    def delete(self, task_id):
        with self.conn:
            cur = self.conn.execute("DELETE FROM tasks WHERE id = ?", (task_id,))
        if cur.rowcount == 0:
            raise TaskNotFound(task_id)
        print(f"Deleted task {task_id}")

    def clear_done(self):
        """Delete every completed task; returns how many went."""
        with self.conn:
            cur = self.conn.execute("DELETE FROM tasks WHERE done = 1")
        return cur.rowcount

    # --- reading -------------------------------------------------------------------------

    def get(self, task_id):
        row = self.conn.execute("SELECT * FROM tasks WHERE id = ?", (task_id,)).fetchone()
        if row is None:
            raise TaskNotFound(task_id)
        return self._row_to_task(row)

    def list_tasks(self, done=None, tag=None, priority=None, due_before=None, order="due"):
        """Tasks matching every filter given.

        done: True or False to keep only done or open tasks.
        tag: keep tasks carrying this tag.
        priority: keep tasks of at least this priority.
        due_before: keep tasks due on or before this date.
        """
        if order not in ORDERINGS:
            raise ValueError(f"unknown order {order!r}")
        sql = "SELECT t.* FROM tasks t"
        where = []
        params = []
        if tag:
            tags = normalize_tags(tag)
            sql += " JOIN task_tags g ON g.task_id = t.id AND g.tag = ?"
            params.append(tags[0] if tags else "")
        if done is not None:
            where.append("t.done = ?")
            params.append(1 if done else 0)
        if priority is not None:
            where.append("t.priority >= ?")
            params.append(parse_priority(priority))
        if due_before is not None:
            where.append("t.due IS NOT NULL AND t.due <= ?")
            params.append(format_date(parse_due(due_before)))
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY " + ORDERINGS[order]
        rows = self.conn.execute(sql, params).fetchall()
        return [self._row_to_task(row) for row in rows]

    def count(self, done=None):
        if done is None:
            return self.conn.execute("SELECT COUNT(*) FROM tasks").fetchone()[0]
        row = self.conn.execute("SELECT COUNT(*) FROM tasks WHERE done = ?", (1 if done else 0,))
        return row.fetchone()[0]

    def all_tags(self):
        rows = self.conn.execute("SELECT DISTINCT tag FROM task_tags ORDER BY tag").fetchall()
        return [row["tag"] for row in rows]

    # --- helpers -------------------------------------------------------------------------

    def _set_tags(self, task_id, tags):
        self.conn.execute("DELETE FROM task_tags WHERE task_id = ?", (task_id,))
        self.conn.executemany(
            "INSERT INTO task_tags (task_id, tag) VALUES (?, ?)",
            [(task_id, tag) for tag in tags],
        )

    def _tags_for(self, task_id):
        rows = self.conn.execute(
            "SELECT tag FROM task_tags WHERE task_id = ? ORDER BY tag", (task_id,)
        ).fetchall()
        return [row["tag"] for row in rows]

    def _row_to_task(self, row):
        return Task(
            title=row["title"],
            priority=row["priority"],
            due=parse_due(row["due"]),
            tags=self._tags_for(row["id"]),
            done=bool(row["done"]),
            id=row["id"],
            created=_parse_timestamp(row["created"]),
            completed_at=_parse_timestamp(row["completed_at"]),
        )
