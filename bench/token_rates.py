"""Real o200k tokens per estimated piece, per language: the calibration of ``context/tokens.py``.

Context budgets are counted in o200k tokens without encoding anything at selection time: each
chunk's *pieces* are counted when it is indexed (``count_pieces``) and a piece costs its
language's rate (``PIECE_RATES``). This reads the files of any repositories (bare mirrors or
clones, their HEAD), encodes each with tiktoken's o200k_base and prints, per language, the
real tokens per piece: median, 95th and 99th percentile, and how many files the current rate
undercounts (a selection built of those goes over its budget). A rate should sit above the
95th percentile, as the module's docstring says.

    TIKTOKEN_CACHE_DIR=... python bench/token_rates.py --mirror-root ROOT [OWNER/NAME ...]

Files over 500 bytes only (a tiny file's ratio is noise); at most ``--per-repo`` per repository
and language, spread over the tree.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from git_gpte.context.languages import is_data, language_of
from git_gpte.context.tokens import PIECE_RATE, PIECE_RATES, count_pieces


def git_dir(root: Path, name: str) -> Path:
    base = root / name.replace("/", "+") / "repo"
    return base / ".git" if (base / ".git").exists() else base


def tree_files(repo: Path) -> list[tuple[str, str, int]]:
    out = subprocess.run(
        ["git", "--git-dir", str(repo), "ls-tree", "-r", "-l", "-z", "HEAD"],
        capture_output=True,
        check=True,
    ).stdout.decode("utf-8", "replace")
    files = []
    for entry in filter(None, out.split("\0")):
        meta, path = entry.split("\t", 1)
        _mode, kind, sha, size = meta.split()
        if kind == "blob" and size != "-" and 500 < int(size) < 400_000:
            files.append((path, sha, int(size)))
    return files


def read_blobs(repo: Path, shas: list[str]) -> list[bytes]:
    proc = subprocess.run(
        ["git", "--git-dir", str(repo), "cat-file", "--batch"],
        input="".join(f"{sha}\n" for sha in shas).encode(),
        capture_output=True,
        check=True,
    )
    data, out, at = proc.stdout, [], 0
    for _ in shas:
        header_end = data.index(b"\n", at)
        size = int(data[at:header_end].split()[2])
        out.append(data[header_end + 1 : header_end + 1 + size])
        at = header_end + 1 + size + 1
    return out


def kind_of(path: str) -> str:
    if is_data(path):
        return "data"
    return language_of(path) or "other"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirror-root", required=True, type=Path)
    parser.add_argument("--per-repo", type=int, default=60)
    parser.add_argument("repos", nargs="*", help="OWNER/NAME (default: every mirror)")
    args = parser.parse_args()
    import tiktoken

    encoding = tiktoken.get_encoding("o200k_base")
    names = args.repos or sorted(
        p.name.replace("+", "/", 1) for p in args.mirror_root.iterdir() if (p / "repo").exists()
    )
    ratios: dict[str, list[float]] = defaultdict(list)
    for name in names:
        repo = git_dir(args.mirror_root, name)
        by_kind: dict[str, list[tuple[str, str, int]]] = defaultdict(list)
        for path, sha, size in tree_files(repo):
            by_kind[kind_of(path)].append((path, sha, size))
        for kind, files in by_kind.items():
            step = max(1, len(files) // args.per_repo)
            chosen = files[::step][: args.per_repo]
            for data in read_blobs(repo, [sha for _, sha, _ in chosen]):
                text = data.decode("utf-8", "replace")
                pieces = count_pieces(text)
                if pieces:
                    ratios[kind].append(len(encoding.encode(text, disallowed_special=())) / pieces)
    print(f"{'kind':<12} {'files':>6} {'median':>7} {'p95':>6} {'p99':>6} {'rate':>6} {'under':>6}")
    for kind in sorted(ratios, key=lambda k: -len(ratios[k])):
        values = sorted(ratios[kind])
        rate = PIECE_RATES.get(kind, PIECE_RATE)
        p95 = values[min(len(values) - 1, int(0.95 * len(values)))]
        p99 = values[min(len(values) - 1, int(0.99 * len(values)))]
        under = sum(1 for v in values if v > rate)
        print(
            f"{kind:<12} {len(values):>6} {statistics.median(values):>7.3f} {p95:>6.3f} "
            f"{p99:>6.3f} {rate:>6.2f} {under:>6}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
