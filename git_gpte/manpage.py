"""The man page ``git-gpte.1``, generated from the click commands.

``git gpte --help`` is answered by git itself with ``git help gpte``, which opens this page, so
it must say what ``git-gpte --help`` says. The shipped copy lives in ``git_gpte/man/`` and a test
regenerates it and compares, so the two cannot drift. Regenerate with::

    python -m git_gpte.manpage > git_gpte/man/git-gpte.1
"""

from __future__ import annotations

import inspect

import click

from . import __version__
from .cli import COMMANDS, cli

_DATE = "2026"


def _escape(text: str) -> str:
    """Escape text for troff: backslashes, and leading dots/quotes that would be requests."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    lines = []
    for line in text.splitlines():
        if line.startswith((".", "'")):
            line = "\\&" + line
        lines.append(line)
    return "\n".join(lines)


def _options(command: click.Command, ctx: click.Context) -> list[str]:
    out: list[str] = []
    for param in command.get_params(ctx):
        record = param.get_help_record(ctx)
        if record is None:
            continue
        names, help_text = record
        out += [".TP", f"\\fB{_escape(names)}\\fR", _escape(help_text or "")]
    return out


def _paragraphs(text: str) -> list[str]:
    out: list[str] = []
    for block in inspect.cleandoc(text or "").split("\n\n"):
        block = block.strip()
        if block and not block.startswith("\b"):
            out += [".PP", _escape(" ".join(block.split()))]
    return out


def render() -> str:
    """The whole page as troff source."""
    root_ctx = click.Context(cli, info_name="git gpte")
    lines = [
        f'.TH GIT\\-GPTE 1 "{_DATE}" "git\\-gpte {__version__}" "Git Manual"',
        ".SH NAME",
        "git\\-gpte \\- LLM edits, validated and committed on a new branch",
        ".SH SYNOPSIS",
        "\\fBgit gpte\\fR [\\fB\\-C\\fR \\fIpath\\fR] [\\fB\\-v\\fR|\\fB\\-q\\fR] "
        "\\fIcommand\\fR [\\fIargs\\fR]",
        ".SH DESCRIPTION",
        *_paragraphs(cli.help or ""),
        ".SH OPTIONS",
        *_options(cli, root_ctx),
        ".SH COMMANDS",
    ]
    for name in sorted(COMMANDS):
        command = cli.get_command(root_ctx, name)
        if command is None:
            continue
        sub_ctx = click.Context(command, info_name=f"git gpte {name}", parent=root_ctx)
        usage = " ".join(command.collect_usage_pieces(sub_ctx))
        lines += [
            f".SS git gpte {_escape(name)} {_escape(usage)}",
            *_paragraphs(command.help or COMMANDS[name][1]),
            *_options(command, sub_ctx),
        ]
    lines += [
        ".SH EXIT STATUS",
        "0 success; 1 partial (some hunks refused); 2 bad usage or input; 3 repository problem;",
        "4 configuration; 5 LLM error; 6 no edit could be applied; 7 unsafe path;",
        "8 the program under test failed; 9 GitHub error; 130 interrupted.",
        ".SH SEE ALSO",
        "\\fBgit\\fR(1), \\fBgit\\-gpte \\-\\-help\\fR",
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    click.echo(render(), nl=False)
