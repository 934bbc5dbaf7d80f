"""The fixed cost of one ``git gpte improve``: everything but the model's own time.

Runs the installed CLI as a whole process, N times, on a small repository against the scripted
local LLM server (which answers at once), and ``git apply --check`` of the same change in the
same run as the yardstick (one git process doing one small job). Prints the median wall times,
their ratio, and how many git processes one improve starts (from ``GIT_TRACE``).

Target: median <= 0.5 s on a quiet 2-core machine.

    python bench/improve_overhead.py [--runs 15]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.helpers.llm_server import LLMServer  # noqa: E402

DIFF = (
    "```diff\n--- a.py\n+++ a.py\n@@ -1,2 +1,2 @@\n def f():\n-    return 1\n+    return 2\n```\n"
)
PATCH = "--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n def f():\n-    return 1\n+    return 2\n"


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def make_repo(root: Path) -> Path:
    repo = root / "repo"
    repo.mkdir()
    (repo / "a.py").write_text("def f():\n    return 1\n")
    (repo / "README.md").write_text("# demo\n")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=b", "-c", "user.email=b@example.com", "commit", "-qm", "init")
    return repo


def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=env, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    gpte = str(Path(sys.executable).parent / "git-gpte")
    with tempfile.TemporaryDirectory() as tmp, LLMServer() as server:
        repo = make_repo(Path(tmp))
        (Path(tmp) / "change.patch").write_text(PATCH)
        # As installed for a user: bytecode caches are written (pip compiles them at install);
        # a shell with PYTHONDONTWRITEBYTECODE would measure compiling the package every run.
        skip = ("GPTE_", "OPENAI", "PYTHONDONTWRITEBYTECODE")
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(skip)},
            "OPENAI_BASE_URL": server.openai_base_url,
            "OPENAI_API_KEY": "k",
            "GIT_AUTHOR_NAME": "b",
            "GIT_AUTHOR_EMAIL": "b@example.com",
            "GIT_COMMITTER_NAME": "b",
            "GIT_COMMITTER_EMAIL": "b@example.com",
        }
        improve, apply = [], []
        server.queue(DIFF)  # a first run writes the bytecode caches
        timed([gpte, "improve", "return two", "--model", "gpt-4o-mini", "-b", "warm"], repo, env)
        for n in range(args.runs):
            server.queue(DIFF)
            argv = [gpte, "improve", "return two", "--model", "gpt-4o-mini", "-b", f"b{n}"]
            improve.append(timed(argv, repo, env))
            apply.append(timed(["git", "apply", "--check", "../change.patch"], repo, env))
        trace = Path(tmp) / "trace"
        server.queue(DIFF)
        argv = [gpte, "improve", "return two", "--model", "gpt-4o-mini", "-b", "traced"]
        subprocess.run(argv, cwd=repo, env={**env, "GIT_TRACE": str(trace)}, check=True,
                       capture_output=True)  # fmt: skip
        processes = sum(1 for line in trace.read_text().splitlines() if "built-in: git" in line)
    a, b = statistics.median(improve), statistics.median(apply)
    p90 = sorted(improve)[max(0, int(len(improve) * 0.9) - 1)]
    print(f"git gpte improve (instant model)  median {a:.3f} s  (p90 {p90:.3f})")
    print(f"git apply --check                 median {b:.3f} s")
    print(f"ratio                             {a / b:.1f}x")
    print(f"git processes per improve         {processes}")
    print(f"target: median <= 0.5 s -> {'met' if a <= 0.5 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
