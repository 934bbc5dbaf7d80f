"""One call for "run this commit": check, check out, execute, clean up.

This is the API ``git gpte run``, ``heal`` and the GitHub Action share::

    options = RunOptions.resolve(settings, entrypoint=..., command=..., timeout=..., docker=...)
    print(preview(repo, commit, options))          # show it, ask (see confirm.require_confirmation)
    result = run_commit(repo, commit, options, on_output=...)
    if not result.success:
        feedback = result.feedback_text()
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from ..errors import UsageError
from ..git.repo import Repository
from .command import RunCommand
from .environment import ExecutionEnvironment
from .options import RunOptions
from .process import OutputCallback
from .result import RunResult
from .scrub import scrub_environment
from .worktree import temporary_worktree

PREVIEW_MAX_LINES = 200


def check_entrypoint(repo: Repository, commit: str, command: RunCommand) -> bytes | None:
    """The entrypoint script's content at ``commit`` (None for a command line); a clear error
    naming it when it is missing there or is not a regular file."""
    if command.entrypoint is None:
        return None
    path = command.entrypoint
    entries = [e for e in repo.tree_entries(commit, (f":(literal){path}",)) if e.path == path]
    short = commit[:12]
    if not entries:
        hint = "use --entrypoint PATH or --command CMD"
        if command.source == "default":
            hint = f"commit a {path}, or {hint}"
        raise UsageError(f"entrypoint {path!r} does not exist at commit {short}", hint=hint)
    entry = entries[0]
    if not entry.is_regular:
        raise UsageError(
            f"entrypoint {path!r} at commit {short} is not a regular file (mode {entry.mode})"
        )
    return repo.read_blob(entry.sha)


def preview(
    repo: Repository, commit: str, options: RunOptions, *, max_lines: int = PREVIEW_MAX_LINES
) -> str:
    """What will run, for the confirmation prompt: where, how long at most, and the script's
    text (or the command line)."""
    environment = options.environment()
    content = check_entrypoint(repo, commit, options.command)
    lines = [
        f"git-gpte will run `{options.command.display}` (from {options.command.source})",
        f"  commit:  {commit[:12]} (a temporary worktree; your checkout is not touched)",
        f"  where:   {environment.describe()}",
        f"  timeout: {options.timeout:g} s; secrets are removed from the environment",
    ]
    if content is not None:
        text = content.decode("utf-8", errors="replace")
        body = text.splitlines()
        lines.append(f"--- {options.command.entrypoint} ({len(body)} line(s)) ---")
        lines.extend(body[:max_lines])
        if len(body) > max_lines:
            lines.append(f"[... {len(body) - max_lines} more line(s) not shown ...]")
        lines.append("---")
    return "\n".join(lines)


def run_commit(
    repo: Repository,
    commit: str,
    options: RunOptions,
    *,
    environment: ExecutionEnvironment | None = None,
    on_output: OutputCallback | None = None,
    environ: Mapping[str, str] | None = None,
) -> RunResult:
    """Run ``options.command`` on ``commit`` in a temporary worktree and return the result.

    A failing or timed-out program is a result, not an exception; exceptions are for what
    prevents running at all (missing entrypoint: UsageError; environment unusable:
    ConfigError; cannot start: RunError) and Ctrl-C (KeyboardInterrupt, after cleanup).
    """
    check_entrypoint(repo, commit, options.command)
    env_impl = environment if environment is not None else options.environment()
    env_impl.check()
    env, _removed = scrub_environment(os.environ if environ is None else environ, options.scrub)
    with temporary_worktree(repo, commit) as workdir:
        result = env_impl.execute(
            options.command,
            workdir,
            env=env,
            timeout=options.timeout,
            max_output_bytes=options.max_output_bytes,
            on_output=on_output,
        )
    return _finished(result, commit, workdir)


def _finished(result: RunResult, commit: str, workdir: Path) -> RunResult:
    """``result`` of ``commit``, its output naming files by their paths in the repository
    (``src/app.py``), not in the scratch checkout (``/tmp/gpte-run-…/wt/src/app.py``): the
    model, the user and a pull request comment all read them."""
    from dataclasses import replace

    text = result.output_tail
    for root in {str(workdir), os.path.realpath(workdir)}:
        text = text.replace(root + "/", "").replace(root, ".")
    return replace(result, commit=commit, output_tail=text)
