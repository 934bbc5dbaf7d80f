"""Talking to a remote with a token that only one git process ever sees.

The token travels as an ``http.<server>/.extraheader`` set through ``GIT_CONFIG_COUNT`` /
``GIT_CONFIG_KEY_n`` / ``GIT_CONFIG_VALUE_n`` in the environment of the one git process that
needs it: not on a command line (visible in ``ps``), not in ``.git/config`` (readable by the
program under test). The header is scoped to the server's URL, so a remote rewritten to another
host never receives it; hooks are disabled, so a hook written by the program cannot intercept
the push. The token is masked in every error message.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Sequence

from . import _process
from .env import git_environment
from .repo import Repository


def _token_config(server_url: str, token: str) -> list[tuple[str, str]]:
    scope = f"http.{server_url.rstrip('/')}/.extraheader"
    entries = [(scope, "")]  # an empty value clears headers persisted by actions/checkout
    if token:
        basic = base64.b64encode(f"x-access-token:{token}".encode()).decode()
        entries.append((scope, f"AUTHORIZATION: basic {basic}"))
    entries.append(("core.hooksPath", os.devnull))
    return entries


def run_with_token(repo: Repository, args: Sequence[str], server_url: str, token: str) -> str:
    """``git <args>`` (fetch, push, ls-remote) authenticated for ``server_url`` with ``token``
    in this process's environment only. Raises GitCommandError with the token masked."""
    env = git_environment(
        repo._location, {"GIT_TERMINAL_PROMPT": "0"}, config=_token_config(server_url, token)
    )
    return _process.run(args, cwd=repo.root, env=env, strip=False, secret=token or None)


def ls_remote_heads(
    repo: Repository, url: str, pattern: str, server_url: str, token: str
) -> dict[str, str]:
    """Branches of ``url`` matching ``refs/heads/<pattern>``: name -> commit."""
    out = run_with_token(
        repo, ["ls-remote", "--heads", url, f"refs/heads/{pattern}"], server_url, token
    )
    found = {}
    for line in out.splitlines():
        sha, _, ref = line.partition("\t")
        if ref.startswith("refs/heads/"):
            found[ref.removeprefix("refs/heads/")] = sha
    return found


def fetch_branch(repo: Repository, url: str, branch: str, server_url: str, token: str) -> str:
    """Fetch ``branch`` into ``refs/remotes/origin/<branch>``; its commit id."""
    ref = f"refs/remotes/origin/{branch}"
    run_with_token(
        repo,
        ["fetch", "--no-tags", "--quiet", url, f"+refs/heads/{branch}:{ref}"],
        server_url,
        token,
    )
    return repo._git("rev-parse", "--verify", f"{ref}^{{commit}}")


def push_branch(
    repo: Repository,
    url: str,
    commit: str,
    branch: str,
    expect: str | None,
    server_url: str,
    token: str,
) -> None:
    """Push ``commit`` to ``branch``: create it (``expect`` None: it must not exist) or move it
    from ``expect`` (a lease, so a concurrent push is never overwritten)."""
    lease = f"--force-with-lease=refs/heads/{branch}:{expect or ''}"
    run_with_token(
        repo,
        ["push", "--quiet", "--no-verify", lease, url, f"{commit}:refs/heads/{branch}"],
        server_url,
        token,
    )
