"""The link graph: made from the files alone, kept in the index between runs, and the
personalised PageRank over it."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

from git_gpte.context.link_facts import LinkFacts
from git_gpte.context.links import LinkGraph, link_graph, personalised_pagerank
from git_gpte.context.weights import WEIGHTS
from tests.conftest import run_gpte
from tests.helpers.gitrepo import git, make_repo
from tests.helpers.shop_repo import PY_FILES


def _facts(defs: tuple[str, ...] = (), used: tuple[str, ...] = (), imports: tuple[str, ...] = ()):
    return LinkFacts("python", imports, defs, f" {' '.join(sorted(set(used)))} ", 10, 100, 1, ())


def _random_files(rng: random.Random, count: int) -> dict[str, LinkFacts]:
    names = [f"name{i}" for i in range(count)]
    return {
        f"pkg/m{i}.py": _facts(
            defs=(names[i],),
            used=tuple(sorted(rng.sample(names, rng.randint(0, min(4, count))))),
        )
        for i in range(count)
    }


def _fixed_point(graph: LinkGraph, seeds: dict[str, float]) -> dict[str, float]:
    """The same walk as the module's, written plainly and iterated to its fixed point."""
    nodes = graph.nodes
    total = sum(seeds.values())
    p = [seeds.get(node, 0.0) / total for node in nodes]
    rank = list(p)
    for _ in range(200):
        nxt = [0.35 * share for share in p]
        for i, now in enumerate(rank):
            slots = range(graph.starts[i], graph.starts[i + 1])
            if not slots:
                nxt = [value + 0.65 * now * q for value, q in zip(nxt, p, strict=True)]
            for k in slots:
                nxt[graph.targets[k]] += 0.65 * now * graph.steps[k]
        rank = nxt
    return dict(zip(nodes, rank, strict=True))


def test_pagerank_stops_near_the_fixed_point() -> None:
    rng = random.Random(7)
    for _ in range(30):
        files = _random_files(rng, rng.randint(2, 40))
        lonely = "docs/notes.py"  # a node with no links: its rank goes back to the seeds
        graph = link_graph([*files, lonely], files, WEIGHTS)
        seeds = {path: rng.random() + 0.1 for path in rng.sample(sorted(files), 2)}
        seeds[lonely] = 0.5
        ranks = personalised_pagerank(graph, seeds)
        exact = _fixed_point(graph, seeds)
        top = max(exact.values())
        assert set(ranks) == set(exact) == {*files, lonely}
        assert all(abs(ranks[node] - exact[node]) < 1e-4 * top for node in exact)
        assert abs(sum(ranks.values()) - 1) < 1e-5


def test_graph_does_not_depend_on_the_order_files_are_given_and_keeps_first_reasons() -> None:
    files = {
        "app/views.py": _facts(defs=("render",), used=("load_user",), imports=("app.models",)),
        "app/models.py": _facts(defs=("load_user", "User")),
        "app/cli.py": _facts(used=("render", "load_user")),
    }
    graph = link_graph(list(files), files, WEIGHTS)
    backwards = dict(reversed(list(files.items())))
    assert graph == link_graph(list(backwards), backwards, WEIGHTS)
    assert graph.nodes == ("app/cli.py", "app/models.py", "app/views.py")
    # The pair's first link (an import, made before the use) gives its reason, from both ends.
    assert graph.first_reason("app/views.py", ["app/models.py"]) == "imports app/models.py"
    assert graph.first_reason("app/models.py", ["app/views.py"]) == "imports app/models.py"
    assert graph.first_reason("app/cli.py", ["app/models.py", "app/views.py"]) == (
        "uses load_user from app/models.py"
    )
    assert graph.first_reason("app/cli.py", ["nowhere.py"]) is None
    assert LinkGraph.from_bytes(graph.to_bytes()) == graph
    for junk in (b"", b"not a pickle", graph.to_bytes()[:-9]):
        assert LinkGraph.from_bytes(junk) is None


def _graph_rows(root: Path) -> list[tuple[str, bytes]]:
    with sqlite3.connect(root / ".git" / "gpte" / "context.sqlite") as conn:
        return list(conn.execute("SELECT key, data FROM graphs ORDER BY rowid"))


def test_context_keeps_the_graph_and_rebuilds_a_damaged_one(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "r", PY_FILES)
    ask = ("context", "--format", "lines", "the discount code should be case-insensitive")
    first = run_gpte(*ask, cwd=root)
    assert first.returncode == 0, first.stderr
    assert first.stdout.splitlines()[0] == "shop/pricing.py"
    (key, data), *rest = _graph_rows(root)
    assert not rest and LinkGraph.from_bytes(data) is not None
    # Another request on the same files reads the same graph.
    other = run_gpte("context", "--format", "lines", "shipping is wrong for 0 kg", cwd=root)
    assert other.returncode == 0 and _graph_rows(root) == [(key, data)]
    with sqlite3.connect(root / ".git" / "gpte" / "context.sqlite") as conn:
        conn.execute("UPDATE graphs SET data = ?", (b"damaged",))
    again = run_gpte(*ask, cwd=root)
    assert (again.returncode, again.stdout) == (0, first.stdout)
    assert _graph_rows(root) == [(key, data)]
    # A commit that changes a file makes a graph of its own; the old one stays for the old
    # commit.
    (root / "shop" / "shipping.py").write_text("def shipping_cost(weight_kg):\n    return 5\n")
    git(root, "commit", "-qam", "flat shipping")
    assert run_gpte(*ask, cwd=root).returncode == 0
    keys = [row[0] for row in _graph_rows(root)]
    assert len(keys) == 2 and keys[0] == key
