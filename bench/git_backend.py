"""GitPython against plain subprocess calls for what the git layer does.

What git-gpte asks of git: many short plumbing commands (rev-parse, ls-tree, update-ref), blobs
read in bulk (every file of a commit for a selection or an index), a few blobs written. This
script measures each both ways on one temporary repository, in the same run, and prints the
ratio, so the choice in ``git_gpte/git/`` rests on figures rather than habit:

- import cost of the library (it is paid by every command that touches a repository);
- N short commands: ``git.Git.execute`` against ``subprocess.run``;
- reading every blob of a commit: GitPython's object database (its persistent
  ``cat-file --batch``) against one ``git cat-file --batch`` process we drive ourselves, and
  against one ``git cat-file blob`` process per blob (the naive way);
- writing blobs: GitPython's ``odb.store`` against ``git hash-object -w --stdin-paths``.

    python bench/git_backend.py [--files 2000] [--commands 200] [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ENV = {
    **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
}


def best(fn: Callable[[], object], runs: int) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return min(samples)


def make_repo(root: Path, files: int) -> list[str]:
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True, env=ENV)
    for i in range(files):
        path = root / f"pkg{i % 40}" / f"mod{i}.py"
        path.parent.mkdir(exist_ok=True)
        path.write_text("".join(f"def f{i}_{k}(x):\n    return x + {k}\n" for k in range(40)))
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, env=ENV)
    subprocess.run(["git", "commit", "-q", "-m", "files"], cwd=root, check=True, env=ENV)
    out = subprocess.run(
        ["git", "ls-tree", "-r", "-z", "HEAD"], cwd=root, capture_output=True, check=True, env=ENV
    ).stdout.decode()
    return [rec.split()[2] for rec in out.split("\0") if rec]


def import_seconds(module: str, runs: int) -> float:
    code = f"import time; s = time.perf_counter(); import {module}; print(time.perf_counter() - s)"
    samples = []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        )
        samples.append(float(out.stdout))
    return statistics.median(samples)


class BatchReader:
    """One ``git cat-file --batch`` process: a blob id in, its header and bytes out."""

    def __init__(self, root: Path) -> None:
        self.proc = subprocess.Popen(
            ["git", "cat-file", "--batch"],
            cwd=root,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=ENV,
        )

    def read_many(self, shas: list[str], window: int = 64) -> list[bytes]:
        """Requests go ahead of the answers by at most ``window`` ids, so neither pipe fills
        while the other side waits (writing them all first deadlocks on large sets)."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        out = []
        for start in range(0, len(shas), window):
            chunk = shas[start : start + window]
            self.proc.stdin.write("".join(f"{sha}\n" for sha in chunk).encode())
            self.proc.stdin.flush()
            for _ in chunk:
                header = self.proc.stdout.readline().split()
                out.append(self.proc.stdout.read(int(header[2])))
                self.proc.stdout.read(1)
        return out

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--commands", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    try:
        import git
        from gitdb import IStream
    except ImportError:
        print("GitPython is not installed here: pip install gitpython", file=sys.stderr)
        return 2

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        shas = make_repo(root, args.files)
        repo = git.Repo(root)
        rows: list[tuple[str, float, float]] = []

        rows.append(
            (
                "import (s)",
                import_seconds("git", args.runs),
                import_seconds("subprocess", args.runs),
            )
        )

        def gitpython_cmds() -> None:
            for _ in range(args.commands):
                repo.git.execute(["git", "rev-parse", "HEAD"], env=ENV)

        def subprocess_cmds() -> None:
            for _ in range(args.commands):
                subprocess.run(
                    ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, env=ENV, check=True
                )

        rows.append(
            (
                f"{args.commands} x rev-parse (s)",
                best(gitpython_cmds, args.runs),
                best(subprocess_cmds, args.runs),
            )
        )

        def gitpython_blobs() -> None:
            for sha in shas:
                repo.odb.stream(bytes.fromhex(sha)).read()

        def batch_blobs() -> None:
            reader = BatchReader(root)
            reader.read_many(shas)
            reader.close()

        def naive_blobs() -> None:
            for sha in shas[:200]:
                subprocess.run(
                    ["git", "cat-file", "blob", sha], cwd=root, capture_output=True, env=ENV
                )

        rows.append(
            (
                f"read {len(shas)} blobs (s)",
                best(gitpython_blobs, args.runs),
                best(batch_blobs, args.runs),
            )
        )
        naive = best(naive_blobs, 1) * len(shas) / 200
        data = [f"blob {i}\n".encode() * 50 for i in range(200)]

        def gitpython_write() -> None:
            from io import BytesIO

            for blob in data:
                repo.odb.store(IStream("blob", len(blob), BytesIO(blob)))

        def subprocess_write() -> None:
            with tempfile.TemporaryDirectory() as folder:
                paths = []
                for i, blob in enumerate(data):
                    path = Path(folder) / str(i)
                    path.write_bytes(blob)
                    paths.append(str(path))
                subprocess.run(
                    ["git", "hash-object", "-w", "--stdin-paths"],
                    cwd=root,
                    input="\n".join(paths).encode(),
                    capture_output=True,
                    env=ENV,
                    check=True,
                )

        rows.append(
            (
                f"write {len(data)} blobs (s)",
                best(gitpython_write, args.runs),
                best(subprocess_write, args.runs),
            )
        )
        repo.close()

    print(f"{'':28} {'GitPython':>10} {'subprocess':>11} {'ratio':>7}")
    for name, ours, theirs in rows:
        print(f"{name:28} {ours:10.4f} {theirs:11.4f} {ours / theirs:7.2f}")
    print(f"{'read blobs, one process each':28} {'':10} {naive:11.4f} (extrapolated from 200)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
