"""``git gpte improve PROMPT [PATHSPEC...]``: edits from the LLM, committed on a new branch."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import sys
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import click

from ..cli import AppContext
from ..edit.formats import EDIT_FORMATS
from ..errors import GpteError, RepoError, UsageError
from .options import cache_option, model_option, on_branch_options, read_prompt

if TYPE_CHECKING:
    from ..config import Settings
    from ..git import Repository
    from ..llm import ModelInfo
    from ..pipeline.improve import ImprovePlan, ImproveRequest, ImproveResult
    from ..pipeline.plan import Plan

CONFIRM_TOKENS_DEFAULT = 100_000


def interactive() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()


def pick_files_in_editor(chosen: list[str], others: list[str]) -> tuple[str, ...]:
    """Open the files to send in $EDITOR (like ``git rebase -i``): the ranked selection first,
    every other file below it commented out. Kept lines are what is sent, whole."""
    if not interactive():
        raise UsageError("--select needs a terminal (it opens $EDITOR)")
    header = (
        "# Files to send to the model, whole, one per line: the files selected for the\n"
        "# request first. Delete or comment out (#) a line to leave its file out; remove the\n"
        "# '# ' in front of another file to send it too. An empty list aborts.\n"
    )
    listing = "\n".join(chosen)
    if others:
        listing += "\n\n# Other files:\n" + "\n".join(f"# {p}" for p in others)
    edited = click.edit(header + listing + "\n", extension=".txt", require_save=False)
    if edited is None:
        raise UsageError("--select: the editor was closed without saving")
    offered = set(chosen) | set(others)
    kept = [line.strip() for line in edited.splitlines()]
    kept = [p for p in kept if p and not p.startswith("#")]
    unknown = [p for p in kept if p not in offered]
    if unknown:
        raise UsageError(f"--select: not among the files offered: {', '.join(unknown[:3])}")
    if not kept:
        raise UsageError("--select: no file left in the list; nothing to do")
    return tuple(f":(literal){p}" for p in dict.fromkeys(kept))


def _offer(
    repo: Repository, settings: Settings, base: str, request: str, specs: tuple[str, ...],
    model: str | None, tokens: int | None,
) -> tuple[list[str], list[str]]:  # fmt: skip
    """What --select offers: the ranked selection for ``request`` (within the budget the
    model would get), then every other file that may be sent."""
    from ..context import candidates, select
    from ..errors import ConfigError
    from ..llm import resolve_model
    from ..pipeline.context_choice import resolve_context

    commit = repo.resolve_commit(base)
    try:
        info = resolve_model(model, settings)
    except ConfigError:
        info = None
    budget = resolve_context(settings, tokens=tokens).budget_for(info)
    selection = select(repo, commit, request, budget, specs)
    chosen = [p.path for p in selection.picks]
    allowed, _ = candidates(repo, commit, specs)
    return chosen, sorted(set(allowed) - set(chosen))


@click.command("improve")
@click.argument("prompt", required=False)
@click.argument("pathspecs", nargs=-1)
@click.option("-f", "--prompt-file", metavar="FILE", help="Read the prompt from FILE (- = stdin).")
@model_option
@click.option("--base", default="HEAD", show_default=True, help="Commit the edit is based on.")
@click.option("-b", "--branch", help="Branch to create (default: gpte/<slug of the prompt>).")
@click.option("-n", "--dry-run", is_flag=True, help="Show files, token and cost estimate; no call.")
@click.option("-y", "--yes", is_flag=True, help="Do not ask before sending a large request.")
@click.option("--checkout", is_flag=True, help="Switch to the new branch afterwards, if safe.")
@click.option("--max-retries", type=click.IntRange(0, 10), default=2, show_default=True)
@click.option(
    "--edit-format",
    type=click.Choice(list(EDIT_FORMATS)),
    default=None,
    help="How the model writes its edits (default: GPTE_EDIT_FORMAT, gpte.editFormat, or the "
    "model's own: diff for hosted models, whole for local ones).",
)
@click.option("--image", "images", multiple=True, type=click.Path(exists=True, dir_okay=False))
@cache_option
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON on stdout.")
@click.option("--select", is_flag=True, help="Pick the files to send in $EDITOR (sent whole).")
@click.option(
    "--context",
    "context_mode",
    type=click.Choice(["auto", "all"]),
    default=None,
    help="auto: select what to send within --context-tokens (default); all: every file, whole.",
)
@click.option(
    "--context-tokens",
    type=click.IntRange(min=1),
    metavar="N",
    help="Token budget of the selected context (default: gpte.contextTokens, or 16384).",
)
@click.option(
    "--context-rounds",
    type=click.IntRange(0, 10),
    metavar="N",
    help="Times the model may ask for more files or symbols (default: gpte.contextRounds, or 2).",
)
@click.option(
    "--from-worktree",
    is_flag=True,
    help="Base the edit on your uncommitted changes (committed first on the new branch).",
)
@click.option(
    "--check",
    "check_cmd",
    metavar="CMD",
    help="A shell command the result must pass (e.g. 'pytest -q'), run in a temporary "
    "worktree of it; failures go back to the model. 'auto': the project's own tests and the "
    "changed modules' __main__ demos, failing only on what passes before the edit (default: "
    "GPTE_CHECK, gpte.check; auto for a self-hosted model).",
)
@click.option("--no-check", is_flag=True, help="Do not run the configured check command.")
@click.option(
    "--probe/--no-probe",
    default=None,
    help="Once a result passes the check, have the model write a script of asserts from the "
    "request alone; it must fail before the change and pass after it, or the result goes back "
    "to the model, and is committed with exit 1 if it still fails, or if no probe could judge "
    "a change of behaviour (default: GPTE_PROBE, gpte.probe; on for a self-hosted model).",
)
@click.option(
    "--keep-failing",
    is_flag=True,
    help="Commit a result that still fails --check or leaves broken Python (exit 1), "
    "instead of committing nothing.",
)
@on_branch_options
@click.pass_obj
def command(app: AppContext, /, **given: Any) -> int:
    """Ask the LLM for edits to the tracked files and commit them on a new branch.

    What is sent is selected from the files at --base (default HEAD), narrowed by PATHSPECs,
    within a token budget: the most relevant files whole, parts of further files as excerpts
    with their line numbers, and a map of the next ones; the model may ask for more. With
    --context all every file is sent whole. The reply's diffs are validated, corrected or
    refused, refused hunks are sent back up to --max-retries times, and the result is one
    commit on a new branch. Your working tree, index and current branch are untouched.

    --on BRANCH continues a branch git-gpte made ("-": the latest run's branch): the edit is
    based on its tip, the model is told the branch's earlier requests and commits, and the new
    commit is added to that branch, unless it moved meanwhile.
    """
    from ..git import Repository
    from ..git.config import load_settings
    from ..pipeline.improve import plan_improve, run_improve
    from ..ui import Console

    flags = Flags(**given).with_prompt_file_shift()
    flags.check_combinations()
    text = read_prompt(flags.prompt, flags.prompt_file)
    repo = Repository.discover(app.cwd)
    settings = load_settings(app.cwd, repo.root)
    if not flags.dry_run:
        _prefetch(settings, flags.model)
    console = Console(quiet=app.quiet or flags.as_json, verbose=app.verbose)
    request = _request(app, repo, settings, flags, text)
    prepared = plan_improve(repo, settings, request, console)
    if flags.dry_run:
        return _print_plan(app, prepared, flags.as_json)
    prepared.plan.check()
    _confirm(settings, prepared, flags.yes)
    try:
        result = run_improve(repo, settings, request, console, prepared)
    except GpteError as err:
        if flags.as_json:
            click.echo(json.dumps(_failure_json(repo, err), indent=2))
        raise
    _report(app, repo, prepared, result, flags, continued=request.continue_branch is not None)
    return result.exit_code


def _failure_json(repo: Repository, err: GpteError) -> dict[str, object]:
    """What ``--json`` prints when nothing was committed: the error, the exit code, and the
    run with what it spent (a script counting tokens counts refusals too)."""
    from ..llm.runlog import RunLog

    data: dict[str, object] = {
        "run_id": err.run_id,
        "branch": None,
        "commit": None,
        "error": err.render(),
        "exit_code": err.exit_code,
    }
    if err.run_id is not None:
        with contextlib.suppress(GpteError, OSError, sqlite3.Error):
            record = RunLog(repo.state_dir()).get(err.run_id)
            data.update(
                outcome=record.outcome,
                model=record.model,
                tokens_in=record.tokens_in,
                tokens_out=record.tokens_out,
                cost_usd=record.cost_usd,
                usage_exact=record.usage_exact,
                calls=record.calls,
                attempts=(record.meta.get("edits") or {}).get("attempts"),
            )
    return data


@dataclass(frozen=True)
class Flags:
    """The command line of one improve, as click gives it."""

    prompt: str | None
    pathspecs: tuple[str, ...]
    prompt_file: str | None
    model: str | None
    base: str
    branch: str | None
    dry_run: bool
    yes: bool
    checkout: bool
    max_retries: int
    edit_format: str | None
    images: tuple[str, ...]
    cache: bool
    as_json: bool
    select: bool
    from_worktree: bool
    on: str | None
    force_branch: bool
    context_mode: str | None
    context_tokens: int | None
    context_rounds: int | None
    check_cmd: str | None
    no_check: bool
    probe: bool | None
    keep_failing: bool

    def with_prompt_file_shift(self) -> Flags:
        """With --prompt-file, a first argument is a pathspec, not the prompt."""
        if self.prompt_file is not None and self.prompt is not None:
            return replace(self, pathspecs=(self.prompt, *self.pathspecs), prompt=None)
        return self

    def check_combinations(self) -> None:
        """Flags that cannot go together: a usage error before anything is read."""
        if self.on is not None:
            for flag, given in (("--branch", self.branch), ("--from-worktree", self.from_worktree)):
                if given:
                    raise UsageError(f"--on and {flag} cannot be combined")
            if self.base != "HEAD":
                raise UsageError(
                    "--on and --base cannot be combined (the base is the branch's tip)"
                )
        elif self.force_branch:
            raise UsageError("--force-branch only goes with --on BRANCH")
        if self.select and not interactive():
            raise UsageError("--select needs a terminal (it opens $EDITOR)")
        if self.dry_run and self.from_worktree:
            raise UsageError("--dry-run and --from-worktree cannot be combined")


def _request(
    app: AppContext, repo: Repository, settings: Settings, flags: Flags, text: str
) -> ImproveRequest:
    """What to ask for: the files (pathspecs, or those picked with --select), the base (the
    branch's tip with --on), the context, the check."""
    from ..pipeline.context_choice import resolve_context
    from ..pipeline.improve import ImproveRequest
    from ..pipeline.selection import DEFAULT_MAX_FILE_BYTES, to_top_pathspecs

    specs = tuple(to_top_pathspecs(repo, app.cwd, flags.pathspecs))
    base, continued, history = flags.base, None, ""
    if flags.on is not None:
        from ..pipeline.chain import history_text, load_chain

        chain = load_chain(repo, flags.on, force=flags.force_branch)
        base, continued, history = chain.tip, chain.branch, history_text(chain)
    mode = flags.context_mode
    if flags.select:
        chosen, others = _offer(
            repo, settings, base, text, specs, flags.model, flags.context_tokens
        )
        specs = pick_files_in_editor(chosen, others)
        mode = "all"  # the files picked are the ones to send
    context = resolve_context(
        settings, mode=mode, tokens=flags.context_tokens, rounds=flags.context_rounds
    )
    return ImproveRequest(
        prompt=text,
        pathspecs=specs,
        model=flags.model,
        base=base,
        branch=flags.branch,
        max_retries=flags.max_retries,
        edit_format=flags.edit_format,
        images=flags.images,
        cache=flags.cache,
        from_worktree=flags.from_worktree,
        max_file_bytes=settings.get_int(git="gpte.maxFileBytes", default=DEFAULT_MAX_FILE_BYTES),
        continue_branch=continued,
        history=history,
        context=context,
        check=None if flags.no_check else _check_command(settings, flags.check_cmd),
        keep_failing=flags.keep_failing,
        default_check=not flags.no_check,
        probe=_probe_setting(settings, flags.probe),
    )


def _confirm(settings: Settings, prepared: ImprovePlan, yes: bool) -> None:
    """Ask before a large request, at a terminal, unless --yes."""
    plan = prepared.plan
    limit = settings.get_int(git="gpte.confirmTokens", default=CONFIRM_TOKENS_DEFAULT)
    if not yes and interactive() and plan.tokens_estimate > limit:
        click.confirm(
            f"Send {len(plan.selection.files)} files (~{plan.tokens_estimate:,} tokens) "
            f"to {plan.model.name}?",
            default=True,
            abort=True,
            err=True,
        )


def _report(
    app: AppContext,
    repo: Repository,
    prepared: ImprovePlan,
    result: ImproveResult,
    flags: Flags,
    *,
    continued: bool,
) -> None:
    """The result (JSON or text), the switch to the branch with --checkout, the review hint."""
    if flags.as_json:
        click.echo(json.dumps(result.to_json(), indent=2))
    else:
        _print_result(app, repo, result, flags.checkout, continued=continued)
    if flags.checkout:
        worktree_commit = prepared.plan.base if prepared.worktree_changes else None
        _checkout(repo, result.branch, worktree_commit)
    if not flags.as_json:
        from ..feedback.hint import review_hint

        hint = review_hint(result.run_id, cwd=app.cwd)
        if hint:
            app.echo(hint)


def _print_plan(app: AppContext, prepared: ImprovePlan, as_json: bool) -> int:
    """--dry-run: what would be sent, to whom, at what size and cost; nothing is sent."""
    plan = prepared.plan
    if as_json:
        data = _plan_json(prepared)
        if app.verbose:
            data["messages"] = plan.messages
        click.echo(json.dumps(data, indent=2))
        return 0
    click.echo(f"dry run: nothing sent. Base {plan.base[:12]}, branch would be {prepared.branch}")
    _print_files(plan)
    _print_cost(plan)
    if app.verbose:
        for message in plan.messages:
            click.echo(f"\n----- {message['role']} -----\n{message['content']}")
    return 0


def _plan_json(prepared: ImprovePlan) -> dict[str, object]:
    from ..git.repo import display_path

    plan = prepared.plan
    shown = plan.shown
    data: dict[str, object] = {
        "base": plan.base,
        "branch": prepared.branch,
        "model": plan.model.name,
        "context": "all" if shown.everything else "selected",
        "files": {p: len(t.encode("utf-8")) for p, t in plan.selection.files.items()},
        "skipped": {display_path(p): why for p, why in plan.selection.skipped.items()},
        "tokens_in_estimate": plan.tokens_estimate,
        "tokens_exact": plan.tokens_exact,
        "cost_estimate_usd": plan.cost_estimate,
        "over_budget": plan.over_budget.render() if plan.over_budget else None,
        "edit_format": plan.edit_format,
        "edit_format_note": plan.format_note,
    }
    if shown.selection is not None:
        data["selection"] = shown.selection.to_json()
        data["sent"] = shown.summary()
        data["context_rounds"] = plan.rounds
    return data


def _print_files(plan: Plan) -> None:
    """The selection (ranked, with what is excerpted), or every file with --context all."""
    from ..context import describe
    from ..git.repo import display_path

    shown = plan.shown
    if shown.selection is not None:
        for line in describe(shown.selection):
            click.echo(line)
        extra = [p for p in shown.parts if p not in {k.path for k in shown.selection.picks}]
        for path in extra:
            part = shown.parts[path]
            what = "whole" if part.whole else ", ".join(f"{s}-{e}" for s, e in part.ranges)
            click.echo(f"  {path}  [{what}]  (named by the request)")
        if plan.rounds:
            click.echo(f"the model may ask for more, up to {plan.rounds} time(s)")
        return
    click.echo(f"files to send ({len(plan.selection.files)}):")
    for path, text in plan.selection.files.items():
        click.echo(f"  {path}  ({len(text.encode('utf-8')):,} bytes)")
    if plan.selection.skipped:
        click.echo(f"left out ({len(plan.selection.skipped)}):")
        for path, reason in plan.selection.skipped.items():
            click.echo(f"  {display_path(path)}  ({reason})")


def _print_cost(plan: Plan) -> None:
    """The model, the edit format, the size and the cost of the input."""
    from ..llm import Usage, format_tokens

    click.echo(f"model: {plan.model.name}{_family_note(plan.model)}")
    note = f" ({plan.format_note})" if plan.format_note else ""
    click.echo(f"edit format: {plan.edit_format}{note}")
    click.echo(f"to send: {format_tokens(plan.tokens_estimate, plan.tokens_exact)}")
    input_cost = Usage(plan.tokens_estimate, 0, plan.cost_estimate, plan.tokens_exact)
    if plan.cost_estimate is not None:
        click.echo(f"cost of the input: {input_cost.cost_text()} (the reply adds more)")
    else:
        click.echo("cost: unknown (no price for this model)")
    if plan.over_budget is not None:
        click.echo(f"too big: a real run would refuse this: {plan.over_budget.render()}")


def _prefetch(settings: Settings, model: str | None) -> None:
    """Import the model's SDK while the plan is made (an unknown model is said later)."""
    from ..errors import ConfigError
    from ..llm import resolve_model
    from ..llm.providers import prefetch

    with contextlib.suppress(ConfigError):
        prefetch(resolve_model(model, settings))


def _check_command(settings: Settings, flag: str | None) -> str | None:
    """--check, else GPTE_CHECK / git config gpte.check / TOML ``check``: set once per
    repository, every improve there is checked with it."""
    value = settings.get(flag=flag, env=("GPTE_CHECK",), git="gpte.check", toml=("check",))
    text = str(value).strip() if value is not None else ""
    return text or None


def _probe_setting(settings: Settings, flag: bool | None) -> bool | None:
    """--probe / --no-probe, else GPTE_PROBE / git config gpte.probe / TOML ``probe``; None:
    the model's default."""
    if settings.get(flag=flag, env=("GPTE_PROBE",), git="gpte.probe", toml=("probe",)) is None:
        return None
    return settings.get_bool(
        flag=flag, env=("GPTE_PROBE",), git="gpte.probe", toml=("probe",), default=False
    )


def _family_note(info: ModelInfo) -> str:
    """Said when a model is not listed under its own name but priced as its family."""
    if info.family and info.family != info.name:
        return f" (not listed itself: priced and limited as {info.family})"
    return ""


def _print_result(
    app: AppContext,
    repo: Repository,
    result: ImproveResult,
    checkout: bool,
    continued: bool = False,
) -> None:
    stat = repo.diff_stat(result.base, result.commit)
    head = repo.resolve_commit("HEAD")
    base_ref = "HEAD" if head == result.base else result.base[:12]
    click.echo(f"branch {result.branch}  (commit {result.commit[:12]} on {result.base[:12]})")
    if continued:
        click.echo(f"continued: see the chain with  git gpte log --branch {result.branch}")
    click.echo(stat)
    for line in result.corrected:
        click.echo(f"corrected: {line}")
    if result.refused:
        click.echo(f"refused hunks ({len(result.refused)}), not applied:")
        for line in result.refused:
            click.echo(f"  {line}")
    for problem in result.problems:
        click.echo(f"problem left: {problem.splitlines()[0]}")
    if result.refused or result.problems:
        click.echo(
            f"what applied is on {result.branch}; to ask for the rest there: "
            f'git gpte improve --on {result.branch} "..."'
        )
    if result.checked:
        click.echo(f"the result passes {' and '.join(result.checked_by)}")
    elif result.check and not result.problems:
        # A check was asked for (or the project's tests by default) and nothing could run
        # the result: say so, so that exit 0 is not read as a result that was tried.
        click.echo("not checked: nothing ran the result (see above why); read the diff first")
    click.echo(f"{result.usage.describe()}   run {result.run_id}")
    if not checkout:
        click.echo(f"look:  git diff {base_ref}...{result.branch}")
        click.echo(f"take:  git merge {result.branch}   (or: git switch {result.branch})")


def _checkout(repo: Repository, branch: str, worktree_commit: str | None = None) -> None:
    """Switch to the new branch the way git would, refusing rather than touching local work."""
    from ..errors import GitCommandError
    from ..git.checkout import switch_branch

    try:
        switch_branch(repo, branch, worktree_commit)
    except GitCommandError as exc:
        raise RepoError(
            f"branch {branch} was created, but switching to it is not safe: {exc.message}",
            hint="commit or stash your changes, then git switch " + branch,
        ) from None
    click.echo(f"switched to {branch}")
