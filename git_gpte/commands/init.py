"""``git gpte init PROMPT``: generate a project and its run.sh, committed on a new branch."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..cli import AppContext
from ..errors import Interrupted, NotARepository, UsageError
from .options import cache_option, model_option

PROMPT_FILE = "prompt"  # gpt-engineer projects keep their prompt in a file of this name

if TYPE_CHECKING:
    from ..pipeline.generate import GenerateResult
    from ..ui import Console


@click.command("init")
@click.argument("prompt", required=False)
@click.option("-f", "--prompt-file", metavar="FILE", help="Read the prompt from FILE (- = stdin).")
@model_option
@click.option("-b", "--branch", help="Branch to create (default: gpte/init-<slug of the prompt>).")
@click.option("--clarify", is_flag=True, help="Answer the model's clarifying questions first.")
@click.option("--lite", is_flag=True, help="Send the prompt alone (no roadmap/philosophy).")
@click.option("--no-entrypoint", is_flag=True, help="Do not write run.sh.")
@cache_option
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON on stdout.")
@click.pass_obj
def command(
    app: AppContext,
    prompt: str | None,
    prompt_file: str | None,
    model: str | None,
    branch: str | None,
    clarify: bool,
    lite: bool,
    no_entrypoint: bool,
    cache: bool,
    as_json: bool,
) -> int:
    """Generate a new project from PROMPT and commit it, with a run.sh that runs it.

    The prompt comes from PROMPT, -f FILE, or a file named 'prompt' at the repository root (as
    gpt-engineer projects have). The files are committed on a new branch gpte/init-<slug> on
    top of HEAD; in a repository with no commits yet, as the first commit of the current
    branch, and there - when nothing is staged and no file is in the way - also checked out,
    as git clone does. Otherwise your working tree and index are not written: switch to the
    branch to get the files. Nothing is run: review run.sh, then 'git gpte run' or
    'git gpte heal'.
    """
    from ..git import Repository
    from ..git.config import load_settings
    from ..pipeline.generate import GenerateRequest, run_generate
    from ..ui import Console

    if clarify:
        _check_clarify(as_json)
    try:
        repo = Repository.discover(app.cwd)
    except NotARepository:
        raise NotARepository(
            f"not a git repository: {app.cwd}",
            hint='create one first: git init && git gpte init "..."',
        ) from None
    text = _prompt_text(repo.root, prompt, prompt_file)
    settings = load_settings(app.cwd, repo.root)
    console = Console(quiet=app.quiet or as_json, verbose=app.verbose)

    request = GenerateRequest(
        prompt=text,
        model=model,
        branch=branch,
        entrypoint=not no_entrypoint,
        lite=lite,
        clarify=_asker(console) if clarify else None,
        cache=cache,
    )
    result = run_generate(repo, settings, request, console)
    if as_json:
        click.echo(json.dumps(result.to_json(), indent=2))
    else:
        _print_result(app, result, on_current_branch=branch is None)
    return 1 if result.problems else 0


def _check_clarify(as_json: bool) -> None:
    """--clarify asks questions: it needs a terminal, and JSON output has no place for them."""
    from .improve import interactive

    if not interactive():
        raise UsageError(
            "--clarify asks questions and needs a terminal",
            hint="run it in a terminal, or put the answers in the prompt",
        )
    if as_json:
        raise UsageError("--clarify and --json cannot be combined")


def _asker(console: Console) -> Callable[[str], str]:
    """--clarify's questions at the terminal; an empty answer stops them, Ctrl-C interrupts."""

    def ask(question: str) -> str:
        if not console.live:
            click.echo(question.strip(), err=True)
        try:
            answer: str = click.prompt(
                "Your answer (Enter to stop the questions)",
                default="",
                show_default=False,
                err=True,
            )
        except click.Abort:  # Ctrl-C or end of input at the question: the run is interrupted
            raise Interrupted("interrupted at a clarifying question; nothing committed") from None
        return answer

    return ask


def _prompt_text(root: Path, prompt: str | None, prompt_file: str | None) -> str:
    """PROMPT or -f FILE as improve reads them, else the gpt-engineer 'prompt' file."""
    from .options import read_prompt

    if prompt is not None or prompt_file is not None:
        return read_prompt(prompt, prompt_file)
    candidate = root / PROMPT_FILE
    if candidate.is_file():
        try:
            return candidate.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"cannot read {candidate}: {exc}") from None
    raise UsageError(
        "no prompt given",
        hint=f'git gpte init "what to build", -f FILE, or a file named {PROMPT_FILE!r} at the '
        "repository root",
    )


def _print_result(app: AppContext, result: GenerateResult, *, on_current_branch: bool) -> None:
    if app.quiet:
        click.echo(result.branch)
        return
    where = "first commit" if result.base is None else f"on {result.base[:12]}"
    click.echo(f"branch {result.branch}  (commit {result.commit[:12]}, {where})")
    click.echo(f"files ({len(result.files)}):")
    for path in result.files:
        note = "  (replaces the existing file)" if path in result.overwritten else ""
        click.echo(f"  {path}{note}")
    for warning in result.entrypoint_warnings:
        click.echo(f"review run.sh: it {warning}")
    for problem in result.problems:
        click.echo(f"problem: {problem}")
    click.echo(f"{result.usage.describe()}   run {result.run_id}")
    if result.checked_out:
        click.echo("checked out: the repository had no commits, so the files are in your work tree")
    elif result.first_commit and on_current_branch:
        _print_restore_advice(result)
    else:
        click.echo(f"look:  git show --stat {result.branch}")
        click.echo(f"take:  git switch {result.branch}")
    if "run.sh" in result.files:
        # HEAD is the generated commit only when the files are on the current branch.
        on_head = result.first_commit and on_current_branch
        base = "" if on_head else f" --base {result.branch}"
        click.echo(f"then:  git gpte run{base}   (or: git gpte heal{base})")


def _print_restore_advice(result: GenerateResult) -> None:
    """A first commit that could not be checked out: name what is in the way (kept as it is)
    and give a command that writes only the other files, so nothing of the user's is lost."""
    import shlex

    blocked = set(result.in_the_way)
    rest = [p for p in result.files if p not in blocked]
    click.echo("the files are in the commit, not yet in your work tree (git status shows them")
    click.echo("as deleted; a commit made now would delete them).")
    if blocked:
        click.echo(f"in the way, kept as they are ({len(blocked)}):")
        for path in sorted(blocked):
            click.echo(f"  {path}")
        first = sorted(blocked)[0]
        click.echo(f"see the generated one:  git show HEAD:{shlex.quote(first)}")
    if rest:
        literal = any(set(p) & set("*?[]:\\") for p in rest)
        git = "git --literal-pathspecs" if literal else "git"
        quoted = " ".join(shlex.quote(p) for p in rest)
        label = "get the others" if blocked else "get them"
        click.echo(f"{label}:  {git} restore --source=HEAD --staged --worktree -- {quoted}")
