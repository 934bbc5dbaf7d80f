"""``--shard I/N``: which tasks of a task file one machine of N runs, and what its report says.

A task's shard depends on its name only (sha256 of the name, mod N), never on its position or
on the other tasks, so every runner of a matrix computes the same split without talking to the
others, and adding or removing tasks moves no other task. The report of a run carries what
``git gpte bench merge`` needs to check that shard reports belong together (the git-gpte
version, the task file's sha256, the options that change results) and to put the tasks back in
the task file's order (each task's number in the selection).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import UsageError
from .tasks import Task

_SHARD = re.compile(r"\s*(\d+)\s*/\s*(\d+)\s*")
MAX_SHARDS = 1000


@dataclass(frozen=True, order=True)
class Shard:
    """Shard ``index`` (1-based) of ``count``."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


WHOLE = Shard(1, 1)


def parse_shard(text: str) -> Shard:
    """``"2/3"`` -> ``Shard(2, 3)``; anything else is one line saying what is expected."""
    match = _SHARD.fullmatch(text)
    shard = Shard(int(match.group(1)), int(match.group(2))) if match else None
    if shard is None or not 1 <= shard.index <= shard.count <= MAX_SHARDS:
        raise UsageError(
            f"--shard takes I/N with 1 <= I <= N <= {MAX_SHARDS} (e.g. 2/3), got {text!r}"
        )
    return shard


def shard_of(name: str, count: int) -> int:
    """The shard (1..count) a task named ``name`` belongs to: stable across machines, Python
    versions and task-file edits (``hash()`` is salted per process; sha256 is not)."""
    digest = hashlib.sha256(name.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


def select_shard(tasks: Sequence[Task], shard: Shard) -> list[tuple[int, Task]]:
    """The tasks of ``shard`` with their 1-based numbers in ``tasks``, in file order."""
    return [
        (number, task)
        for number, task in enumerate(tasks, 1)
        if shard_of(task.name, shard.count) == shard.index
    ]


def file_sha256(path: str | Path) -> str:
    """The task file's identity in reports: shards of different files must not be merged."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None


def shard_block(shard: Shard, numbers: Sequence[int], of_tasks: int) -> dict[str, Any]:
    """The ``"shard"`` member of a sharded report: which shard, and where its tasks belong."""
    return {
        "index": shard.index,
        "count": shard.count,
        "of_tasks": of_tasks,
        "task_numbers": list(numbers),
    }
