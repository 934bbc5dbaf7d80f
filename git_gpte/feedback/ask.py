"""Asking the review questions, on a terminal or from piped standard input.

On a terminal the questions are asked as usual. When standard input is not a terminal, each
answer is one line of it, so a script can pipe ``y\\nn\\ny\\ncomment\\n``; the line read is
echoed after its question so a log shows what was answered. Questions go to stderr, keeping
stdout for results. An invalid answer is asked again; input that ends before every question is
answered is an error, and nothing is stored.
"""

from __future__ import annotations

import sys
from typing import TextIO

import click

from ..errors import UsageError
from .record import QUESTIONS, Answers, parse_answer

CHOICES = "[y/n/u]"


class Asker:
    """Reads one line per question from ``stdin`` and writes the questions to ``out``."""

    def __init__(self, stdin: TextIO | None = None, out: TextIO | None = None) -> None:
        self.stdin = stdin if stdin is not None else sys.stdin
        self.out = out if out is not None else sys.stderr
        self.terminal = bool(self.stdin is not None and self.stdin.isatty())

    def line(self, question: str) -> str:
        """One answer line (without its newline); EOF is a clear error."""
        click.echo(f"{question} ", nl=False, file=self.out)
        self.out.flush()
        raw = self.stdin.readline() if self.stdin is not None else ""
        if not raw:
            if not self.terminal:
                click.echo("", file=self.out)
            raise UsageError(
                f"no answer to {question!r}: the input ended; nothing was stored",
                hint="pipe one line per question, or run git gpte review on a terminal",
            )
        answer = raw.rstrip("\r\n")
        if not self.terminal:
            click.echo(answer, file=self.out)
        return answer

    def choice(self, question: str) -> str:
        """``yes`` / ``no`` / ``unknown``, asking again until the answer is one of them."""
        while True:
            value = parse_answer(self.line(f"{question} {CHOICES}"))
            if value is not None:
                return value
            click.echo("  please answer y (yes), n (no) or u (don't know)", file=self.out)

    def yes_no(self, question: str) -> bool:
        while True:
            value = parse_answer(self.line(f"{question} [y/n]"))
            if value in ("yes", "no"):
                return value == "yes"
            click.echo("  please answer y (yes) or n (no)", file=self.out)


CONSENT_QUESTION = (
    "git-gpte can keep your answers about this run (with its prompt and model) in this\n"
    "repository: as a git note on the run's commit (refs/notes/gpte) and in .git/gpte/.\n"
    "Nothing is sent anywhere; you can export, share or delete the records yourself.\n"
    "Keep review records in this repository?"
)


def ask_consent(asker: Asker) -> bool:
    return asker.yes_no(CONSENT_QUESTION)


def ask_review(asker: Asker) -> Answers:
    """The three questions, then an optional one-line comment (an empty line skips it)."""
    values = {key: asker.choice(question) for key, question in QUESTIONS}
    comment = asker.line("Anything to add? [one line, empty to skip]").strip()
    return Answers(
        ran=values["ran"], perfect=values["perfect"], useful=values["useful"], comment=comment
    )
