"""Start-up time of ``git gpte --help`` as a whole process.

Prints the median of N runs of each command and the ratio against ``python -c pass`` measured
in the same run, so the figure means the same on a slower machine. Target: ``git gpte -h``
median <= 0.25 s (the SDKs must be imported lazily).

    python bench/startup.py [--runs 20]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path


def median_seconds(argv: list[str], runs: int) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    bindir = Path(sys.executable).parent
    os.environ["PATH"] = f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}"
    script = shutil.which("git-gpte")
    if script is None:
        print("git-gpte is not installed in this environment", file=sys.stderr)
        return 2
    cases = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "git --version": ["git", "--version"],
        "git-gpte --help": [script, "--help"],
        "git gpte -h": ["git", "gpte", "-h"],
        "python -c 'import git_gpte.llm'": [sys.executable, "-c", "import git_gpte.llm"],
    }
    base = None
    print(f"{'command':<36} {'median':>9} {'vs python':>10}")
    for name, argv in cases.items():
        try:
            seconds = median_seconds(argv, args.runs)
        except subprocess.CalledProcessError:
            print(f"{name:<36} {'failed':>9}")
            continue
        base = base or seconds
        print(f"{name:<36} {seconds * 1000:8.1f}ms {seconds / base:9.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
