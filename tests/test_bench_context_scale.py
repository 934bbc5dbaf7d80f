"""bench/context_scale.py on a real repository (``--repo``): a clone is measured, cold once
and warm for each request, beside ``git grep``; the user's repository is left as it was."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.helpers.gitrepo import make_repo
from tests.helpers.shop_repo import PY_FILES

SCRIPT = Path(__file__).resolve().parents[1] / "bench" / "context_scale.py"


def test_a_real_repository_is_measured_in_a_clone(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "shop", PY_FILES)
    argv = [sys.executable, str(SCRIPT), "--repo", str(root)]
    argv += ["--request", "apply the --discount code", "--request", "shipping cost"]
    argv += ["--warm-runs", "2"]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert f"cloned {root} ({len(PY_FILES)} files)" in out
    names = [line for line in out.splitlines() if line.startswith("git ")]
    assert names[0].startswith("git grep -c -i -e discount HEAD")
    assert sum("(cold)" in name for name in names) == 1
    warm = [line.split() for line in names if "(warm, " in line]
    assert len(warm) == 2
    for row in warm:  # the median of two runs lies between the fastest and the slowest
        low, high = map(float, row[-1].split("-"))
        assert low <= float(row[-5]) <= high
    assert not (root / ".git" / "gpte").exists()  # the clone was indexed, not the repository
