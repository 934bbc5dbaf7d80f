"""``git gpte preprompts list|show|export``: the system prompts and their per-repo overrides."""

from __future__ import annotations

from pathlib import Path

import click

from ..cli import AppContext
from ..errors import NotARepository


def _root(obj: AppContext) -> Path | None:
    from ..git.repo import Repository

    try:
        return Repository.discover(obj.cwd).root
    except NotARepository:
        return None


@click.group("preprompts")
def command() -> int:
    """The system prompts sent to the model, and this repository's overrides.

    A file in .gpte/preprompts/ with a preprompt's name replaces the default for this
    repository; 'export' copies the defaults there to start from.
    """
    return 0


@command.command("list")
@click.pass_obj
def list_(obj: AppContext) -> int:
    """Name, source (default or override) and role of every preprompt."""
    from ..prompts import NAMES, find

    root = _root(obj)
    for name, role in NAMES.items():
        found = find(name, root)
        source = "override" if found.overridden else "default"
        click.echo(f"{name:<28}{source:<10}{role}")
    return 0


@command.command("show")
@click.argument("name")
@click.pass_obj
def show(obj: AppContext, name: str) -> int:
    """Print the preprompt NAME as it will be used here (the override if there is one)."""
    from ..prompts import find

    found = find(name, _root(obj))
    obj.echo(f"# {found.path}{' (override)' if found.overridden else ''}", err=True)
    click.echo(found.text, nl=not found.text.endswith("\n"))
    return 0


@command.command("export")
@click.argument("directory", required=False, type=click.Path(file_okay=False))
@click.option("--force", is_flag=True, help="Overwrite files that already exist.")
@click.pass_obj
def export_(obj: AppContext, directory: str | None, force: bool) -> int:
    """Copy the default preprompts to DIRECTORY (default: .gpte/preprompts in this repository).

    Edit the copies to change how the model is instructed for this repository; delete a file
    to go back to the default. Existing files are kept unless --force.
    """
    from ..errors import UsageError
    from ..prompts import OVERRIDE_DIR, export

    if directory is None:
        root = _root(obj)
        if root is None:
            raise UsageError(
                "not in a git repository; name a directory: git gpte preprompts export DIR"
            )
        target = root / OVERRIDE_DIR
    else:
        target = Path(obj.cwd) / directory
    written, skipped = export(target, force=force)
    for path in written:
        obj.echo(f"wrote {path}")
    for path in skipped:
        obj.echo(f"kept {path} (exists; --force to overwrite)", err=True)
    return 0
