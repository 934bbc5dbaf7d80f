"""Continuing a branch git-gpte made (``improve --on BRANCH``, ``heal --on BRANCH``).

People rarely take a model's first answer: they say "now also …". A chain is a branch plus the
runs that built it. Continuing it means: the edit is based on the branch's tip, the model is told
the earlier requests of the branch and what its commits changed (within a budget, newest kept),
and the new commit is added to the same branch with a compare-and-swap, so a branch that moved
while the model worked is refused, never overwritten.

A branch counts as git-gpte's when the run log holds a run that recorded it and whose commit is
still in the branch's history. Anything else (a branch a person made, one whose git-gpte commits
were rewritten away) is refused unless the caller forces it: continuing someone's branch is a
decision, not a default.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import RepoError, UsageError
from ..git import Repository
from ..git.branch import check_branch_name, checked_out_at
from ..llm.runlog import RunLog, RunRecord

HISTORY_CHARS = 6000  # about 1,500 tokens: the files themselves are what the model needs most
MAX_FILES_LISTED = 12
# Runs whose prompt was written by git-gpte from other runs (heal's spec, an attempt's failure
# report), not asked by a person: their commits are listed, their prompts are not requests.
DERIVED_PROMPTS = frozenset({"heal", "heal-attempt"})


@dataclass(frozen=True)
class BranchCommit:
    sha: str
    subject: str
    files: tuple[str, ...]


@dataclass
class Chain:
    """A branch to continue: its tip, the runs that made it (oldest first), and its commits since
    the chain began (oldest first; every commit on the branch when no run tells where it began)."""

    branch: str
    tip: str
    runs: list[RunRecord] = field(default_factory=list)
    commits: list[BranchCommit] = field(default_factory=list)

    @property
    def made_by_gpte(self) -> bool:
        return bool(self.runs)


def resolve_on(repo: Repository, name: str) -> str:
    """``-`` is the branch of the latest run in this repository (as ``git switch -`` is the
    previous branch); any other name is taken as given."""
    if name != "-":
        return name
    log = RunLog(repo.state_dir())
    try:
        latest = log.latest_branch()
    finally:
        log.close()
    if latest is None:
        raise UsageError(
            "--on -: no run in this repository has made a branch yet",
            hint="name the branch: --on BRANCH",
        )
    return latest


def _ancestor(repo: Repository, commit: str, tip: str) -> bool:
    return repo.is_ancestor(commit, tip)


def _commits(repo: Repository, since: str | None, tip: str, limit: int = 50) -> list[BranchCommit]:
    return [BranchCommit(*found) for found in repo.commits_with_files(since, tip, limit)]


def load_chain(repo: Repository, name: str, *, force: bool = False) -> Chain:
    """The chain of branch ``name`` (``-``: the latest run's), checked for continuing: it must
    exist, not be checked out anywhere (moving it would change that checkout under the user),
    and have been made by git-gpte unless ``force``."""
    branch = check_branch_name(repo, resolve_on(repo, name))
    tip = repo.branch_tip(branch)
    if not tip:
        raise RepoError(f"no branch {branch!r} to continue", hint="see git branch --list 'gpte/*'")
    where = checked_out_at(repo, branch)
    if where is not None:
        raise RepoError(
            f"branch {branch!r} is checked out (in {where}); git-gpte will not move a branch "
            "under a checkout",
            hint="switch to another branch there first (git switch -), then run again",
        )
    log = RunLog(repo.state_dir())
    try:
        recorded = log.on_branch(branch)
    finally:
        log.close()
    runs = [r for r in recorded if r.commit and _ancestor(repo, r.commit, tip)]
    if not runs and not force:
        raise RepoError(
            f"branch {branch!r} was not made by git-gpte (no run in the log made its commits)",
            hint="--force-branch continues it anyway",
        )
    # Where the chain began: the base of its first run; without one, the last few commits are
    # still the best account of what was done on the branch.
    since = next((r.base for r in runs if r.base and _ancestor(repo, r.base, tip)), None)
    commits = _commits(repo, since, tip, limit=50 if since else 5)
    return Chain(branch, tip, runs, commits)


def history_text(chain: Chain, max_chars: int = HISTORY_CHARS) -> str:
    """What the model is told about the branch so far: the earlier requests and the commits,
    oldest first; when over ``max_chars`` the oldest entries give way (the latest matter most)."""
    requests = [
        r.prompt.strip()
        for r in chain.runs
        if r.prompt.strip() and r.command not in DERIVED_PROMPTS
    ]
    blocks: list[str] = []
    for n, text in enumerate(requests, 1):
        blocks.append(f"Request {n}:\n" + "\n".join(f"    {line}" for line in text.splitlines()))
    for c in chain.commits:
        files = ", ".join(c.files[:MAX_FILES_LISTED])
        more = (
            f" and {len(c.files) - MAX_FILES_LISTED} more"
            if len(c.files) > MAX_FILES_LISTED
            else ""
        )
        blocks.append(f"Commit {c.sha[:12]} {c.subject}" + (f" ({files}{more})" if files else ""))
    kept: list[str] = []
    used = 0
    for block in reversed(blocks):
        if used + len(block) > max_chars and kept:
            kept.append(f"[{len(blocks) - len(kept)} earlier entries left out]")
            break
        kept.append(block[:max_chars])
        used += len(block)
    return "\n".join(reversed(kept))


def chain_spec(chain: Chain) -> str | None:
    """What ``heal --on`` heals toward: the branch's requests and commits (None: nothing known)."""
    text = history_text(chain)
    return text or None


def chained_instruction(request: str, history: str, branch: str) -> str:
    """The instruction for a continued branch: what came before, then the new request."""
    if not history.strip():
        return request
    return (
        f"You are continuing work on the branch {branch}. The files below are the branch as it "
        "is now, after the earlier requests and commits listed here:\n\n"
        f"{history.rstrip()}\n\n"
        "The new request, to be done on top of that work (keep what was done unless the request "
        f"says otherwise):\n\n{request.strip()}\n"
    )
