"""The Action's remote: fetch and push with the token kept out of ``.git/config`` and away
from generated code (the git layer's :mod:`git_gpte.git.remote` does the git part).

The token travels as an ``http.<server>/.extraheader`` set through ``GIT_CONFIG_COUNT`` /
``GIT_CONFIG_KEY_n`` / ``GIT_CONFIG_VALUE_n`` in the environment of the one git process that needs
it: not on a command line (visible in ``ps``), not in ``.git/config`` (readable by ``run.sh``). The
header is scoped to the GitHub server URL, so a remote rewritten to another host never receives it.
The remote URL is read once, before any generated code runs, and hooks are disabled for the push,
so a hook or config written by the program under test cannot intercept it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import GitCommandError, GitHubError
from ..git import Repository
from ..git.remote import fetch_branch, ls_remote_heads, push_branch


@dataclass
class Remote:
    repo: Repository
    url: str
    server_url: str
    token: str = field(repr=False)

    @classmethod
    def origin(cls, repo: Repository, server_url: str, token: str) -> Remote:
        url = repo.config_get("remote.origin.url")
        if not url:
            raise GitHubError(
                "the repository has no remote 'origin' to push to",
                hint="check out the repository with actions/checkout",
            )
        return cls(repo, url, server_url, token)

    def branches(self, prefix: str) -> dict[str, str]:
        """Remote branches whose names start with ``prefix``: name -> commit."""
        try:
            return ls_remote_heads(self.repo, self.url, f"{prefix}*", self.server_url, self.token)
        except GitCommandError as exc:
            raise GitHubError(f"listing remote branches failed: {exc.message[-600:]}") from None

    def free_branch(self, stem: str) -> str:
        """``stem``, else ``stem-2``, ``stem-3``, ...: the first name the remote does not have."""
        taken = self.branches(stem)
        name, n = stem, 1
        while name in taken:
            n += 1
            name = f"{stem}-{n}"
        return name

    def fetch(self, branch: str) -> str:
        """Fetch ``branch`` into ``refs/remotes/origin/<branch>``; its commit id."""
        try:
            return fetch_branch(self.repo, self.url, branch, self.server_url, self.token)
        except GitCommandError as exc:
            raise GitHubError(f"fetching {branch} failed: {exc.message[-600:]}") from None

    def push(self, commit: str, branch: str, *, expect: str | None = None) -> None:
        """Push ``commit`` to ``branch``: create it (``expect`` None: must not exist) or move it
        forward from ``expect`` (a lease, so a concurrent push is never overwritten)."""
        try:
            push_branch(self.repo, self.url, commit, branch, expect, self.server_url, self.token)
        except GitCommandError as exc:
            raise GitHubError(f"pushing {branch} failed: {exc.message[-600:]}") from None
