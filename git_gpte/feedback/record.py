"""The review record and its answers: plain data, no I/O.

The three questions are gpt-engineer's learning questions (did it run, was it perfect, was it
useful), each answered yes, no or unknown.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

RECORD_VERSION = 1

# (key, question) in the order they are asked.
QUESTIONS: tuple[tuple[str, str], ...] = (
    ("ran", "Did the generated code run?"),
    ("perfect", "Was the result perfect (nothing left to change)?"),
    ("useful", "Was it useful?"),
)

ANSWER_WORDS = {
    "y": "yes",
    "yes": "yes",
    "n": "no",
    "no": "no",
    "u": "unknown",
    "unknown": "unknown",
    "?": "unknown",
}


def parse_answer(text: str) -> str | None:
    """``yes`` / ``no`` / ``unknown`` for an accepted answer, None for anything else."""
    return ANSWER_WORDS.get(text.strip().lower())


@dataclass
class Answers:
    ran: str
    perfect: str
    useful: str
    comment: str = ""


@dataclass
class FeedbackRecord:
    """One review of one run, as stored in the note and the run log and exported."""

    run_id: str
    command: str
    model: str | None
    prompt: str
    outcome: str
    commit: str | None
    branch: str | None
    ran: str
    perfect: str
    useful: str
    comment: str
    reviewed_at: str
    install_id: str
    version: int = RECORD_VERSION
    git_gpte: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        if not data["extra"]:
            data.pop("extra")
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> FeedbackRecord:
        known = {name for name in cls.__dataclass_fields__}
        fields = {k: v for k, v in data.items() if k in known}
        extra = {k: v for k, v in data.items() if k not in known}
        record = cls(**fields)
        record.extra.update(extra)
        return record

    def key(self) -> tuple[str, str]:
        """Who reviewed which run: a second review by the same install replaces the first."""
        return (self.install_id, self.run_id)
