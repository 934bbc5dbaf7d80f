"""Reading a task file: JSON lines or one JSON array, in git-gpte's own task shape or as
APPS and MBPP publish theirs (``formats``); every error names the file and the line."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import UsageError
from .formats import apps_task, mbpp_task
from .tasks import Task, gpte_task

# Each task format's converter from a row to a Task; "auto" detects it from the first row.
CONVERTERS: dict[str, Callable[[dict[str, Any]], Task]] = {
    "gpte": gpte_task,
    "apps": apps_task,
    "mbpp": mbpp_task,
}
FORMATS = ("auto", *CONVERTERS)


def load_tasks(path: str | Path, fmt: str = "auto") -> list[Task]:
    """Tasks from ``path`` (JSON lines, or one JSON array); clear errors naming the line."""
    if fmt not in FORMATS:
        raise UsageError(f"unknown task format {fmt!r}; expected one of {', '.join(FORMATS)}")
    source = Path(path)
    try:
        text = source.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {path}: {exc}") from None
    rows = _rows(text, str(path))
    if not rows:
        raise UsageError(f"{path}: no tasks in the file")
    if fmt == "auto":
        fmt = _detect(rows[0][1])
    convert = CONVERTERS[fmt]
    tasks = []
    for where, row in rows:
        try:
            tasks.append(convert(row))
        except UsageError as exc:
            raise UsageError(f"{path}:{where}: {exc.message}") from None
        except (KeyError, TypeError, ValueError) as exc:
            problem = f"{type(exc).__name__}: {exc}"
            raise UsageError(f"{path}:{where}: not a {fmt} task ({problem})") from None
    seen: set[str] = set()
    for task in tasks:
        if task.name in seen:
            raise UsageError(f"{path}: two tasks are named {task.name!r}")
        seen.add(task.name)
    return tasks


def _rows(text: str, path: str) -> list[tuple[str, dict[str, Any]]]:
    stripped = text.lstrip()
    if stripped.startswith("["):
        try:
            data = json.loads(stripped)
        except ValueError as exc:
            raise UsageError(f"{path}: not valid JSON: {exc}") from None
        items = list(enumerate(data, 1))
        label = "item "
    else:
        items = []
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip() or line.lstrip().startswith("//"):
                continue
            try:
                items.append((number, json.loads(line)))
            except ValueError as exc:
                raise UsageError(f"{path}:{number}: not valid JSON: {exc}") from None
        label = ""
    rows = []
    for number, item in items:
        if not isinstance(item, dict):
            raise UsageError(f"{path}:{label}{number}: a task must be a JSON object")
        rows.append((f"{label}{number}", item))
    return rows


def _detect(row: dict[str, Any]) -> str:
    if "test_list" in row:
        return "mbpp"
    if "question" in row and "input_output" in row:
        return "apps"
    return "gpte"
