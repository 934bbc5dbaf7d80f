"""git notes under one ref: where review records travel with the commits they judge."""

from __future__ import annotations

from ..errors import GitCommandError
from .repo import Repository


def commit_exists(repo: Repository, sha: str) -> bool:
    return repo._git_ok("cat-file", "-e", f"{sha}^{{commit}}")


def add_note(repo: Repository, ref: str, commit: str, text: str) -> None:
    """Attach ``text`` to ``commit`` under ``ref``, replacing the note it had."""
    repo._git("notes", "--ref", ref, "add", "-f", "-F", "-", commit, input=text.encode("utf-8"))


def read_note(repo: Repository, ref: str, commit: str) -> str | None:
    """The note on ``commit`` under ``ref``; None when it has none."""
    try:
        return repo._git("notes", "--ref", ref, "show", commit)
    except GitCommandError:
        return None


def all_notes(repo: Repository, ref: str) -> list[tuple[str, str]]:
    """(annotated commit, note text) for every note under ``ref`` (none if the ref is absent)."""
    if not repo.ref_exists(ref):
        return []
    pairs = []
    for line in repo._git("notes", "--ref", ref, "list").splitlines():
        parts = line.split()
        if len(parts) == 2:
            pairs.append((parts[1], parts[0]))
    texts = repo.read_blobs([blob for _commit, blob in pairs])
    return [
        (commit, data.decode("utf-8", "replace"))
        for (commit, _blob), (_sha, data) in zip(pairs, texts, strict=True)
    ]
