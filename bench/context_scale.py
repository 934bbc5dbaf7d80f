"""Context selection on a very large repository: time and peak memory, cold and warm.

Builds a repository of N small Python modules (default 100,000, in 100 x 10 directories,
written with ``git fast-import`` in a temporary directory), then runs
``git gpte context --format lines`` as a whole process: once with no index (cold: every blob
read, parsed and stored) and five times with it (``--warm-runs``; warm: the median, and the
fastest and slowest run beside it: on two shared cores one run varies by a fifth or more). Each
figure is shown
against ``git grep`` over the same commit, the lexical scan every git user has, measured in the
same run. Targets on a 2-core machine: 2,000 files warm in 0.5 s and cold in 10 s, 100,000
files warm in 2 s, peak memory under 300 MiB. Each run's CPU seconds (user + system) are shown
too: beside a busy model server, they say more than its wall time.

A real repository measures what a generated one cannot (its links, its large modules):
``--repo PATH`` clones it (``git clone --no-checkout``: the index reads the commit, not a
work tree) and times the same runs for each ``--request``.

    python bench/context_scale.py [--files 100000] [--keep DIR]
    python bench/context_scale.py --repo ../mypy --request "..." [--request "..."]
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "parse",
    "render",
    "cache",
    "token",
    "stream",
    "client",
    "server",
    "queue",
    "retry",
]
REQUEST = "make the stream client retry when the server closes the connection"


def build(root: Path, files: int) -> None:
    """A repository whose every file is a small module with a function and a class."""
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    rng = random.Random(1)
    feed = subprocess.Popen(["git", "fast-import", "--quiet"], cwd=root, stdin=subprocess.PIPE)
    assert feed.stdin is not None
    out = feed.stdin
    out.write(b"commit refs/heads/main\ncommitter B <b@example.com> 1700000000 +0000\n")
    out.write(b"data 6\nbuild\n")
    for i in range(files):
        a, b = rng.choice(WORDS), rng.choice(WORDS)
        body = (
            f'"""Module {i}: {a} and {b}."""\n\nimport os\n\n\n'
            f"def {a}_{b}_{i}(value):\n"
            f'    """Apply {a}, then {b}."""\n'
            f"    return value + {i}\n\n\n"
            f"class {a.title()}{b.title()}{i}:\n"
            f"    def run(self):\n"
            f"        return {a}_{b}_{i}(len(os.sep))\n"
        ).encode()
        out.write(f"M 100644 inline pkg{i % 100}/sub{i // 100 % 10}/mod_{i}.py\n".encode())
        out.write(f"data {len(body)}\n".encode() + body + b"\n")
    out.close()
    if feed.wait() != 0:
        raise SystemExit("git fast-import failed")
    subprocess.run(["git", "reset", "-q", "--hard", "main"], cwd=root, check=True)


class Run(NamedTuple):
    """One whole process: wall seconds, CPU seconds (user + system, its own; on a busy machine
    the wall time says more about the machine), peak resident MiB."""

    seconds: float
    cpu: float
    mib: float


def measure(argv: list[str], cwd: Path) -> Run:
    """Time and peak memory of one whole process."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) not in (0, 1):  # git grep: 1 = nothing found
        raise SystemExit(f"{' '.join(argv)} failed ({status})")
    return Run(seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=100_000)
    parser.add_argument("--keep", type=Path, help="build the repository here and keep it")
    parser.add_argument("--repo", type=Path, help="measure a clone of this repository instead")
    parser.add_argument(
        "--request", action="append", default=[], help=f"(repeatable; default {REQUEST!r})"
    )
    parser.add_argument(
        "--warm-runs",
        type=int,
        default=5,
        help="warm runs per request, their median shown (a run here varies by a fifth)",
    )
    args = parser.parse_args()
    script = shutil.which("git-gpte", path=str(Path(sys.executable).parent)) or shutil.which(
        "git-gpte"
    )
    if script is None:
        print("git-gpte is not installed in this environment", file=sys.stderr)
        return 2
    work = args.keep or Path(tempfile.mkdtemp(prefix="gpte-scale-"))
    try:
        repo = work / "repo"
        if not (repo / ".git").is_dir():
            started = time.perf_counter()
            if args.repo is not None:
                clone = ["git", "clone", "-q", "--no-checkout", str(args.repo.resolve()), str(repo)]
                subprocess.run(clone, check=True)
                files = subprocess.run(
                    ["git", "ls-tree", "-r", "--name-only", "HEAD"],
                    cwd=repo, capture_output=True, text=True, check=True,
                ).stdout.count("\n")  # fmt: skip
                print(f"cloned {args.repo} ({files:,} files)")
            else:
                build(repo, args.files)
                print(f"built {args.files:,} files in {time.perf_counter() - started:.1f} s")
        shutil.rmtree(repo / ".git" / "gpte", ignore_errors=True)
        requests = args.request or [REQUEST]
        word = max(re.findall(r"[A-Za-z]+", requests[0]) or ["retry"], key=len)
        grep = measure(["git", "grep", "-c", "-i", "-e", word, "HEAD"], repo)
        rows = [(f"git grep -c -i -e {word} HEAD", grep)]
        spreads: dict[str, str] = {}  # warm rows: the fastest and slowest run
        for n, request in enumerate(requests):
            context = [script, "context", "--format", "lines", request]
            if n == 0:
                rows.append(("git gpte context (cold)", measure(context, repo)))
            warm_runs = [measure(context, repo) for _ in range(max(1, args.warm_runs))]
            warm = Run(
                statistics.median(r.seconds for r in warm_runs),
                statistics.median(r.cpu for r in warm_runs),
                max(r.mib for r in warm_runs),
            )
            name = f"git gpte context (warm{f', {n + 1}' if len(requests) > 1 else ''})"
            rows.append((name, warm))
            seconds = [r.seconds for r in warm_runs]
            spreads[name] = f"{min(seconds):.2f}-{max(seconds):.2f}"
        print(
            f"{'run':<32} {'seconds':>8} {'vs git grep':>12} {'CPU s':>7} {'peak MiB':>9}"
            f" {'warm runs':>10}"
        )
        for name, run in rows:
            print(
                f"{name:<32} {run.seconds:8.2f} {run.seconds / grep.seconds:11.1f}x "
                f"{run.cpu:7.2f} {run.mib:9.0f} {spreads.get(name, ''):>10}"
            )
        index = repo / ".git" / "gpte" / "context.sqlite"
        if index.exists():
            print(f"index: {index.stat().st_size / 2**20:.0f} MiB")
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
