"""Review records: what the user thought of a run, kept only where the user can see it.

A record is written only after consent (``git config gpte.feedback true``), as a git note on the
run's commit under ``refs/notes/gpte`` and as a row in the run log (``.git/gpte/runs.sqlite``).
Nothing here opens a network connection: sharing a record is something the user does by hand
(``git gpte review --export FILE``, or pushing ``refs/notes/gpte``).

Public API::

    from git_gpte.feedback import (
        Answers, FeedbackRecord, ask_review, consent, set_consent, install_id,
        save_record, export_records, review_hint,
    )
"""

from __future__ import annotations

from .ask import Asker, ask_consent, ask_review
from .consent import CONSENT_KEY, consent, install_id, set_consent
from .hint import review_hint
from .record import ANSWER_WORDS, QUESTIONS, Answers, FeedbackRecord, parse_answer
from .store import NOTES_REF, all_records, export_records, save_record

__all__ = [
    "ANSWER_WORDS",
    "CONSENT_KEY",
    "NOTES_REF",
    "QUESTIONS",
    "Answers",
    "Asker",
    "FeedbackRecord",
    "all_records",
    "ask_consent",
    "ask_review",
    "consent",
    "export_records",
    "install_id",
    "parse_answer",
    "review_hint",
    "save_record",
    "set_consent",
]
