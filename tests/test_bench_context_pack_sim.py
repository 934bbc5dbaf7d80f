"""bench/context_pack_sim.py: rankings kept once on a small mirror, variants packed from them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import SHARED
from tests.helpers.gitrepo import git, make_repo

ROOT = Path(__file__).resolve().parents[1]
SIM = str(ROOT / "bench/context_pack_sim.py")


def test_kept_rankings_are_packed_under_each_variant(tmp_path: Path) -> None:
    files = {
        "shop/cart.py": "def add_item(cart, item):\n    cart.append(item)\n    return cart\n",
        "shop/prices.py": "def discount(price, percent):\n    return price * (1 - percent)\n",
    }
    repo = make_repo(tmp_path / "src", files)
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
    kept = tmp_path / "rankings"
    common = [sys.executable, SIM, "--tasks", str(tasks), "--rankings", str(kept)]
    capture = [*common, "capture", "--mirror-root", str(tmp_path / "mirrors"),
               "--locbench", str(SHARED / "locbench")]  # fmt: skip
    subprocess.run(capture, capture_output=True, text=True, check=True)
    assert [p.name for p in kept.iterdir()] == ["shop-1.pkl"]
    variant = '{"pack.GAP_LINES": 0, "file_exponent": 2.0}'
    shown = subprocess.run(
        [*common, "run", "--variant", f"nogap={variant}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "| gpte, python | 1 | 100.0 / 100.0 / 100.0 / 100.0 |" in shown
    assert "| nogap, python | 1 |" in shown and "| loo, python | 1 |" in shown
    assert "leave one repository out: acme/shop -> gpte" in shown
    # A weight of the files' ranking needs the ranking done again: refused, saying so.
    refused = subprocess.run(
        [*common, "run", "--variant", 'notest={"test": 0.2}'], capture_output=True, text=True
    )
    assert refused.returncode != 0
    assert "test are weights of the files' ranking (use context_pool.py)" in refused.stderr
