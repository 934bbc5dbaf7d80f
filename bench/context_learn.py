"""A chunk order or a file order learned on the pool, judged leave one repository out.

The hand weights of the chunks' scores are on a plateau (docs/context.md: each within a point),
while the changed chunks of nearly every missed task would have fit the budget: what misses them
is the order. This fits a logistic model of "this chunk holds a changed line" on features of the
kept rankings (``bench/context_pack_sim.py capture``), for each repository on the *other*
repositories only, orders that repository's chunks by it, packs them at 4k / 8k / 16k / 32k and
scores locbench's coverage beside the ranking as it is.

    python bench/context_learn.py --tasks pool.jsonl --rankings DIR [--features a,b,...]

``--order files`` learns "this file is changed" instead, on features of each ranking's best
``TOP_FILES`` files, and mixes it into their scores (``--mix``: 1 is the model's order alone)
before the chunks are scored again and packed. ``--fit-on self`` fits on every task scored,
the one scored included: not a result but a ceiling, what the best linear combination of the
ranking's own measures could do on that very set (docs/context.md: on the Python and Go/JS/TS
projects outside the pool, a point or two).

Needs numpy (a bench requirement, not the package's). Prints the table and the weights fitted
on the whole pool (what the ranking would carry). Measured on the pool, the learned order lost
to the hand weights at every budget (docs/context.md): a model of single chunks learns which
chunks hold changes, not which set of them completes a task, and a task is covered only whole.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import pickle
import posixpath
import sys
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from context import BUDGETS  # noqa: E402
from context_pack_sim import _chunks_scored, covered, with_named  # noqa: E402
from context_pool import GROUPS, _line  # noqa: E402

FEATURES = (
    "score", "file", "file_rank", "rel", "rel_in", "header", "define", "use", "recent",
    "size", "prior", "lexical", "ppr", "named", "qcov", "file_rel", "file_rel_in",
)  # fmt: skip


def features(ranking: Any, query_terms: Sequence[str]) -> tuple[list[Any], np.ndarray]:
    """The chunks of a ranking and one row of features each (FEATURES' order)."""
    rows = {(path, index): relevance for path, index, relevance, _ in ranking.rows}
    chunks = ranking.chunks
    if not chunks:
        return [], np.zeros((0, len(FEATURES)))
    file_rank = {f.cand.path: n for n, f in enumerate(ranking.files)}
    top_file = max((c.file.score for c in chunks), default=1.0) or 1.0
    top_lex = max((c.file.lexical for c in chunks), default=1.0) or 1.0
    top_ppr = max((c.file.ppr for c in chunks), default=1.0) or 1.0
    top_score = max((c.score for c in chunks), default=1.0) or 1.0
    rel = [rows.get((c.file.cand.path, c.index), 0.0) for c in chunks]
    top_rel = max(rel) or 1.0
    top_in: dict[str, float] = defaultdict(float)
    for c, r in zip(chunks, rel, strict=True):
        top_in[c.file.cand.path] = max(top_in[c.file.cand.path], r)
    terms = set(query_terms)
    out = []
    for c, r in zip(chunks, rel, strict=True):
        assert c.file.record is not None
        chunk = c.file.record.chunks[c.index]
        reasons = " ".join(c.reasons)
        fs = c.file.score / top_file
        rin = r / (top_in[c.file.cand.path] or 1.0)
        out.append([
            c.score / top_score,
            fs,
            1 / (1 + file_rank.get(c.file.cand.path, 99)),
            r / top_rel,
            rin,
            float(chunk.kind == "header"),
            float("defines" in reasons),
            float("uses" in reasons),
            float("changed recently" in reasons),
            math.log1p(chunk.pieces or chunk.nbytes / 4) / 8,
            c.file.prior,
            c.file.lexical / top_lex,
            c.file.ppr / top_ppr,
            float(c.file.named),
            len(terms & chunk.terms.keys()) / (len(terms) or 1),
            fs * r / top_rel,
            fs * rin,
        ])  # fmt: skip
    return chunks, np.asarray(out, dtype=float)


FILE_FEATURES = (
    "score", "log_score", "lexical", "ppr", "prior", "rank", "best_chunk", "top_chunks",
    "matching", "recent", "released", "named", "pointed", "matched", "size", "depth",
    "best_folder", "package", "uses", "linked", "defines",
)  # fmt: skip
TOP_FILES = 40  # the files of a ranking the file order reorders


def file_features(ranking: Any) -> tuple[list[Any], np.ndarray]:
    """The best TOP_FILES files of a ranking and one row of features each (FILE_FEATURES'
    order): their measures over the best file's, their chunks' relevance, their reasons."""
    files = ranking.files[:TOP_FILES]
    if not files:
        return [], np.zeros((0, len(FILE_FEATURES)))
    best: dict[str, float] = defaultdict(float)
    relevances: dict[str, list[float]] = defaultdict(list)
    for path, _, relevance, _ in ranking.rows:
        best[path] = max(best[path], relevance)
        relevances[path].append(relevance)
    top_score = files[0].score or 1.0
    top_lex = max(f.lexical for f in files) or 1.0
    top_ppr = max(f.ppr for f in files) or 1.0
    top_rel = max(best.values(), default=1.0) or 1.0
    top_matched = max(len(f.matched) for f in files) or 1
    folder = posixpath.dirname(files[0].cand.path)
    out = []
    for n, f in enumerate(files):
        path, reasons = f.cand.path, " | ".join(f.reasons)
        rels = sorted(relevances[path], reverse=True)
        out.append([
            f.score / top_score,
            math.log(f.score / top_score + 1e-3),
            f.lexical / top_lex,
            f.ppr / top_ppr,
            math.log(f.prior + 1e-3),
            1 / (1 + n),
            best[path] / top_rel,
            sum(rels[:3]) / 3 / top_rel,
            sum(1 for r in rels if r > 0) / max(len(rels), 1),
            float("changed recently" in reasons),
            float("earlier releases" in reasons),
            float(f.named),
            float(f.pointed),
            len(f.matched) / top_matched,
            math.log1p(f.cand.size) / 10,
            path.count("/") / 5,
            float(posixpath.dirname(path) == folder),
            float(posixpath.basename(path).split(".")[0] in ("__init__", "index", "mod")),
            float("uses " in reasons),
            float("linked" in reasons),
            float("defines" in reasons),
        ])  # fmt: skip
    return files, np.asarray(out, dtype=float)


def file_labels(task: Mapping[str, Any], files: Sequence[Any]) -> np.ndarray:
    """1 for a file the commit changed."""
    return np.asarray([float(f.cand.path in task["gold"]) for f in files])


def files_reordered(ranking: Any, files: list[Any], p: np.ndarray, mix: float) -> Any:
    """The ranking with its best files scored ``mix`` by ``p`` (the rest by their score),
    put in that order, and its chunks scored again from their files' new scores."""
    from git_gpte.context.weights import WEIGHTS

    top, best_p = ranking.files[0].score, float(p.max()) or 1.0
    for f, chance in zip(files, p, strict=True):
        f.score = top * ((1 - mix) * f.score / top + mix * float(chance) / best_p)
    ranking.files = sorted(ranking.files, key=lambda f: -f.score)
    ranking.chunks = _chunks_scored(ranking, WEIGHTS, lambda path: True)
    return ranking


def labels(task: Mapping[str, Any], chunks: Sequence[Any]) -> np.ndarray:
    """1 for a chunk holding a line the commit changed."""
    gold = task["gold_lines"]
    out = []
    for c in chunks:
        chunk = c.file.record.chunks[c.index]
        ranges = gold.get(c.file.cand.path, ()) if c.file.cand.path in task["gold"] else ()
        out.append(float(any(s <= chunk.end and chunk.start <= e for s, e in ranges)))
    return np.asarray(out)


def fit(x: np.ndarray, y: np.ndarray, w: np.ndarray, l2: float = 1e-3) -> np.ndarray:
    """Weighted logistic regression by Newton's method (bias last)."""
    xb = np.hstack([x, np.ones((len(x), 1))])
    beta = np.zeros(xb.shape[1])
    for _ in range(30):
        p = 1 / (1 + np.exp(-np.clip(xb @ beta, -30, 30)))
        grad = xb.T @ (w * (p - y)) + l2 * beta
        hess = (xb * (w * p * (1 - p))[:, None]).T @ xb + l2 * np.eye(len(beta))
        step = np.linalg.solve(hess, grad)
        beta -= step
        if np.abs(step).max() < 1e-8:
            break
    return beta


Example = tuple[dict[str, Any], Any, list[Any], np.ndarray, np.ndarray]


def load(tasks: Path, rankings: Path, chosen: Sequence[int], files: bool = False) -> list[Example]:
    """(task, ranking, its chunks or best files, their features, their labels) of every task
    kept."""
    from git_gpte.context.request import analyse_request

    data = []
    for line in tasks.read_text().splitlines():
        if not line.strip():
            continue
        task = json.loads(line)
        path = rankings / f"{task['id']}.pkl"
        if not path.exists():
            continue
        ranking = with_named(pickle.loads(path.read_bytes()), task)
        if files:
            items, x = file_features(ranking)
            y = file_labels(task, items)
        else:
            items, x = features(ranking, analyse_request(task["query"]).terms)
            y = labels(task, items)
        data.append((task, ranking, items, x[:, list(chosen)] if len(x) else x, y))
    return data


def pointwise(data: Sequence[Example]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every chunk of tasks with a changed chunk among them, each task weighing the same
    (half on its changed chunks, half on the rest)."""
    xs, ys, ws = [], [], []
    for _, _, _, x, y in data:
        if len(x) and y.sum():
            pos = y.sum()
            xs.append(x)
            ys.append(y)
            ws.append(np.where(y > 0, 0.5 / pos, 0.5 / max(len(y) - pos, 1)))
    return np.vstack(xs), np.concatenate(ys), np.concatenate(ws)


def pairwise(data: Sequence[Example], limit: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each changed chunk against the other chunks ranked above the last changed one (the
    order as it is; at most ``limit``), both ways round, each task weighing the same."""
    xs, ws = [], []
    for _, _, _, x, y in data:
        if not (len(x) and y.sum()):
            continue
        last = int(np.nonzero(y)[0].max())
        bad = x[: last + 1][y[: last + 1] == 0][:limit]
        if len(bad):
            diff = (x[y > 0][:, None, :] - bad[None, :, :]).reshape(-1, x.shape[1])
            xs.append(diff)
            ws.append(np.full(len(diff), 1 / len(diff)))
    x = np.vstack(xs)
    return np.vstack([x, -x]), np.concatenate([np.ones(len(x)), np.zeros(len(x))]), \
        np.concatenate([*ws, *ws])  # fmt: skip


def reordered(ranking: Any, chunks: list[Any], p: np.ndarray) -> Any:
    """The ranking with its chunks in the order of ``p``, scored by it."""
    from git_gpte.context.rank import Ranking

    order = sorted(range(len(chunks)), key=lambda n: (-p[n], n))
    for n in order:
        chunks[n].score = float(p[n])
    return Ranking(ranking.files, [chunks[n] for n in order], ranking.binary)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", required=True, type=Path)
    parser.add_argument("--rankings", required=True, type=Path)
    parser.add_argument("--order", choices=("chunks", "files"), default="chunks")
    parser.add_argument("--features", help="a subset of the order's features (default: all)")
    parser.add_argument(
        "--fit-on",
        choices=("others", "self"),
        default="others",
        help="the other repositories (a result), or every task (a ceiling)",
    )
    parser.add_argument("--mix", type=float, default=1.0,
                        help="files: the model's share of a file's score")  # fmt: skip
    parser.add_argument("--size-power", type=float, default=0.0,
                        help="order by p / tokens ** this (0: by p)")  # fmt: skip
    parser.add_argument("--pairwise", action="store_true")
    parser.add_argument("--pair-limit", type=int, default=300)
    args = parser.parse_args()
    by_files = args.order == "files"
    known = FILE_FEATURES if by_files else FEATURES
    names = args.features.split(",") if args.features else list(known)
    unknown = [name for name in names if name not in known]
    if unknown:
        parser.error(f"unknown features {', '.join(unknown)} (known: {', '.join(known)})")
    os.environ.setdefault("GPTE_CONTEXT_TOKENIZER", "o200k")
    from git_gpte.context.pack import pack

    data = load(args.tasks, args.rankings, [known.index(name) for name in names], by_files)

    def fitted(examples: Sequence[Example]) -> np.ndarray:
        if args.pairwise:
            return fit(*pairwise(examples, args.pair_limit))
        return fit(*pointwise(examples))

    results = []
    for repo in sorted({task["repo"] for task, *_ in data}):
        beta = fitted([e for e in data if args.fit_on == "self" or e[0]["repo"] != repo])
        for task, ranking, chunks, x, _ in (e for e in data if e[0]["repo"] == repo):
            row = {"id": task["id"], "repo": repo, "language": task["language"]}
            base = [int(covered(task, pack(ranking, b)[0])) for b in BUDGETS]
            results.append({**row, "selector": "gpte", "covered": base})
            if len(x) and by_files:
                p = 1 / (1 + np.exp(-(x @ beta[:-1] + beta[-1])))
                ranking = files_reordered(ranking, chunks, p, args.mix)
            elif len(x):
                p = 1 / (1 + np.exp(-(x @ beta[:-1] + beta[-1])))
                if args.size_power:
                    sizes = np.array([c.file.record.chunks[c.index].pieces or 1 for c in chunks])
                    p = p / sizes**args.size_power
                ranking = reordered(ranking, chunks, p)
            got = [int(covered(task, pack(ranking, b)[0])) for b in BUDGETS]
            results.append({**row, "selector": "learned", "covered": got})
        print(repo, file=sys.stderr, flush=True)
    heads = " / ".join(f"{b // 1024}k" for b in BUDGETS)
    print(f"\n| selector, language | tasks | covered % {heads} |\n|---|---|---|")
    for name in ("gpte", "learned"):
        for group, languages in [("python", ("python",)), *GROUPS.items()]:
            mine = [r for r in results if r["selector"] == name and r["language"] in languages]
            if mine:
                print(_line(f"{name}, {group}", mine, BUDGETS))
    beta = fitted(data)
    print("\nfitted on the whole pool: " + ", ".join(
        f"{n} {b:+.2f}" for n, b in zip([*names, "bias"], beta, strict=True)))  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
