"""One bench task: a fresh repository, improve (and heal), then the hidden test, timed.

Each task gets its own temporary repository with the task's files committed, so tasks cannot
see each other and the user's repositories are never involved. The test runs through the
execution layer (temporary worktree, scrubbed environment, timeout with the process group
killed) on the produced commit with the hidden test files laid over it; after heal they are
laid over again, so a fix that edited the tests is judged by the originals.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError, EditError, GpteError, UnsafePathError
from ..git import FileChange, Repository, build_commit, format_message
from ..git.config import load_settings
from ..git.create import create_repository
from ..llm.usage import ZERO, Usage
from ..ui import Console
from .tasks import Task

if TYPE_CHECKING:
    from ..llm.session import Session

IDENTITY = ("git-gpte bench", "bench@git-gpte.invalid")


@dataclass
class BenchConfig:
    model: str | None = None
    heal: bool = False
    attempts: int = 3
    timeout: float = 60.0
    max_retries: int = 2
    keep: bool = False
    verbose: bool = False
    docker: bool = False


@dataclass
class TaskResult:
    name: str
    status: str  # solved | failed | error
    reason: str
    usage: Usage = ZERO
    seconds: float = 0.0
    heal_attempts: int = 0
    commit: str | None = None
    repository: str | None = None  # kept with --keep

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("usage")
        return {**data, **self.usage.to_json()}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TaskResult:
        """The result a report holds (checked by ``merge.read_report``), so merged and compared
        reports are summed and shown by the same code as a run."""
        usage = Usage(
            tokens_in=int(data.get("tokens_in", 0)),
            tokens_out=int(data.get("tokens_out", 0)),
            cost_usd=data.get("cost_usd"),
            exact=bool(data.get("usage_exact", True)),
        )
        return cls(
            name=str(data["name"]),
            status=str(data["status"]),
            reason=str(data.get("reason", "")),
            usage=usage,
            seconds=float(data.get("seconds", 0.0)),
            heal_attempts=int(data.get("heal_attempts", 0)),
            commit=data.get("commit"),
            repository=data.get("repository"),
        )


def run_task(task: Task, config: BenchConfig) -> TaskResult:
    """Run one task start to finish; failures of the model or the test are results.

    The task runs in one session (a ``bench`` run in the task repository's log, with improve
    and heal as its children), so its usage is known however the task ended.
    """
    from ..llm.session import Session

    started = time.monotonic()
    root = Path(tempfile.mkdtemp(prefix="gpte-bench-"))
    result = TaskResult(task.name, "error", "not started")
    repo: Repository | None = None
    session: Session | None = None
    try:
        base = init_repository(root, task)
        repo = Repository.discover(root)
        settings = load_settings(repo.root, repo.root)
        console = Console(quiet=not config.verbose, verbose=config.verbose)
        session = Session(
            repo.state_dir(),
            "bench",
            settings=settings,
            console=console,
            prompt=task.prompt,
            base=base,
            meta={"task": task.name},
        )
        with session:
            result = _solve(repo, base, task, config, session)
            outcome = {"solved": "ok", "failed": "failed"}.get(result.status, "error")
            session.finish(outcome, commit=result.commit, detail=result.reason or None)
    except ConfigError:
        raise  # the same for every task: stop the bench with one clear line
    except GpteError as exc:
        result = TaskResult(task.name, "error", exc.render())
    finally:
        if session is not None:
            result.usage = session.usage  # every model call the task made, failed ones too
        if repo is not None:
            repo.close()
        result.seconds = round(time.monotonic() - started, 2)
        if config.keep:
            result.repository = str(root)
        else:
            shutil.rmtree(root, ignore_errors=True)
    return result


def init_repository(root: Path, task: Task) -> str:
    """A repository at ``root`` on ``main`` with the task's files in one commit."""
    files = task.files or {"README.md": f"# {task.name}\n"}
    return create_repository(root, files, f"bench task {task.name}", IDENTITY)


def _solve(
    repo: Repository, base: str, task: Task, config: BenchConfig, session: Session
) -> TaskResult:
    from ..pipeline.improve import ImproveRequest, run_improve
    from ..run import RunOptions, run_commit

    settings, console = session.settings, session.console
    python = "python3" if config.docker else sys.executable
    command = task.test_command(python)
    options = RunOptions.resolve(
        settings,
        command=command,
        timeout=task.timeout or config.timeout,
        docker=config.docker or None,
    )
    produced: str | None = None
    no_edit = ""
    try:
        with session.child("improve", prompt=task.prompt, base=base) as child:
            improved = run_improve(
                repo,
                settings,
                ImproveRequest(
                    prompt=task.prompt,
                    model=config.model,
                    max_retries=config.max_retries,
                    identity=IDENTITY,
                    branch="bench/improve",
                ),
                console,
                session=child,
            )
        produced = improved.commit
    except (EditError, UnsafePathError) as exc:
        no_edit = exc.render()
        if not config.heal:
            return TaskResult(task.name, "failed", f"no usable edit: {no_edit}")
    tested = with_hidden_files(repo, produced or base, task)
    outcome = run_commit(repo, tested, options)
    heal_attempts = 0
    if not outcome.success and config.heal and config.attempts > 0:
        from ..pipeline.heal import HealRequest, run_heal

        healed = run_heal(
            repo,
            settings,
            HealRequest(
                command=command,
                attempts=config.attempts,
                base=tested,
                branch="bench/heal",
                prompt=task.prompt,
                timeout=options.timeout,
                model=config.model,
                identity=IDENTITY,
                docker=config.docker,
            ),
            console,
            parent=session,
        )
        heal_attempts = healed.attempts
        if healed.commit:
            produced = healed.commit
            outcome = run_commit(repo, with_hidden_files(repo, healed.commit, task), options)
    if outcome.success:
        return TaskResult(task.name, "solved", "", commit=produced, heal_attempts=heal_attempts)
    reason = f"test {outcome.status_text()}"
    last = _last_line(outcome.output_tail)
    if last and not outcome.timed_out:
        reason += f": {last}"
    if produced is None and no_edit:
        reason = f"no usable edit ({no_edit}); {reason}"
    return TaskResult(task.name, "failed", reason, commit=produced, heal_attempts=heal_attempts)


def with_hidden_files(repo: Repository, commit: str, task: Task) -> str:
    """``commit`` with the hidden test files (as the task has them) added on top."""
    hidden = task.hidden_files()
    if not hidden:
        return commit
    changes = [FileChange(path, content.encode("utf-8")) for path, content in hidden.items()]
    message = format_message("bench: add the hidden tests", "")
    return build_commit(repo, commit, changes, message, identity=IDENTITY, allow_empty=True)


def _last_line(text: str, width: int = 160) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return ""
    line = lines[-1]
    return line if len(line) <= width else line[: width - 1] + "…"
