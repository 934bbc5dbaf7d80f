"""bench/context_pack_sim.py: rankings kept once on a small mirror, variants packed from them."""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.conftest import SHARED
from tests.helpers.pool_task import one_task_pool

ROOT = Path(__file__).resolve().parents[1]
SIM = str(ROOT / "bench/context_pack_sim.py")
sys.path.insert(0, str(ROOT / "bench"))

from context_pack_sim import changed_first  # noqa: E402


def test_kept_rankings_are_packed_under_each_variant(tmp_path: Path) -> None:
    tasks, mirrors = one_task_pool(tmp_path)
    kept = tmp_path / "rankings"
    common = [sys.executable, SIM, "--tasks", str(tasks), "--rankings", str(kept)]
    capture = [*common, "capture", "--mirror-root", str(mirrors),
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
    # How far a better order of files could go: the changed file first, or alone.
    bounds = subprocess.run([*common, "bounds"], capture_output=True, text=True, check=True)
    for way in ("as is", "changed first", "changed only"):
        assert f"| {way}, python | 1 | 100.0 / 100.0 / 100.0 / 100.0 |" in bounds.stdout
        assert f"| {way}, 1 file changed | 1 |" in bounds.stdout

    def cart_chunk(ranking: Any) -> float:
        return next(c.score for c in ranking.chunks if c.file.cand.path == "shop/cart.py")

    before = cart_chunk(pickle.loads((kept / "shop-1.pkl").read_bytes()))
    ranking = pickle.loads((kept / "shop-1.pkl").read_bytes())
    first = changed_first(ranking, {"shop/cart.py"}, keep_rest=True)
    assert first.files[0].cand.path == "shop/cart.py" and len(first.files) > 1
    assert cart_chunk(first) > before  # its chunks scored again with its file's new score
    ranking = pickle.loads((kept / "shop-1.pkl").read_bytes())
    alone = changed_first(ranking, {"shop/cart.py"}, keep_rest=False)
    assert [f.cand.path for f in alone.files] == ["shop/cart.py"]
    assert {c.file.cand.path for c in alone.chunks} == {"shop/cart.py"}
    # A weight of the files' ranking needs the ranking done again: refused, saying so.
    refused = subprocess.run(
        [*common, "run", "--variant", 'notest={"test": 0.2}'], capture_output=True, text=True
    )
    assert refused.returncode != 0
    assert "test are weights of the files' ranking (use context_pool.py)" in refused.stderr
