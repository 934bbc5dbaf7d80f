"""Fetch and push with the token kept out of ``.git/config`` and away from generated code.

The token travels as an ``http.<server>/.extraheader`` set through ``GIT_CONFIG_COUNT`` /
``GIT_CONFIG_KEY_n`` / ``GIT_CONFIG_VALUE_n`` in the environment of the one git process that needs
it: not on a command line (visible in ``ps``), not in ``.git/config`` (readable by ``run.sh``). The
header is scoped to the GitHub server URL, so a remote rewritten to another host never receives it.
The remote URL is read once, before any generated code runs, and hooks are disabled for the push,
so a hook or config written by the program under test cannot intercept it.
"""

from __future__ import annotations

import base64
import os
import subprocess
from dataclasses import dataclass, field

from ..errors import GitHubError
from ..git import Repository


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

    def _env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_CONFIG_")}
        env["GIT_TERMINAL_PROMPT"] = "0"
        scope = f"http.{self.server_url.rstrip('/')}/.extraheader"
        entries = [(scope, "")]  # an empty value clears headers persisted by actions/checkout
        if self.token:
            basic = base64.b64encode(f"x-access-token:{self.token}".encode()).decode()
            entries.append((scope, f"AUTHORIZATION: basic {basic}"))
        entries.append(("core.hooksPath", os.devnull))
        env["GIT_CONFIG_COUNT"] = str(len(entries))
        for i, (key, value) in enumerate(entries):
            env[f"GIT_CONFIG_KEY_{i}"] = key
            env[f"GIT_CONFIG_VALUE_{i}"] = value
        return env

    def _git(self, *args: str, what: str) -> str:
        proc = subprocess.run(
            ["git", *args],
            cwd=self.repo.root,
            env=self._env(),
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0:
            err = (
                proc.stderr.strip().replace(self.token, "***")
                if self.token
                else proc.stderr.strip()
            )
            raise GitHubError(f"{what} failed (git exit {proc.returncode}): {err[-600:]}")
        return proc.stdout

    def branches(self, prefix: str) -> dict[str, str]:
        """Remote branches whose names start with ``prefix``: name -> commit."""
        out = self._git(
            "ls-remote",
            "--heads",
            self.url,
            f"refs/heads/{prefix}*",
            what="listing remote branches",
        )
        found = {}
        for line in out.splitlines():
            sha, _, ref = line.partition("\t")
            if ref.startswith("refs/heads/"):
                found[ref.removeprefix("refs/heads/")] = sha
        return found

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
        ref = f"refs/remotes/origin/{branch}"
        self._git(
            "fetch",
            "--no-tags",
            "--quiet",
            self.url,
            f"+refs/heads/{branch}:{ref}",
            what=f"fetching {branch}",
        )
        return self.repo.git_run("rev-parse", "--verify", f"{ref}^{{commit}}")

    def push(self, commit: str, branch: str, *, expect: str | None = None) -> None:
        """Push ``commit`` to ``branch``: create it (``expect`` None: must not exist) or move it
        forward from ``expect`` (a lease, so a concurrent push is never overwritten)."""
        lease = f"--force-with-lease=refs/heads/{branch}:{expect or ''}"
        self._git(
            "push",
            "--quiet",
            "--no-verify",
            lease,
            self.url,
            f"{commit}:refs/heads/{branch}",
            what=f"pushing {branch}",
        )
