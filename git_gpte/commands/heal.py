"""``git gpte heal``: run the entrypoint; while it fails, commit an LLM fix and run it again."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import click

from ..cli import AppContext
from ..errors import RunError, UsageError
from .options import (
    cache_option,
    command_option,
    docker_option,
    entrypoint_option,
    model_option,
    on_branch_options,
    run_yes_option,
)

if TYPE_CHECKING:
    from ..git import Repository
    from ..pipeline.heal import HealRequest, HealResult


@click.command("heal")
@click.option(
    "--attempts",
    type=click.IntRange(0, 50),
    default=5,
    show_default=True,
    help="Fixes to try at most (0: only run and report).",
)
@entrypoint_option
@command_option
@click.option(
    "--base", default="HEAD", show_default=True, metavar="REV", help="Commit to run and heal."
)
@click.option("-b", "--branch", help="Heal branch to create (default: gpte/heal-<slug>).")
@click.option(
    "-p",
    "--prompt",
    "spec",
    metavar="TEXT",
    help="The specification the code was written from (default: from the run log).",
)
@click.option("-f", "--prompt-file", metavar="FILE", help="Read the specification from FILE.")
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    metavar="S",
    help="Seconds before each run is killed (default: gpte.timeout or 600).",
)
@model_option
@run_yes_option
@docker_option
@cache_option
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON on stdout.")
@on_branch_options
@click.pass_obj
def command(app: AppContext, /, **given: Any) -> int:
    """Run the entrypoint of a commit; while it fails, ask the LLM for a fix and run again.

    Each run happens in a temporary worktree with a timeout and no secrets in its environment
    (see git gpte run). On failure the specification (the prompt that made the code, from the
    run log or --prompt), the exit code and the end of the output go to the LLM as an improve
    request; the fix is committed on the heal branch and run. It stops when a run exits 0,
    after --attempts fixes, when a fix holds no usable edit, or when a fix leaves the same
    failure. Exits 0 only if the last run passed, 8 otherwise. Your checkout is untouched.

    --on BRANCH heals a branch git-gpte made ("-": the latest run's branch) in place: its tip
    is run, the fixes are added to it (unless it moved meanwhile), and the specification is the
    branch's earlier requests and commits.
    """
    from ..git import Repository
    from ..git.config import load_settings
    from ..pipeline.heal import run_heal
    from ..run.streaming import Streamer, workflow_commands_stopped
    from ..ui import Console

    flags = Flags(**given)
    flags.check_combinations()
    repo = Repository.discover(app.cwd)
    settings = load_settings(app.cwd, repo.root)
    console = Console(quiet=app.quiet, verbose=app.verbose)
    request = flags.request()
    if flags.on is not None:
        request = _on_branch(repo, request, flags.on, flags.force_branch)
    quiet = app.quiet or flags.as_json
    confirm = _confirmer(yes=flags.yes, quiet=quiet)
    streamer = None if quiet else Streamer(sys.stdout)
    with workflow_commands_stopped(streamer):
        result = run_heal(repo, settings, request, console, on_output=streamer, confirm=confirm)
    _report(app, result, flags.as_json)
    if not result.success:
        raise RunError(_failure_line(result))
    return 0


@dataclass(frozen=True)
class Flags:
    """The command line of one heal, as click gives it."""

    attempts: int
    entrypoint: str | None
    command_text: str | None
    base: str
    branch: str | None
    spec: str | None
    prompt_file: str | None
    timeout: float | None
    model: str | None
    yes: bool
    docker: bool
    cache: bool
    as_json: bool
    on: str | None
    force_branch: bool

    def check_combinations(self) -> None:
        if self.spec is not None and self.prompt_file is not None:
            raise UsageError("give --prompt or --prompt-file, not both")
        if self.on is not None and (self.branch is not None or self.base != "HEAD"):
            raise UsageError("--on cannot be combined with --branch or --base")
        if self.on is None and self.force_branch:
            raise UsageError("--force-branch only goes with --on BRANCH")

    def request(self) -> HealRequest:
        from ..pipeline.heal import HealRequest
        from .options import read_prompt

        spec = self.spec
        if self.prompt_file is not None:
            spec = read_prompt(None, self.prompt_file)
        return HealRequest(
            command=self.command_text,
            entrypoint=self.entrypoint,
            attempts=self.attempts,
            base=self.base,
            branch=self.branch,
            prompt=spec,
            timeout=self.timeout,
            model=self.model,
            docker=self.docker,
            cache=self.cache,
        )


def _on_branch(repo: Repository, request: HealRequest, on: str, force: bool) -> HealRequest:
    """Heal a branch git-gpte made in place: its tip is run, the fixes go onto it, and its
    earlier requests are the specification unless one was given."""
    from ..pipeline.chain import chain_spec, load_chain

    chain = load_chain(repo, on, force=force)
    return replace(
        request,
        base=chain.tip,
        continue_branch=chain.branch,
        prompt=request.prompt if request.prompt is not None else chain_spec(chain),
    )


def _confirmer(*, yes: bool, quiet: bool) -> Callable[[str, int], None]:
    """Before each run: the base's run once (unless --yes), every fix's run (unless --yes)."""
    from ..run import require_confirmation

    def confirm(text: str, attempt: int) -> None:
        if attempt == 0:
            require_confirmation(text, yes=yes, quiet=quiet)
        elif not yes:
            require_confirmation(text, yes=False, question=f"Run the code of attempt {attempt}?")

    return confirm


def _report(app: AppContext, result: HealResult, as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps(result.to_json(), indent=2))
        return
    _print_result(app, result)
    from ..feedback.hint import review_hint

    hint = review_hint(result.run_id, cwd=app.cwd) if result.run_id else None
    if hint:
        app.echo(hint)


def _failure_line(result: HealResult) -> str:
    last = result.runs[-1].summary if result.runs else "the program failed"
    where = f"; attempts are on {result.branch}" if result.branch else ""
    return f"not healed: {result.stop_reason}; last run: {last}{where}"


def _print_result(app: AppContext, result: HealResult) -> None:
    if app.quiet:
        return
    click.echo("")
    for run in result.runs:
        label = "base" if run.attempt == 0 else f"attempt {run.attempt}"
        verdict = "pass" if run.exit_code == 0 and not run.timed_out else "FAIL"
        click.echo(f"{label:<11} {run.commit[:12]}  {verdict}  {run.summary}")
    if result.success and result.branch:
        click.echo(
            f"healed in {result.attempts} attempt(s): branch {result.branch} "
            f"(commit {(result.commit or '')[:12]})"
        )
        click.echo(f"look:  git diff {result.base[:12]}...{result.branch}")
        click.echo(f"take:  git merge {result.branch}")
    elif result.success:
        click.echo("the program passes; nothing to heal")
    elif result.branch:
        click.echo(f"not healed ({result.stop_reason}); attempts kept on {result.branch}")
    if result.attempts:
        click.echo(f"{result.usage.describe()}   run {result.run_id}")
