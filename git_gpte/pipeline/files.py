"""The files of one commit as the edit engine sees them: text by path, read on demand.

One mapping for every pipeline that edits a commit (improve, heal, ``apply --branch``): the
tree is listed once, a blob is read only when the reply names its path, and the edits made so
far are laid over the commit's content, so a retry sees the files as they are now. Binary,
non-UTF-8 files, symlinks, submodules and paths under a file raise ``UnreadableFile``: the
engine refuses their hunks instead of writing text over them. A path that reaches a git
directory (through a symlink of the tree or of the work tree) raises ``UnsafePathError``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import PurePosixPath

from ..edit import UnreadableFile
from ..errors import UnsafePathError
from ..git import FileChange, Repository, TreeEntry, decode_text
from ..git.paths import TreeView, git_dirs, tree_problem


class CommitFiles(Mapping[str, str]):
    """Text of the files at ``rev`` with ``changes`` (path -> new text, None: deleted) on top.

    ``preloaded`` holds texts already read (the selection sent to the model), so they are not
    read twice.
    """

    def __init__(
        self, repo: Repository, rev: str, preloaded: Mapping[str, str] | None = None
    ) -> None:
        self.repo = repo
        self.rev = rev
        self.entries: dict[str, TreeEntry] = {e.path: e for e in repo.tree_entries(rev)}
        self._text: dict[str, str] = dict(preloaded or {})
        self.changes: dict[str, str | None] = {}
        self._tree = TreeView(self.entries, repo.read_blob, self.changes)
        self._git_dirs: tuple[str, ...] | None = None

    def check(self, path: str) -> None:
        """Refuse a path this tree cannot take: UnsafePathError when it reaches a git directory
        or leaves the repository through a symlink (the whole reply is refused), UnreadableFile
        when it is a symlink, under a file, a directory or a submodule (its hunks are refused).
        """
        if self._git_dirs is None:
            self._git_dirs = git_dirs(self.repo)
        problem = tree_problem(path, self._tree, str(self.repo.root), self._git_dirs)
        if problem is None:
            return
        if problem.unsafe:
            raise UnsafePathError(f"unsafe path in the reply, nothing written: {problem.message}")
        raise UnreadableFile(problem.message)

    def original(self, path: str) -> str:
        """The text at ``rev`` (edits ignored); KeyError when the commit has no such file."""
        if path in self._text:
            return self._text[path]
        self.check(path)
        entry = self.entries[path]
        if not entry.is_regular:
            raise UnreadableFile(f"{path} is not a regular file (symlink or submodule)")
        text = decode_text(self.repo.read_blob(entry.sha))
        if text is None:
            raise UnreadableFile(f"{path} is binary or not UTF-8")
        self._text[path] = text
        return text

    def __getitem__(self, path: str) -> str:
        self.check(path)
        if path in self.changes:
            value = self.changes[path]
            if value is None:
                raise KeyError(path)
            return value
        return self.original(path)

    def __contains__(self, path: object) -> bool:
        if not isinstance(path, str):
            return False
        if path in self.changes:
            return self.changes[path] is not None
        return path in self.entries

    def __iter__(self) -> Iterator[str]:
        yield from (
            p for p, text in self.changes.items() if text is not None and p not in self.entries
        )
        yield from (p for p in self.entries if self.changes.get(p, "") is not None)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def readable(self, path: str) -> bool:
        """True when ``path`` exists (edits included) and is text the model can be shown."""
        try:
            self[path]
        except (KeyError, UnreadableFile):
            return False
        return True

    def file_changes(self) -> list[FileChange]:
        """The edits as commit changes, leaving out those that ended where the commit was.

        A new ``run.sh`` is made executable: it is the entrypoint ``run`` and ``heal`` start.
        """
        out = []
        for path, text in sorted(self.changes.items()):
            entry = self.entries.get(path)
            if text is None:
                if entry is not None:
                    out.append(FileChange(path, None))
                continue
            data = text.encode("utf-8")
            if entry is not None and entry.is_regular and self.repo.read_blob(entry.sha) == data:
                continue
            executable = True if entry is None and PurePosixPath(path).name == "run.sh" else None
            out.append(FileChange(path, data, executable=executable))
        return out
