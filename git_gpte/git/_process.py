"""The git process runner: private to ``git_gpte.git``; everything else calls named operations.

One wrapper for every git command (its failure names the command, the exit code and git's
message) and one long-lived ``git cat-file --batch`` per repository for reading blobs, which
is what makes reading every file of a commit cheap. Plain ``subprocess``: measured against
GitPython (``bench/git_backend.py``) it runs commands and reads blobs as fast, writes blobs
about 5x faster (``hash-object`` rather than a pure-Python object store) and saves ~0.2 s of
import on every command.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import threading
import weakref
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..errors import GitCommandError

# How many ids are sent ahead of the answers read back: enough to keep git busy, few enough
# that the request pipe can never fill while git waits for us to read (a deadlock).
BLOB_WINDOW = 64


def run(
    args: Sequence[str],
    *,
    cwd: str | os.PathLike[str],
    env: Mapping[str, str],
    input: bytes | None = None,
    strip: bool = True,
    secret: str | None = None,
) -> str:
    """``git <args>``: its stdout (one trailing newline removed when ``strip``).

    Raises GitCommandError naming the command, its exit code and its stderr (with ``secret``,
    if given, masked); OSError when git itself cannot be started becomes one too.
    """
    try:
        proc = subprocess.run(
            ["git", *args],
            cwd=cwd,
            env=dict(env),
            input=input,
            stdin=None if input is not None else subprocess.DEVNULL,
            capture_output=True,
            check=False,
        )
    except OSError as exc:
        raise GitCommandError(f"cannot run git: {exc.strerror or exc}") from None
    if proc.returncode != 0:
        stderr = proc.stderr.decode("utf-8", "replace").strip().replace("\n", " ")
        shown = " ".join(args)
        if secret:
            stderr, shown = stderr.replace(secret, "***"), shown.replace(secret, "***")
        raise GitCommandError(
            f"git {shown} failed (exit {proc.returncode}): {stderr}", returncode=proc.returncode
        )
    out = proc.stdout.decode("utf-8", "surrogateescape")
    if strip and out.endswith("\n"):
        out = out[:-1]
    return out


def succeeds(args: Sequence[str], *, cwd: str | os.PathLike[str], env: Mapping[str, str]) -> bool:
    """True when ``git <args>`` exits 0 (for yes/no questions)."""
    try:
        run(args, cwd=cwd, env=env)
    except GitCommandError:
        return False
    return True


class BlobReader:
    """One ``git cat-file --batch`` process, started on first use, for blobs read in bulk."""

    def __init__(self, cwd: Path, env: Mapping[str, str]) -> None:
        self._cwd = cwd
        self._env = dict(env)
        self._proc: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()

    def _process(self) -> subprocess.Popen[bytes]:
        if self._proc is None or self._proc.poll() is not None:
            try:
                self._proc = subprocess.Popen(
                    ["git", "cat-file", "--batch"],
                    cwd=self._cwd,
                    env=self._env,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                )
            except OSError as exc:
                raise GitCommandError(f"cannot run git cat-file: {exc.strerror or exc}") from None
            # Ended with its reader, so a process that opens many repositories (the tests, a
            # bench run) does not keep one idle git per repository.
            weakref.finalize(self, _shutdown, self._proc)
        return self._proc

    def read(self, shas: Sequence[str]) -> list[bytes]:
        """The contents of ``shas``, in order; GitCommandError for an id that is not a blob."""
        out: list[bytes] = []
        with self._lock:
            proc = self._process()
            assert proc.stdin is not None and proc.stdout is not None
            for start in range(0, len(shas), BLOB_WINDOW):
                chunk = shas[start : start + BLOB_WINDOW]
                try:
                    proc.stdin.write("".join(f"{sha}\n" for sha in chunk).encode("ascii"))
                    proc.stdin.flush()
                except (BrokenPipeError, UnicodeEncodeError):
                    self.close()
                    raise GitCommandError("git cat-file --batch stopped answering") from None
                missing = None
                for sha in chunk:
                    header = proc.stdout.readline().split()
                    if len(header) != 3:
                        missing = missing or sha
                        continue
                    data = proc.stdout.read(int(header[2]))
                    proc.stdout.read(1)  # the newline after the content
                    if header[1] != b"blob":
                        missing = missing or sha
                    out.append(data)
                if missing is not None:
                    raise GitCommandError(f"git cat-file: {missing} is not a blob here")
        return out

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            _shutdown(proc)


def _shutdown(proc: subprocess.Popen[bytes]) -> None:
    """End a ``cat-file --batch``: EOF on its input is its signal to exit."""
    if proc.stdin is not None:
        with contextlib.suppress(OSError):
            proc.stdin.close()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    if proc.stdout is not None:
        proc.stdout.close()
