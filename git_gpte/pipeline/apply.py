"""``apply``: the edits of a reply someone already has, placed and written or committed.

The same engine as improve, without a model: the reply is parsed, every path checked, each
hunk placed by content (the ``@@`` number a hint), and the result either written to the work
tree (only the files the reply names, each target checked before the first byte is written)
or, with a branch name, committed on a new branch on top of HEAD through the same commit step
as improve, the checkout untouched.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import EditError, EmptyRepository, UnsafePathError, WriteError
from ..git import Repository, format_message
from ..git.branch import require_new_branch
from .commit import CommitSpec, commit
from .files import CommitFiles

if TYPE_CHECKING:
    from ..edit import ApplyResult, ParsedReply


# The longest file name (one path component) common file systems store.
MAX_NAME_BYTES = 255


def confined(root: Path, path: str, dirs: tuple[str, ...]) -> Path:
    """``root/path``, or UnsafePathError when the work tree's symlinks take it into a git
    directory or out of the repository. Symlinks that stay inside are followed, as the file
    system does; a symlink as the file itself is refused by :class:`WorkTreeFiles`. Refused
    too: a path inside a submodule's (or any nested repository's) work tree, whose files that
    repository's own tools must change, and a name the file system cannot store (a part over
    255 bytes), before anything is written."""
    from ..git.paths import worktree_problem

    parts = path.split("/")
    for k, part in enumerate(parts):
        if len(part.encode("utf-8", "surrogateescape")) > MAX_NAME_BYTES:
            raise UnsafePathError(
                f"{path[:60]!r}... has a file name longer than {MAX_NAME_BYTES} bytes, "
                "which the file system cannot store"
            )
        if k < len(parts) - 1 and (root.joinpath(*parts[: k + 1]) / ".git").exists():
            where = "/".join(parts[: k + 1])
            raise UnsafePathError(
                f"{path!r} is inside {where!r}, a submodule or another repository; "
                "edit it in that repository"
            )
    problem = worktree_problem(root, path, dirs)
    if problem is not None:
        raise UnsafePathError(f"unsafe path in the reply, nothing written: {problem.message}")
    return root / path


class WorkTreeFiles(Mapping[str, str]):
    """Work-tree files read on demand, only for the paths the reply names."""

    def __init__(self, root: Path, dirs: tuple[str, ...]) -> None:
        self.root = root
        self.dirs = dirs

    def _target(self, path: str) -> Path:
        return confined(self.root, path, self.dirs)

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and self._target(path).is_file()

    def __getitem__(self, path: str) -> str:
        from ..edit import UnreadableFile
        from ..git import decode_text
        from ..git.paths import worktree_refusal

        target = self._target(path)
        refusal = worktree_refusal(self.root, path)
        if refusal is not None:
            raise UnreadableFile(refusal.message)
        try:
            data = target.read_bytes()
        except FileNotFoundError:
            raise KeyError(path) from None
        except OSError as exc:
            raise UnreadableFile(f"cannot read {path}: {exc.strerror}") from None
        text = decode_text(data)
        if text is None:
            raise UnreadableFile(f"{path} is binary or not UTF-8")
        return text

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


def write_files(root: Path, changed: dict[str, str | None], dirs: tuple[str, ...]) -> None:
    """Write the results all or nothing, as far as a file system allows.

    Every target is checked, then every new text is written to a temporary file beside its
    target (where a full disk or a permission problem shows); only when all are written are
    they renamed into place and the deletions made. A failure before that leaves the work tree
    as it was; a rename failing after (rare: a rename allocates nothing) is reported with what
    was and was not written. Raises :class:`WriteError`."""
    targets = {path: confined(root, path, dirs) for path in changed}
    staged: dict[str, str] = {}
    try:
        for path, text in changed.items():
            if text is not None:
                staged[path] = _stage(targets[path], text)
    except OSError as exc:
        for tmp in staged.values():
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        where = f" {exc.filename}" if exc.filename else ""
        raise WriteError(
            f"cannot write{where}: {exc.strerror or exc}; nothing was written"
        ) from None
    done: list[str] = []
    for path in changed:
        try:
            if path in staged:
                os.replace(staged.pop(path), targets[path])
            elif targets[path].exists():
                targets[path].unlink()
        except OSError as exc:
            for tmp in staged.values():
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
            left = [p for p in changed if p not in done]
            raise WriteError(
                f"cannot write {path}: {exc.strerror or exc}; written: "
                f"{', '.join(done) or 'nothing'}; not written: {', '.join(left)}"
            ) from None
        done.append(path)


def _stage(target: Path, text: str) -> str:
    """``text`` in a temporary file beside ``target``, with the mode the target will have."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".gpte-", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(text.encode("utf-8"))
            handle.flush()
            os.fsync(handle.fileno())
        if target.exists():
            os.chmod(tmp, target.stat().st_mode & 0o7777)
        else:
            os.chmod(tmp, 0o666 & ~_umask())
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return tmp


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@dataclass
class Applied:
    """The engine's result, and where it went: ``commit`` on ``branch`` (based on ``base``),
    the work tree (``written``), or nowhere (a check)."""

    result: ApplyResult
    base: str | None = None
    commit: str | None = None
    written: bool = False


def apply_parsed(
    repo: Repository, parsed: ParsedReply, *, branch: str | None = None, check: bool = False
) -> Applied:
    """Place ``parsed`` on the work tree, or with ``branch`` on HEAD's commit; write or commit
    unless ``check``. Raises UnsafePathError (nothing written) and EditError (no edits)."""
    from ..edit import apply_reply, unsafe_paths

    if not parsed.edits:
        detail = "; ".join(parsed.problems)
        raise EditError(
            "no edits found in the reply" + (f" ({detail})" if detail else ""),
            hint="expected ```diff blocks with ---/+++ headers, whole files or SEARCH/REPLACE",
        )
    bad = unsafe_paths(parsed)
    if bad:
        raise UnsafePathError("unsafe path(s) in the reply, nothing written: " + "; ".join(bad))
    if branch is None:
        from ..git.paths import git_dirs

        dirs = git_dirs(repo)
        files = WorkTreeFiles(repo.root, dirs)
        result = apply_reply(files, parsed, known_paths=repo.tracked_files())
        if not check and result.files:
            write_files(repo.root, result.files, dirs)
            return Applied(result, written=True)
        return Applied(result)
    if not repo.has_commits():
        raise EmptyRepository("--branch needs a commit to start from; this repository has none")
    base = repo.resolve_commit("HEAD")
    tree = CommitFiles(repo, base)
    result = apply_reply(tree, parsed, known_paths=list(tree.entries))
    if check or not result.files:
        return Applied(result, base=base)
    require_new_branch(repo, branch, hint="choose another name")
    tree.changes.update(result.files)
    names = sorted(result.files)
    summary = (
        f"Apply LLM edits to {names[0]}"
        if len(names) == 1
        else f"Apply LLM edits to {len(names)} files"
    )
    body = "\n".join(r.one_line() for r in result.reports)
    message = format_message(summary, body, [("Gpte-Apply", parsed.format)])
    spec = CommitSpec(branch, base, message, reason="git-gpte apply")
    return Applied(result, base=base, commit=commit(repo, spec, tree.file_changes()))
