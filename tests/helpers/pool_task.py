"""A one-task pool on a local mirror, as bench/locbench_tasks.py writes pools: for the tests of
the pool benchmarks (bench/context_pool.py, bench/context_pack_sim.py)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from .gitrepo import git, make_repo

FILES = {
    "shop/cart.py": "def add_item(cart, item):\n    cart.append(item)\n    return cart\n",
    "shop/prices.py": "def discount(price, percent):\n    return price * (1 - percent)\n",
    "README.md": "# shop\n",
}


def one_task_pool(tmp_path: Path) -> tuple[Path, Path]:
    """(tasks file, mirror root): acme/shop mirrored bare, and one task whose gold is line 2 of
    shop/prices.py."""
    repo = make_repo(tmp_path / "src", FILES)
    parent = git(repo, "rev-parse", "HEAD").strip()
    mirror = tmp_path / "mirrors" / "acme+shop" / "repo"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo), str(mirror)], check=True)
    task = {
        "id": "shop-1", "repo": "acme/shop", "commit": parent, "parent": parent,
        "query": "Round the discount of a price", "gold": ["shop/prices.py"],
        "gold_lines": {"shop/prices.py": [[2, 2]]}, "language": "python",
    }  # fmt: skip
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps(task) + "\n")
    return tasks, tmp_path / "mirrors"
