"""``git gpte improve`` end to end, with the LLM call taken out of the picture.

Runs the installed CLI as a whole process against the scripted local LLM server (which answers
at once), on a throw-away clone of a repository (this project by default), and prints:

- wall time of ``git gpte improve`` (≈ the time spent outside the LLM call), against
  ``git status`` and ``python -c pass`` measured in the same run;
- tokens sent (as reported by the server's usage) against the size of the repository's text,
  for the whole repository and for one pathspec.

    python bench/improve.py [--repo PATH] [--runs 5]
"""

from __future__ import annotations

import argparse
import json
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


def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, str]:
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}): {proc.stderr.strip()}")
    return elapsed, proc.stdout


def first_text_file(clone: Path) -> tuple[str, str]:
    out = subprocess.run(
        ["git", "ls-files", "-z"], cwd=clone, capture_output=True, check=True
    ).stdout.decode()
    for path in sorted(p for p in out.split("\0") if p):
        data = (clone / path).read_bytes()
        if b"\0" in data[:8000] or not data.strip():
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        return path, text.splitlines()[0]
    raise SystemExit("no text file in the repository")


def repo_text_size(clone: Path) -> int:
    out = subprocess.run(
        ["git", "ls-files", "-z"], cwd=clone, capture_output=True, check=True
    ).stdout.decode()
    total = 0
    for path in (p for p in out.split("\0") if p):
        full = clone / path
        if full.is_file() and not full.is_symlink():
            total += full.stat().st_size
    return total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, default=ROOT)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    bindir = Path(sys.executable).parent
    with tempfile.TemporaryDirectory() as tmp, LLMServer() as server:
        clone = Path(tmp) / "clone"
        subprocess.run(["git", "clone", "-q", str(args.repo), str(clone)], check=True)
        env = dict(os.environ)
        env.update(
            PATH=f"{bindir}{os.pathsep}{env.get('PATH', '')}",
            OPENAI_BASE_URL=server.openai_base_url,
            OPENAI_API_KEY="bench",
            GIT_AUTHOR_NAME="bench",
            GIT_AUTHOR_EMAIL="bench@example.invalid",
            GIT_COMMITTER_NAME="bench",
            GIT_COMMITTER_EMAIL="bench@example.invalid",
        )
        path, first = first_text_file(clone)
        diff = f"```diff\n--- {path}\n+++ {path}\n@@ -1,1 +1,2 @@\n {first}\n+bench line\n```\n"
        size = repo_text_size(clone)

        def improve(*extra: str, n: int) -> tuple[float, dict[str, object]]:
            samples, data = [], {}
            for i in range(n):
                server.queue(diff)
                argv = ["git", "gpte", "-q", "improve", "bench edit", *extra, "--model", "gpt-4.1"]
                argv += ["--json", "--branch", f"bench/{len(extra)}-{i}"]
                seconds, out = timed(argv, clone, env)
                samples.append(seconds)
                data = json.loads(out)
            return statistics.median(samples), data

        base = statistics.median(
            timed([sys.executable, "-c", "pass"], clone, env)[0] for _ in range(args.runs)
        )
        status = statistics.median(
            timed(["git", "status", "--porcelain"], clone, env)[0] for _ in range(args.runs)
        )
        whole, whole_data = improve(n=args.runs)
        one, one_data = improve(path, n=args.runs)
        print(f"repository: {args.repo} ({size:,} bytes of tracked files)")
        rows = [
            ("python -c pass", base),
            ("git status", status),
            ("git gpte improve (whole repo), median", whole),
            (f"git gpte improve {path}, median", one),
        ]
        print(f"{'measure':<44} {'value':>12} {'vs python':>10}")
        for label, seconds in rows:
            print(f"{label:<44} {seconds * 1000:10.1f}ms {seconds / base:9.2f}x")
        for label, data in (("whole repo", whole_data), (path, one_data)):
            tokens = int(str(data["tokens_in"]))
            print(
                f"tokens sent, {label}: {tokens:,} "
                f"({tokens / max(size, 1):.3f} tokens per byte of the repository)"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
