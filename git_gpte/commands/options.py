"""Options several commands share, declared once so their names and help never drift apart."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

from ..errors import UsageError

F = TypeVar("F", bound=Callable[..., Any])

model_option = click.option(
    "-m", "--model", help="Model name or alias (default: MODEL_NAME, gpte.model)."
)
cache_option = click.option(
    "--cache", is_flag=True, help="Reuse cached replies for identical requests."
)
entrypoint_option = click.option(
    "--entrypoint",
    metavar="PATH",
    help="Script to run with bash, relative to the repository root (default: run.sh).",
)
command_option = click.option(
    "--command",
    "command_text",
    metavar="CMD",
    help="Command line to run with bash -c instead of a script (default: [run] test/build "
    "from gpt-engineer.toml, if set).",
)
run_timeout_option = click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    metavar="S",
    help="Seconds before the program and its children are killed (default: gpte.timeout or 600).",
)
run_yes_option = click.option(
    "-y", "--yes", is_flag=True, help="Run without asking (required when stdin is not a terminal)."
)
docker_option = click.option(
    "--docker", is_flag=True, help="Run inside a Docker container (needs a running Docker engine)."
)


def on_branch_options(f: F) -> F:
    """``--on BRANCH`` and ``--force-branch``: continue a branch instead of making a new one."""
    f = click.option(
        "--force-branch",
        is_flag=True,
        help="With --on: continue a branch git-gpte did not make.",
    )(f)
    return click.option(
        "--on",
        metavar="BRANCH",
        help="Add the commit to BRANCH, a branch git-gpte made (-: the latest run's branch).",
    )(f)


def read_prompt(prompt: str | None, prompt_file: str | None) -> str:
    """The instruction from the argument, ``-f FILE`` or standard input (``-``)."""
    if prompt_file is not None:
        try:
            if prompt_file == "-":
                return sys.stdin.read()
            with open(prompt_file, encoding="utf-8") as handle:
                return handle.read()
        except OSError as exc:
            reason = exc.strerror or str(exc)
            raise UsageError(f"cannot read the prompt file {prompt_file!r}: {reason}") from None
        except UnicodeDecodeError:
            raise UsageError(f"the prompt file {prompt_file!r} is not UTF-8 text") from None
    if prompt == "-":
        return sys.stdin.read()
    if prompt is None:
        raise UsageError("no prompt given", hint='git gpte improve "what to change" [PATHSPEC...]')
    return prompt
