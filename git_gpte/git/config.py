"""git's configuration as git-gpte reads it: the ``gpte.*`` keys, and settings built on them.

Read without a :class:`~git_gpte.git.repo.Repository`, so commands that have none yet
(``sysinfo``, a review hint) stay cheap. ``Settings`` itself lives below the git layer and
knows nothing of git; this is where the two meet.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..config import Settings, read_toml_config
from ..errors import GitCommandError
from . import _process
from .env import git_environment


def read_gpte_config(cwd: str | os.PathLike[str]) -> dict[str, str]:
    """All ``gpte.*`` keys visible from ``cwd`` (repository, global), names lower-cased."""
    if not os.path.isdir(cwd):
        return {}
    try:
        out = _process.run(
            ["config", "-z", "--get-regexp", r"^gpte\."],
            cwd=cwd,
            env=git_environment(),
            strip=False,
        )
    except GitCommandError:  # no such key (exit 1), or no git at all
        return {}
    values: dict[str, str] = {}
    for record in out.split("\0"):
        if not record:
            continue
        key, _, value = record.partition("\n")
        values[key.lower()] = value
    return values


def load_settings(cwd: str | os.PathLike[str], root: Path | None = None) -> Settings:
    """Settings for a command run in ``cwd`` (``root``: the work tree, for the TOML files)."""
    return Settings(root=root, git=read_gpte_config(cwd), toml=read_toml_config(root))


def git_version() -> str:
    """``git --version`` without the prefix; "not found" when git cannot be run."""
    try:
        out = _process.run(["--version"], cwd=os.getcwd(), env=git_environment())
    except GitCommandError:
        return "not found"
    return out.strip().removeprefix("git version ") or "unknown"


def pager(cwd: str | os.PathLike[str]) -> str:
    """The pager git itself would use here (``git var GIT_PAGER``); "" when git cannot say."""
    try:
        out = _process.run(["var", "GIT_PAGER"], cwd=cwd, env=git_environment())
    except GitCommandError:
        return ""
    return out.strip()


def inside_work_tree(cwd: str | os.PathLike[str]) -> bool:
    """True when ``cwd`` is inside a git work tree."""
    try:
        out = _process.run(["rev-parse", "--is-inside-work-tree"], cwd=cwd, env=git_environment())
    except GitCommandError:
        return False
    return out.strip() == "true"
