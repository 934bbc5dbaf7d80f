"""``git gpte context PROMPT [PATHSPEC...]``: what would be sent for a request, and why."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import click

from ..cli import AppContext
from ..errors import UsageError

if TYPE_CHECKING:
    from ..config import Settings
    from ..llm import ModelInfo


@click.command("context")
@click.argument("prompt", required=False)
@click.argument("pathspecs", nargs=-1)
@click.option("-f", "--prompt-file", metavar="FILE", help="Read the request from FILE (- = stdin).")
@click.option(
    "--tokens",
    type=click.IntRange(min=1),
    metavar="N",
    help="Token budget (default: GPTE_CONTEXT_TOKENS, gpte.contextTokens, or the model's: "
    "16384, 4096 for a local model).",
)
@click.option("--base", default="HEAD", show_default=True, help="Commit to select from.")
@click.option("--json", "as_json", is_flag=True, help="Print the selection as JSON.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "lines"]),
    default="text",
    show_default=True,
    help="lines: one PATH or PATH:START-END per line, best first (no map).",
)
@click.pass_obj
def command(
    app: AppContext,
    prompt: str | None,
    pathspecs: tuple[str, ...],
    prompt_file: str | None,
    tokens: int | None,
    base: str,
    as_json: bool,
    fmt: str,
) -> int:
    """Show which files and line ranges would be sent for a request, within a token budget.

    Files are ranked by how well they match the request (code-aware BM25), what the request
    names (paths, identifiers) and how they link to the best matches (imports, definitions
    and their uses); the best are sent whole, further ones as excerpts (whole functions and
    classes, with the module header), and a map names the next ones. PATHSPECs narrow the
    candidates. The index is kept in .git/gpte/ and updated incrementally.
    """
    from ..context import format_lines, select
    from ..context.index import terminal_progress
    from ..git import Repository
    from ..git.config import load_settings
    from ..pipeline.context_choice import resolve_context
    from ..pipeline.selection import DEFAULT_MAX_FILE_BYTES, to_top_pathspecs
    from .options import read_prompt

    if as_json and fmt == "lines":
        raise UsageError("--json and --format lines cannot be combined")
    if prompt_file is not None and prompt is not None:
        pathspecs = (prompt, *pathspecs)
        prompt = None
    if prompt is None and prompt_file is None:
        raise UsageError("no request given", hint='git gpte context "what to change" [PATHSPEC...]')
    text = read_prompt(prompt, prompt_file)
    if not text.strip():
        raise UsageError("the request is empty")
    repo = Repository.discover(app.cwd)
    settings = load_settings(app.cwd, repo.root)
    budget = resolve_context(settings, tokens=tokens).budget_for(_model(settings))
    max_bytes = settings.get_int(git="gpte.maxFileBytes", default=DEFAULT_MAX_FILE_BYTES)
    commit = repo.resolve_commit(base)
    specs = tuple(to_top_pathspecs(repo, app.cwd, pathspecs))
    selection = select(
        repo,
        commit,
        text,
        budget,
        specs,
        map_share=0.0 if fmt == "lines" else 0.1,
        max_file_bytes=max_bytes,
        progress=None if app.quiet else terminal_progress(),
    )
    if as_json:
        click.echo(json.dumps(selection.to_json(), indent=2))
    elif fmt == "lines":
        for line in format_lines(selection):
            click.echo(line)
    else:
        _print_text(selection)
    return 0


def _print_text(selection: object) -> None:
    from ..context import ContextSelection, describe

    assert isinstance(selection, ContextSelection)
    for line in describe(selection):
        click.echo(line)


def _model(settings: Settings) -> ModelInfo | None:
    """The configured model, whose kind sets the default budget (the one improve uses); None
    when no model is configured well enough to say."""
    from ..errors import ConfigError
    from ..llm import resolve_model

    try:
        return resolve_model(None, settings)
    except ConfigError:
        return None
