"""The click command group.

Commands live one per module in ``git_gpte/commands/`` and are imported only when invoked, so
``git gpte --help`` never pays for the LLM or GitHub SDKs. This module must stay cheap to import:
nothing here may import ``openai``, ``anthropic`` or ``github`` at top level.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
from dataclasses import dataclass, field
from typing import Any

import click

from . import __version__
from .errors import EXIT_INTERNAL, GpteError, Interrupted
from .signals import interrupts_as_keyboard_interrupt

# name -> (module in git_gpte.commands, one-line help shown in the command list)
COMMANDS: dict[str, tuple[str, str]] = {
    "action": ("action", "Run as a GitHub Action: issue or comment -> PR; pre-merge heal check."),
    "apply": ("apply", "Apply an LLM reply's edits: each hunk applied, corrected or refused."),
    "context": ("context", "Show what would be sent for a request: ranked files and excerpts."),
    "bench": ("bench", "Run improve (and heal) on a task file; report solved %, tokens, cost."),
    "heal": ("heal", "Run the entrypoint; while it fails, commit an LLM fix and run again."),
    "improve": ("improve", "Ask the LLM for edits and commit them on a new branch."),
    "init": ("init", "Generate a project (and run.sh) from a prompt, committed on a branch."),
    "log": ("log", "List recorded runs (model, tokens, cost, outcome); 'log show ID' for one."),
    "preprompts": ("preprompts", "List, show or export the system prompts (per-repo overrides)."),
    "review": ("review", "Record whether a run's code ran and helped (local, with consent)."),
    "run": ("run", "Run a commit's entrypoint in a temporary worktree, with a timeout."),
    "sysinfo": ("sysinfo", "Print system information for bug reports."),
}


@dataclass
class AppContext:
    """What the global options decide, handed to every command as ``ctx.obj``."""

    cwd: str = field(default_factory=os.getcwd)
    verbose: bool = False
    quiet: bool = False

    def echo(self, message: str = "", *, err: bool = False, nl: bool = True) -> None:
        """Print unless ``--quiet``; errors always go through ``GpteError`` instead."""
        if not self.quiet:
            click.echo(message, err=err, nl=nl)


class LazyGroup(click.Group):
    """A group whose sub-commands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        module = importlib.import_module(f"git_gpte.commands.{COMMANDS[cmd_name][0]}")
        command: click.Command = module.command
        return command

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0] if args else ""
        if name and name not in COMMANDS and not name.startswith("-"):
            import difflib

            close = difflib.get_close_matches(name, list(COMMANDS), n=1, cutoff=0.6)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            ctx.fail(f"No such command {name!r}.{hint}")
        return super().resolve_command(ctx, args)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # Short help comes from the table so listing commands imports nothing.
        rows = [(name, COMMANDS[name][1]) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


# click >= 8.2 raises this for a bare `git gpte`; older versions print the help and exit 0.
_NO_ARGS_IS_HELP: Any = getattr(click.exceptions, "NoArgsIsHelpError", ())

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


@click.group(cls=LazyGroup, context_settings=CONTEXT_SETTINGS)
@click.version_option(__version__, "--version", prog_name="git-gpte")
@click.option(
    "-C",
    "paths",
    multiple=True,
    metavar="PATH",
    type=click.Path(file_okay=False),
    help="Run as if started in PATH (like git -C; may be repeated).",
)
@click.option("-v", "--verbose", is_flag=True, help="Show more detail, and tracebacks on errors.")
@click.option("-q", "--quiet", is_flag=True, help="Print only results and errors.")
@click.pass_context
def cli(ctx: click.Context, paths: tuple[str, ...], verbose: bool, quiet: bool) -> None:
    """git-gpte: LLM edits, validated and committed on a new branch.

    Your working tree, index and current branch are never touched unless you ask.
    """
    cwd = os.getcwd()
    for path in paths:
        cwd = os.path.join(cwd, path)
        if not os.path.isdir(cwd):
            raise click.BadParameter(
                f"cannot change to '{path}': no such directory", param_hint="-C"
            )
    ctx.obj = AppContext(cwd=os.path.normpath(cwd), verbose=verbose, quiet=quiet)


def main(argv: list[str] | None = None) -> None:
    """Console-script entry: run click, turn expected failures into one line and an exit code.

    Everything printed passes the terminal filter (git_gpte.terminal): model replies, file
    names and program output cannot send escape sequences to the user's terminal.
    """
    from .terminal import install

    # Ctrl-C, a CI cancel (SIGTERM) or a closed terminal (SIGHUP) ends the command once: runs
    # are recorded as interrupted and temporary files are removed, and a second signal (git
    # forwards Ctrl-C to its child too) cannot break that cleanup or the last message.
    with interrupts_as_keyboard_interrupt(exiting=argv is None):
        streams = install()
        try:
            code = _run(argv)
        finally:
            for stream in streams:
                stream.finish()
        if argv is None:
            _leave(code)
        sys.exit(code)


def _leave(code: int) -> None:
    """End the process now that everything is written: the exit handlers run (they close what
    the run opened), then the interpreter stops without tearing every module down one object
    at a time (a fifth of a second once an SDK is loaded, for nothing)."""
    import atexit

    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    atexit._run_exitfuncs()
    os._exit(code)


def _request_read_as_option(exc: click.ClickException, args: list[str]) -> str | None:
    """The argument click read as an unknown option when it holds a space: a request starting
    with a dash ("- happy new year", as commit subjects from lists are written)."""
    if not isinstance(exc, click.NoSuchOption):
        return None
    for arg in args:
        if arg.startswith(exc.option_name) and any(ch.isspace() for ch in arg):
            return arg
    return None


def _run(argv: list[str] | None) -> int:
    args = argv if argv is not None else sys.argv[1:]
    verbose = any(arg in ("-v", "--verbose") for arg in args)
    code: Any
    try:
        code = cli.main(args=argv, prog_name="git-gpte", standalone_mode=False)
    except GpteError as err:
        if verbose:
            import traceback

            traceback.print_exc()
        # Ctrl-C (or a declined question) is the user's choice, not an error.
        kind = "" if isinstance(err, Interrupted) else "error: "
        click.echo(f"git-gpte: {kind}{err.render()}", err=True)
        return err.exit_code
    except (KeyboardInterrupt, click.exceptions.Abort):
        click.echo("git-gpte: interrupted", err=True)
        return Interrupted.exit_code
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except _NO_ARGS_IS_HELP as exc:
        exc.show()  # bare `git gpte`: the help is the answer
        return int(exc.exit_code)
    except click.ClickException as exc:
        # Bad options too are one line, like every other failure, naming where help is.
        message = " ".join(exc.format_message().split())
        if isinstance(exc, click.UsageError) and exc.ctx is not None:
            where = exc.ctx.command_path.replace("git-gpte", "git gpte", 1)
            request = _request_read_as_option(exc, args)
            if request is not None:
                import shlex

                message = "a request starting with '-' reads as an option; put -- before it: "
                message += f"{where} -- {shlex.quote(request)}"
            message += f" (see '{where} -h')"
        click.echo(f"git-gpte: error: {message}", err=True)
        return exc.exit_code
    except BrokenPipeError:
        return 141
    except Exception as exc:  # a bug: still one line (the run it was in is closed as "error")
        if verbose:
            import traceback

            traceback.print_exc()
        detail = " ".join(str(exc).split())[:300]
        click.echo(
            f"git-gpte: internal error: {type(exc).__name__}"
            + (f": {detail}" if detail else "")
            + " (a bug in git-gpte; git gpte -v ... shows the traceback to report)",
            err=True,
        )
        return EXIT_INTERNAL
    return code if isinstance(code, int) else 0
