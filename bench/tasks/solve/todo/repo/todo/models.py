"""The Task record and the little parsers used when reading user input."""

import datetime as dt
from dataclasses import dataclass, field

LOW = 1
NORMAL = 2
HIGH = 3

PRIORITY_NAMES = {LOW: "low", NORMAL: "normal", HIGH: "high"}
_PRIORITY_BY_NAME = {name: value for value, name in PRIORITY_NAMES.items()}

DATE_FORMAT = "%Y-%m-%d"


def parse_priority(value):
    """Turn "high", "3" or 3 into one of the priority numbers."""
    if isinstance(value, int):
        return value
    text = str(value).strip().lower()
    if text.isdigit():
        return int(text)
    return _PRIORITY_BY_NAME.get(text, NORMAL)


def parse_due(value, today=None):
    """Read a due date: a date, "YYYY-MM-DD", "today", "tomorrow" or "+N" (days from now).

    Empty values mean "no due date" and give None.
    """
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    text = str(value).strip().lower()
    if not text:
        return None
    today = today or dt.date.today()
    if text == "today":
        return today
    if text == "tomorrow":
        return today + dt.timedelta(days=1)
    if text.startswith("+") and text[1:].isdigit():
        return today + dt.timedelta(days=int(text[1:]))
    return dt.datetime.strptime(text, DATE_FORMAT).date()


def normalize_tags(tags):
    """Accept "home, Errands" or a list and give a sorted list of unique lower-case tags."""
    if not tags:
        return []
    if isinstance(tags, str):
        tags = tags.split(",")
    cleaned = {tag.strip().lower().lstrip("#") for tag in tags if tag and tag.strip()}
    return sorted(tag for tag in cleaned if tag)


def format_date(value):
    if value is None:
        return None
    return value.strftime(DATE_FORMAT)


@dataclass
class Task:
    title: str
    priority: int = NORMAL
    due: dt.date | None = None
    tags: list = field(default_factory=list)
    done: bool = False
    id: int | None = None
    created: dt.datetime = field(default_factory=lambda: dt.datetime.now().replace(microsecond=0))
    completed_at: dt.datetime | None = None

    def __post_init__(self):
        self.priority = parse_priority(self.priority)
        self.tags = normalize_tags(self.tags)

    @property
    def priority_name(self):
        return PRIORITY_NAMES.get(self.priority, str(self.priority))

    def has_tag(self, tag):
        return tag.strip().lower().lstrip("#") in self.tags

    def is_overdue(self, today=None):
        """True when the task is still open and its due date has passed."""
        if self.done or self.due is None:
            return False
        return self.due < (today or dt.date.today())

    def days_left(self, today=None):
        if self.due is None:
            return None
        return (self.due - (today or dt.date.today())).days

    def short(self):
        box = "[x]" if self.done else "[ ]"
        text = f"{box} #{self.id} {self.title} ({self.priority_name}"
        if self.due:
            text += f", due {format_date(self.due)}"
        text += ")"
        if self.tags:
            text += " " + " ".join("+" + tag for tag in self.tags)
        return text
