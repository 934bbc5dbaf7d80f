"""Where review records live: a git note on the run's commit, and the run log.

The note (``refs/notes/gpte``) travels with the commit when the user chooses to push notes, and
is readable with plain ``git notes --ref gpte show <commit>``. Its content is one JSON object,
``{"git-gpte-reviews": 1, "reviews": [record, ...]}``: one entry per (install, run), so
reviewing a run again replaces that entry, and a review of another run that produced the same
commit is added beside it. The run log keeps the same record in its ``feedback`` table, which
also covers runs that produced no commit.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import GitCommandError, RepoError, UsageError
from ..git.notes import add_note, all_notes, commit_exists, read_note
from ..git.repo import Repository
from .record import FeedbackRecord

NOTES_REF = "refs/notes/gpte"
NOTE_MARKER = "git-gpte-reviews"


@dataclass
class Saved:
    """Where a record went besides the run log (always): ``note_commit`` is None when there was
    no commit to annotate, and ``reason`` says why."""

    record: FeedbackRecord
    note_commit: str | None
    reason: str = ""


def save_record(repo: Repository, record: FeedbackRecord) -> Saved:
    """Store ``record`` in the run log, then as a note on its commit when there is one."""
    _save_in_run_log(repo, record)
    if not record.commit:
        return Saved(record, None, "the run produced no commit")
    if not commit_exists(repo, record.commit):
        gone = f"commit {record.commit[:12]} is no longer in the repository"
        return Saved(record, None, gone)
    reviews = _note_reviews(repo, record.commit)
    reviews = [r for r in reviews if _key(r) != record.key()] + [record.to_dict()]
    text = json.dumps({NOTE_MARKER: 1, "reviews": reviews}, indent=2, ensure_ascii=False)
    try:
        add_note(repo, NOTES_REF, record.commit, text)
    except GitCommandError as exc:
        raise RepoError(
            f"the review is in the run log, but the git note could not be written: {exc.message}"
        ) from None
    return Saved(record, record.commit)


def _key(data: dict[str, Any]) -> tuple[str, str]:
    return (str(data.get("install_id", "")), str(data.get("run_id", "")))


def _note_text(repo: Repository, commit: str) -> str | None:
    return read_note(repo, NOTES_REF, commit)


def _parse_note(text: str) -> list[dict[str, Any]] | None:
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if isinstance(data, dict) and isinstance(data.get("reviews"), list):
        return [r for r in data["reviews"] if isinstance(r, dict)]
    return None


def _note_reviews(repo: Repository, commit: str) -> list[dict[str, Any]]:
    text = _note_text(repo, commit)
    if text is None:
        return []
    reviews = _parse_note(text)
    if reviews is None:
        raise RepoError(
            f"commit {commit[:12]} already has a note in {NOTES_REF} that git-gpte did not write",
            hint=f"look at it with git notes --ref gpte show {commit[:12]}; "
            f"remove it with git notes --ref gpte remove {commit[:12]}",
        )
    return reviews


# ---------------------------------------------------------------------- run log
def _save_in_run_log(repo: Repository, record: FeedbackRecord) -> None:
    from ..llm.runlog import RunLog

    log = RunLog(repo.state_dir())
    try:
        log.conn.execute(
            "INSERT INTO feedback (run_id, install_id, reviewed_at, record) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (run_id, install_id) DO UPDATE SET"
            " reviewed_at = excluded.reviewed_at, record = excluded.record",
            (
                record.run_id,
                record.install_id,
                record.reviewed_at,
                json.dumps(record.to_dict(), ensure_ascii=False),
            ),
        )
    finally:
        log.close()


def _run_log_records(repo: Repository) -> list[FeedbackRecord]:
    from ..llm.runlog import DB_NAME, RunLog

    if not (repo.state_dir() / DB_NAME).exists():
        return []
    log = RunLog(repo.state_dir())
    try:
        rows = log.conn.execute("SELECT record FROM feedback ORDER BY reviewed_at, id").fetchall()
    finally:
        log.close()
    return [FeedbackRecord.from_dict(json.loads(row[0])) for row in rows]


def _notes_records(repo: Repository) -> list[FeedbackRecord]:
    records = []
    for _commit, text in all_notes(repo, NOTES_REF):
        for data in _parse_note(text) or []:
            try:
                records.append(FeedbackRecord.from_dict(data))
            except TypeError:
                continue  # a record from a newer/older shape that lacks fields: skip it
    return records


def all_records(repo: Repository) -> list[FeedbackRecord]:
    """Every record in the run log and in the notes (e.g. fetched from a teammate), once each,
    oldest first; of two versions of one review the later one wins."""
    chosen: dict[tuple[str, str], FeedbackRecord] = {}
    for record in [*_notes_records(repo), *_run_log_records(repo)]:
        current = chosen.get(record.key())
        if current is None or record.reviewed_at >= current.reviewed_at:
            chosen[record.key()] = record
    return sorted(chosen.values(), key=lambda r: (r.reviewed_at, r.run_id))


def export_records(records: Iterable[FeedbackRecord], path: str) -> int:
    """Write ``records`` as JSON lines to ``path`` (``-``: stdout); returns how many."""
    lines = [json.dumps(r.to_dict(), ensure_ascii=False, sort_keys=True) for r in records]
    text = "".join(line + "\n" for line in lines)
    if path == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return len(lines)
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
    return len(lines)
