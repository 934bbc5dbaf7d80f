"""``git gpte apply [REPLY_FILE|-]``: an LLM reply's edits, validated, applied or refused.

Writes only the files the reply names, only what can be placed with confidence, and nothing at
all when a path is unsafe. With ``--branch`` the result becomes a commit on a new branch (based
on HEAD) and the checkout is not touched.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..cli import AppContext
from ..errors import EditError, EmptyRepository, UnsafePathError, UsageError

if TYPE_CHECKING:
    from ..edit import ApplyResult
    from ..git import Repository, TreeEntry


def read_reply(source: str) -> str:
    """The reply text from a file or ``-`` (standard input); a clear error otherwise."""
    try:
        if source == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(source, "rb") as handle:
                data = handle.read()
    except OSError as exc:
        raise UsageError(f"cannot read the reply {source!r}: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UsageError(f"the reply {source!r} is not UTF-8 text") from None


def confined(root: Path, path: str) -> Path:
    """``root/path``, refusing symlinks on the way that lead outside the repository.

    A symlink as the file itself is refused too: writing through it would edit another file.
    """
    real_root = root.resolve()
    current = root
    parts = path.split("/")
    for k, part in enumerate(parts):
        current = current / part
        if current.is_symlink():
            target = current.resolve()
            if k == len(parts) - 1:
                raise UnsafePathError(
                    f"{path!r} is a symlink; git-gpte does not edit through links"
                )
            if target != real_root and real_root not in target.parents:
                raise UnsafePathError(f"{path!r} goes through a symlink that leaves the repository")
    return current


class WorkTreeFiles(Mapping[str, str]):
    """Work-tree files read on demand, only for the paths the reply names."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def _target(self, path: str) -> Path:
        return confined(self.root, path)

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and self._target(path).is_file()

    def __getitem__(self, path: str) -> str:
        from ..edit import UnreadableFile
        from ..git import decode_text

        target = self._target(path)
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


class CommitFiles(Mapping[str, str]):
    """Files of a commit read on demand (for ``--branch``)."""

    def __init__(self, repo: Repository, rev: str) -> None:
        self.repo = repo
        self.entries: dict[str, TreeEntry] = {e.path: e for e in repo.tree_entries(rev)}

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and path in self.entries

    def __getitem__(self, path: str) -> str:
        from ..edit import UnreadableFile
        from ..git import decode_text

        entry = self.entries[path]
        if not entry.is_regular:
            raise UnreadableFile(f"{path} is not a regular file (symlink or submodule)")
        text = decode_text(self.repo.read_blob(entry.sha))
        if text is None:
            raise UnreadableFile(f"{path} is binary or not UTF-8")
        return text

    def __iter__(self) -> Iterator[str]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)


def write_files(root: Path, changed: dict[str, str | None]) -> None:
    """Write the results; every target is checked before the first byte is written."""
    targets = {path: confined(root, path) for path in changed}
    for path, text in changed.items():
        target = targets[path]
        if text is None:
            if target.exists():
                target.unlink()
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".gpte-", dir=target.parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(text.encode("utf-8"))
            if target.exists():
                os.chmod(tmp, target.stat().st_mode & 0o7777)
            else:
                os.chmod(tmp, 0o666 & ~_umask())
            os.replace(tmp, target)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def render_report(result: ApplyResult) -> list[str]:
    lines = [report.one_line() for report in result.reports]
    applied = sum(1 for r in result.reports if r.status == "applied")
    corrected = len(result.corrected)
    refused = len(result.refused)
    lines.append(
        f"{applied} applied, {corrected} corrected, {refused} refused; "
        f"{len(result.files)} file(s) changed"
    )
    return lines


@click.command("apply")
@click.argument("reply", required=False, default=None, metavar="[REPLY_FILE|-]")
@click.option("--check", is_flag=True, help="Report what would happen; write nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the per-hunk report as JSON.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["auto", "diff", "files", "search-replace"]),
    default="auto",
    show_default=True,
    help="Edit format of the reply.",
)
@click.option(
    "--branch",
    metavar="NAME",
    help="Commit the result on a new branch NAME (based on HEAD); the checkout is not touched.",
)
@click.pass_obj
def command(
    app: AppContext, reply: str | None, check: bool, as_json: bool, fmt: str, branch: str | None
) -> int:
    """Apply the edits in an LLM reply (diffs, whole files or SEARCH/REPLACE blocks).

    Each hunk is placed by its content, with the @@ line number as a hint, and is applied,
    corrected (the report says how) or refused (the report says why). Only the files the reply
    names are written. Exit status: 0 all applied, 1 some refused, 6 nothing applicable,
    7 unsafe path (nothing written).
    """
    from ..edit import apply_reply, parse_reply, unsafe_paths
    from ..git import Repository

    if reply is None:
        if sys.stdin.isatty():
            raise UsageError("no reply given", hint="git gpte apply REPLY_FILE, or pipe it to: -")
        reply = "-"
    text = read_reply(reply)
    repo = Repository.discover(app.cwd)
    parsed = parse_reply(text, fmt)
    if not parsed.edits:
        detail = "; ".join(parsed.problems)
        raise EditError(
            "no edits found in the reply" + (f" ({detail})" if detail else ""),
            hint="expected ```diff blocks with ---/+++ headers, whole files or SEARCH/REPLACE",
        )
    bad = unsafe_paths(parsed)
    if bad:
        raise UnsafePathError("unsafe path(s) in the reply, nothing written: " + "; ".join(bad))
    known = repo.tracked_files()
    base: str | None = None
    files: Mapping[str, str]
    if branch is not None:
        if not repo.has_commits():
            raise EmptyRepository("--branch needs a commit to start from; this repository has none")
        base = repo.git_run("rev-parse", "HEAD")
        files = CommitFiles(repo, base)
        known = list(files)
    else:
        files = WorkTreeFiles(repo.root)
    result = apply_reply(files, parsed, known_paths=known)
    write = not check and result.files
    commit_branch = None
    if write and branch is not None and base is not None:
        commit_branch = _commit(repo, base, branch, result, parsed.format)
    elif write:
        write_files(repo.root, result.files)
    _print(app, result, as_json, check, commit_branch, branch, base)
    if result.refused and result.applied_count == 0:
        raise EditError(
            f"every hunk was refused ({len(result.refused)}); nothing written",
            hint="the report above says why",
        )
    return 1 if result.refused else 0


def _commit(repo: Repository, base: str, branch: str, result: ApplyResult, fmt: str) -> str:
    from ..git import FileChange, build_commit, create_branch, format_message
    from ..git.branch import require_new_branch

    require_new_branch(repo, branch, hint="choose another name")
    changes = [
        FileChange(path, None if text is None else text.encode("utf-8"))
        for path, text in sorted(result.files.items())
    ]
    names = sorted(result.files)
    summary = (
        f"Apply LLM edits to {names[0]}"
        if len(names) == 1
        else f"Apply LLM edits to {len(names)} files"
    )
    body = "\n".join(r.one_line() for r in result.reports)
    message = format_message(summary, body, [("Gpte-Apply", fmt)])
    commit = build_commit(repo, base, changes, message)
    create_branch(repo, branch, commit, reason="git-gpte apply")
    return commit


def _print(
    app: AppContext,
    result: ApplyResult,
    as_json: bool,
    check: bool,
    commit: str | None,
    branch: str | None,
    base: str | None,
) -> None:
    if as_json:
        data = result.to_json()
        data["written"] = bool(result.files) and not check
        data["commit"] = commit
        data["branch"] = branch if commit else None
        data["retry_prompt"] = result.retry_prompt()
        click.echo(json.dumps(data, indent=2))
        return
    lines = render_report(result)
    for problem in result.problems:
        click.echo(f"warning: {problem}", err=True)
    for line in lines if not app.quiet else lines[-1:]:
        click.echo(line)
    if check:
        click.echo("--check: nothing written")
    elif commit and base:
        click.echo(
            f"created branch {branch} at {commit[:12]} (based on HEAD {base[:12]}; "
            "uncommitted changes are not included; your checkout is unchanged)"
        )
