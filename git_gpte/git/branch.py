"""Branch names derived from prompts, and create-only branch creation.

A branch is created with ``update-ref <ref> <new> <zero>``, which git refuses when the ref
already exists, so two runs racing for one name cannot overwrite each other's work.
"""

from __future__ import annotations

import re
import unicodedata

from ..errors import BranchExists, GitCommandError, UsageError
from .repo import Repository

DEFAULT_PREFIX = "gpte/"
MAX_SLUG = 48
_STOP_WORDS = {"a", "an", "the", "to", "of", "and", "in", "for", "please"}


def slugify(text: str, limit: int = MAX_SLUG) -> str:
    """``"Add logging to the CLI!"`` -> ``"add-logging-cli"``: ASCII, lower case, hyphens."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    words = re.findall(r"[a-z0-9]+", ascii_text.lower())
    kept = [w for w in words if w not in _STOP_WORDS] or words
    slug = ""
    for word in kept:
        candidate = f"{slug}-{word}" if slug else word
        if len(candidate) > limit:
            break
        slug = candidate
    return slug or (kept[0][:limit] if kept else "edit")


def branch_from_prompt(prompt: str, prefix: str = DEFAULT_PREFIX) -> str:
    return f"{prefix}{slugify(prompt)}"


# Git stores a branch as a file per name component (plus ``.lock`` while writing): a component
# longer than the file system's usual 255-byte limit is refused up front, not at the commit.
MAX_COMPONENT_BYTES = 200
_VALID: set[str] = set()


def check_branch_name(repo: Repository, name: str) -> str:
    """The name if git accepts it as a new branch's name, else a clear error.

    ``check-ref-format`` runs on the full ref, so the shorthands ``--branch`` would expand
    (``@``, ``@{-1}``) are names, not references to the current or previous branch.
    """
    shown = name if len(name) <= 60 else name[:57] + "..."
    if not name.strip() or name in ("@", "HEAD") or name.startswith("-"):
        raise UsageError(f"{shown!r} is not a valid branch name")
    if name not in _VALID:
        try:
            repo._git("check-ref-format", f"refs/heads/{name}")
        except GitCommandError:
            raise UsageError(f"{shown!r} is not a valid branch name") from None
        _VALID.add(name)  # git's rules for a name do not change within a run
    longest = max(len(part.encode("utf-8")) for part in name.split("/"))
    if longest > MAX_COMPONENT_BYTES:
        raise UsageError(
            f"branch name {shown!r} is too long ({longest} bytes in one part; "
            f"at most {MAX_COMPONENT_BYTES})"
        )
    return name


def require_new_branch(
    repo: Repository, name: str, hint: str = "choose another name with --branch"
) -> str:
    """The name if it is valid and no branch has it yet: checked before any work is spent
    (:func:`create_branch` checks again, atomically, when the commit exists)."""
    check_branch_name(repo, name)
    if repo.ref_exists(f"refs/heads/{name}"):
        raise BranchExists(f"branch {name!r} already exists", hint=hint)
    clash = _prefix_clash(repo, name)
    if clash:
        raise BranchExists(
            f"branch {name!r} cannot be created: branch {clash!r} exists "
            "(git cannot have both a/ and a/b)",
            hint=hint,
        )
    return name


def branch_names(repo: Repository) -> set[str]:
    """Every local branch, in one ``for-each-ref``."""
    out = repo._git("for-each-ref", "--format=%(refname)", "refs/heads/")
    return {line.removeprefix("refs/heads/") for line in out.splitlines() if line}


def _clashes(name: str, names: set[str]) -> str | None:
    """The branch in ``names`` that keeps ``name`` from being created: itself, ``a`` for
    ``a/b`` (a D/F clash), or a branch under ``name/``."""
    if name in names:
        return name
    parts = name.split("/")
    for i in range(1, len(parts)):
        prefix = "/".join(parts[:i])
        if prefix in names:
            return prefix
    below = sorted(n for n in names if n.startswith(name + "/"))
    return below[0] if below else None


def unique_branch(repo: Repository, name: str) -> str:
    """``name``, or ``name-2``, ``name-3``… whichever can be created (the branches are listed
    once, not asked about one candidate at a time)."""
    check_branch_name(repo, name)
    names = branch_names(repo)
    candidate, n = name, 1
    while _clashes(candidate, names):
        n += 1
        candidate = f"{name}-{n}"
    return candidate


def _prefix_clash(repo: Repository, name: str) -> str | None:
    """The existing branch that keeps ``name`` from being created: ``a`` for ``a/b``, or
    ``a/b`` for ``a``."""
    clash = _clashes(name, branch_names(repo))
    return clash if clash != name else None


def create_branch(repo: Repository, name: str, commit: str, reason: str = "git-gpte") -> str:
    """Point a new branch at ``commit``; fail, changing nothing, if the branch exists.

    ``update-ref <ref> <new> <zero>`` refuses an existing ref (and a name clashing with one),
    atomically: only when it does are the branches looked at, to say why."""
    check_branch_name(repo, name)
    ref = f"refs/heads/{name}"
    zero = "0" * len(commit)
    try:
        repo._git("update-ref", "-m", reason, ref, commit, zero)
    except GitCommandError as exc:
        clash = _clashes(name, branch_names(repo))
        if clash == name:
            raise BranchExists(
                f"branch {name!r} already exists",
                hint="choose another with --branch (git branch -d deletes it only if it is "
                "merged)",
            ) from None
        if clash is not None:
            raise BranchExists(
                f"branch {name!r} cannot be created: branch {clash!r} exists "
                "(git cannot have both a/ and a/b)"
            ) from None
        raise exc
    return name


def advance_branch(
    repo: Repository, name: str, new: str, expected_old: str, reason: str = "git-gpte"
) -> str:
    """Move an existing branch from ``expected_old`` to ``new``; fail, changing nothing, if the
    branch has moved meanwhile (``update-ref <ref> <new> <old>`` is a compare-and-swap)."""
    check_branch_name(repo, name)
    ref = f"refs/heads/{name}"
    try:
        repo._git("update-ref", "-m", reason, ref, new, expected_old)
    except GitCommandError:
        raise BranchExists(
            f"branch {name!r} is no longer at {expected_old[:12]}; it was changed meanwhile",
            hint="nothing was overwritten; look at the branch and run again",
        ) from None
    return name


def checked_out_at(repo: Repository, name: str) -> str | None:
    """The worktree (this one or a linked one) that has branch ``name`` checked out, if any:
    moving such a branch would change what that checkout's HEAD is, under the user's feet."""
    out = repo._git("worktree", "list", "--porcelain", "-z", strip=False)
    path = None
    for field in out.split("\0"):
        if field.startswith("worktree "):
            path = field.removeprefix("worktree ")
        elif field == f"branch refs/heads/{name}":
            return path
    return None
