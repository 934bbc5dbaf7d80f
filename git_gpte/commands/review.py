"""``git gpte review [RUN_ID]``: record what you thought of a run — locally, with consent."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from ..cli import AppContext
from ..errors import UsageError

if TYPE_CHECKING:
    from ..feedback import Asker
    from ..git import Repository
    from ..llm import RunLog, RunRecord


def _now() -> str:
    """UTC time to the millisecond, so two reviews in one second keep their order."""
    from datetime import datetime, timezone

    stamp = datetime.now(timezone.utc).isoformat(timespec="milliseconds")
    return stamp.replace("+00:00", "Z")


@click.command("review")
@click.argument("run_id", required=False, metavar="[RUN_ID]")
@click.option(
    "--yes",
    "consent_yes",
    is_flag=True,
    help="Consent to keeping review records in this repository (sets gpte.feedback true).",
)
@click.option(
    "--no",
    "consent_no",
    is_flag=True,
    help="Refuse: set gpte.feedback false and record nothing.",
)
@click.option(
    "--export",
    "export_file",
    metavar="FILE",
    help="Write every review record as JSON lines to FILE (- = stdout) and exit.",
)
@click.pass_obj
def command(
    app: AppContext,
    run_id: str | None,
    consent_yes: bool,
    consent_no: bool,
    export_file: str | None,
) -> int:
    """Say whether a run's code ran, was perfect and was useful (default: the latest run).

    Consent is asked once per repository and kept in 'git config gpte.feedback'. Answers are
    y (yes), n (no) or u (don't know), plus an optional comment; when standard input is not a
    terminal, one line of it answers each question. The record (run id, model, prompt,
    answers, comment, time and an anonymous install id) is stored as a git note on the run's
    commit (git notes --ref gpte show COMMIT) and in the run log under .git/gpte/. Nothing is
    ever sent anywhere.
    """
    from ..feedback import Asker, all_records, export_records, set_consent
    from ..git import Repository

    if consent_yes and consent_no:
        raise UsageError("give --yes or --no, not both")
    repo = Repository.discover(app.cwd)
    if export_file is not None:
        if run_id is not None:
            raise UsageError("--export writes every record; it takes no RUN_ID")
        count = export_records(all_records(repo), export_file)
        if export_file != "-":
            app.echo(f"wrote {count} review record(s) to {export_file}", err=True)
        return 0
    if consent_no:
        set_consent(repo, False)
        app.echo(
            "feedback is off for this repository: nothing recorded "
            "(git config gpte.feedback false; turn it on with git gpte review --yes)",
            err=True,
        )
        return 0
    run = _the_run(repo, run_id)
    asker = Asker()
    if not _consented(app, repo, asker, consent_yes):
        return 0
    _record(app, repo, run, asker)
    return 0


def _the_run(repo: Repository, run_id: str | None) -> RunRecord:
    """The run to review: ``run_id``, else the newest a person started."""
    from ..llm.runlog import RunLog

    log = RunLog(repo.state_dir())
    try:
        run = log.get(run_id) if run_id is not None else _latest_reviewable(log)
    finally:
        log.close()
    if run is None:
        raise UsageError(
            "no runs recorded yet: nothing to review", hint='run git gpte improve "..." first'
        )
    return run


def _consented(app: AppContext, repo: Repository, asker: Asker, consent_yes: bool) -> bool:
    """Whether a record may be kept: --yes says so; else the repository's answer, asked once."""
    from ..feedback import ask_consent, consent, set_consent

    if consent_yes:
        set_consent(repo, True)
        return True
    allowed = consent(repo)
    if allowed is False:
        app.echo(
            "feedback is off for this repository (git config gpte.feedback false): "
            "nothing recorded; turn it on with git gpte review --yes",
            err=True,
        )
        return False
    if allowed is None:
        allowed = ask_consent(asker)
        set_consent(repo, allowed)
        if not allowed:
            app.echo(
                "nothing recorded, and you will not be asked again "
                "(git config gpte.feedback false)",
                err=True,
            )
    return allowed


def _record(app: AppContext, repo: Repository, run: RunRecord, asker: Asker) -> None:
    """Ask the three questions about ``run`` and keep the answers (a git note, the run log)."""
    from .. import __version__
    from ..feedback import FeedbackRecord, ask_review, install_id, save_record

    where = f"commit {run.commit[:12]}" if run.commit else "no commit"
    click.echo(
        f"run {run.id}: {run.command} with {run.model or 'unknown model'}, {run.outcome}, {where}",
        err=True,
    )
    prompt = run.prompt.strip().splitlines()
    if prompt:
        click.echo(f"  prompt: {prompt[0][:100]}", err=True)
    answers = ask_review(asker)
    record = FeedbackRecord(
        run_id=run.id,
        command=run.command,
        model=run.model,
        prompt=run.prompt,
        outcome=run.outcome,
        commit=run.commit,
        branch=run.branch,
        ran=answers.ran,
        perfect=answers.perfect,
        useful=answers.useful,
        comment=answers.comment,
        reviewed_at=_now(),
        install_id=install_id(repo),
        git_gpte=__version__,
    )
    saved = save_record(repo, record)
    if saved.note_commit:
        app.echo(
            f"recorded: git note on {saved.note_commit[:12]} "
            f"(git notes --ref gpte show {saved.note_commit[:12]}) and in .git/gpte/runs.sqlite",
            err=True,
        )
    else:
        app.echo(
            f"recorded in the run log (.git/gpte/runs.sqlite) only: {saved.reason}",
            err=True,
        )
    app.echo("nothing was sent anywhere; share it with git gpte review --export FILE", err=True)


def _latest_reviewable(log: RunLog) -> RunRecord | None:
    """The newest run a person started: a heal's own fix attempts belong to the heal run."""
    for record in log.list(limit=100):
        if record.command != "heal-attempt":
            return log.get(record.id)
    return log.latest()
