"""A new repository with files in one commit (bench tasks start from one)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ..errors import GitCommandError, GpteError
from . import _process
from .commit import identity_env
from .env import git_environment

# The user's hooks and signing setup are not for a scratch repository.
_QUIET = ("-c", "core.hooksPath=/dev/null", "-c", "commit.gpgSign=false")


def create_repository(
    root: Path, files: Mapping[str, str], message: str, identity: tuple[str, str]
) -> str:
    """``git init`` at ``root`` on ``main``, ``files`` written and committed; the commit id."""
    for path, content in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
    env = git_environment(extra=identity_env(*identity))
    commands: list[tuple[str, ...]] = [
        ("init", "-q", "-b", "main"),
        ("add", "-A"),
        ("commit", "-q", "--no-verify", "-m", message),
    ]
    try:
        for args in commands:
            _process.run([*_QUIET, *args], cwd=root, env=env)
        return _process.run(["rev-parse", "HEAD"], cwd=root, env=env)
    except GitCommandError as exc:
        raise GpteError(f"cannot set up the repository at {root}: {exc.message}") from None
