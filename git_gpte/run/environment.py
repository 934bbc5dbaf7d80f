"""Where a command runs: the execution-environment interface and the local implementation.

An environment is given a checkout directory, a command, the scrubbed environment variables and
the limits, and returns a :class:`RunResult`. It does not create or remove the checkout (the
runner owns the temporary worktree) and it never raises for a failing program — only for one
that cannot be started at all (:class:`~git_gpte.errors.RunError`) or an environment that is not
usable (:class:`~git_gpte.errors.ConfigError` from :meth:`check`).
"""

from __future__ import annotations

import abc
from collections.abc import Mapping
from pathlib import Path

from .capture import DEFAULT_MAX_OUTPUT_BYTES
from .command import RunCommand
from .process import DEFAULT_KILL_GRACE, OutputCallback, ProcessOutcome, run_process
from .result import RunResult


class ExecutionEnvironment(abc.ABC):
    """One way of running a command in a checkout, with a deadline and bounded output."""

    name: str = "environment"

    def check(self) -> None:  # noqa: B027 - optional hook, nothing to check by default
        """Raise ConfigError when this environment cannot be used here (before any prompt)."""

    @abc.abstractmethod
    def execute(
        self,
        command: RunCommand,
        workdir: Path,
        *,
        env: Mapping[str, str],
        timeout: float,
        max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
        on_output: OutputCallback | None = None,
    ) -> RunResult:
        """Run ``command`` with ``workdir`` as its current directory and wait for it."""

    def describe(self) -> str:
        """A few words for the confirmation prompt ("on this machine", "in Docker image …")."""
        return self.name


class LocalEnvironment(ExecutionEnvironment):
    """Run on this machine, as the current user, in the checkout directory."""

    name = "local"

    def __init__(self, *, kill_grace: float = DEFAULT_KILL_GRACE) -> None:
        self.kill_grace = kill_grace

    def describe(self) -> str:
        return "on this machine, as your user"

    def execute(
        self,
        command: RunCommand,
        workdir: Path,
        *,
        env: Mapping[str, str],
        timeout: float,
        max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
        on_output: OutputCallback | None = None,
    ) -> RunResult:
        full_env = dict(env)
        full_env["PWD"] = str(workdir)
        outcome = run_process(
            command.argv,
            cwd=workdir,
            env=full_env,
            timeout=timeout,
            max_output_bytes=max_output_bytes,
            kill_grace=self.kill_grace,
            on_output=on_output,
        )
        return to_result(outcome, command, timeout, self.name)


def to_result(
    outcome: ProcessOutcome, command: RunCommand, timeout: float, where: str
) -> RunResult:
    return RunResult(
        exit_code=outcome.exit_code,
        timed_out=outcome.timed_out,
        duration=outcome.duration,
        output_tail=outcome.output_tail,
        output_bytes=outcome.output_bytes,
        truncated=outcome.truncated,
        command=command.display,
        omitted_lines=outcome.omitted_lines,
        timeout=timeout,
        environment=where,
    )
