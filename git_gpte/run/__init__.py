"""Executing the program under test: temporary worktree, environment, timeout, capture.

Public API (used by ``git gpte run``, ``heal`` and the GitHub Action)::

    from git_gpte.run import RunOptions, preview, require_confirmation, run_commit

    options = RunOptions.resolve(settings, entrypoint=None, command=None, timeout=None, docker=None)
    require_confirmation(preview(repo, commit, options), yes=yes)
    result = run_commit(repo, commit, options, on_output=None)
    result.success, result.exit_code, result.timed_out, result.feedback_text()
"""

from __future__ import annotations

from .capture import DEFAULT_MAX_OUTPUT_BYTES, TailBuffer
from .command import DEFAULT_ENTRYPOINT, RunCommand
from .confirm import require_confirmation
from .docker import DockerEnvironment
from .environment import ExecutionEnvironment, LocalEnvironment
from .options import DEFAULT_TIMEOUT, RunOptions
from .process import ProcessOutcome, run_process
from .result import RunResult
from .runner import check_entrypoint, preview, run_commit
from .scrub import is_secret_name, parse_name_list, scrub_environment
from .worktree import temporary_worktree

__all__ = [
    "DEFAULT_ENTRYPOINT",
    "DEFAULT_MAX_OUTPUT_BYTES",
    "DEFAULT_TIMEOUT",
    "DockerEnvironment",
    "ExecutionEnvironment",
    "LocalEnvironment",
    "ProcessOutcome",
    "RunCommand",
    "RunOptions",
    "RunResult",
    "TailBuffer",
    "check_entrypoint",
    "is_secret_name",
    "parse_name_list",
    "preview",
    "require_confirmation",
    "run_commit",
    "run_process",
    "scrub_environment",
    "temporary_worktree",
]
