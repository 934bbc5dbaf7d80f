"""bench/locbench_tasks.py: locbench's task rules applied to a real repository's history."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

from tests.helpers.gitrepo import commit_all, git, make_repo, write_files

ROOT = Path(__file__).resolve().parents[1]


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "locbench_tasks", ROOT / "bench/locbench_tasks.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["locbench_tasks"] = module
    spec.loader.exec_module(module)
    return module


tasks = _load()


def test_message_is_cleaned_like_locbench() -> None:
    message = (
        "Fix the retry loop (#123)\n\nSee #45 and gh-9; keep a/b#3.\n"
        "* Update client.py\n\nSigned-off-by: A <a@example.com>\nCo-authored-by: B <b@x>\n"
    )
    assert tasks.clean_message(message) == "Fix the retry loop\n\nSee  and ; keep a/b#3."


def test_gold_ranges_merge_and_mark_insertions_by_both_neighbours() -> None:
    diff = (
        "@@ -3 +3 @@\n-a\n+b\n"  # one line changed
        "@@ -4,2 +4,0 @@\n-c\n-d\n"  # two deleted, next to it: merged
        "@@ -10,0 +9,2 @@\n+e\n+f\n"  # inserted after line 10
        "@@ -20,0 +21 @@\n+g\n"  # inserted after the last line
    )
    assert tasks.gold_ranges(diff, 20) == [[3, 5], [10, 11], [20, 20]]


def test_tests_are_not_gold() -> None:
    for path in ("tests/test_a.py", "pkg/testing/x.py", "test_b.py", "c_test.py", "conftest.py"):
        assert tasks.is_test(path), path
    for path in ("pkg/contest.py", "pkg/attest.py", "latest.py"):
        assert not tasks.is_test(path), path


def test_tasks_from_a_real_history(tmp_path: Path) -> None:
    mirror = tmp_path / "mirrors" / "acme+shop" / "repo"
    root = make_repo(
        mirror,
        {
            "shop/cart.py": "".join(f"def step_{i}():\n    return {i}\n\n\n" for i in range(10)),
            "tests/test_cart.py": "def test_x():\n    assert True\n",
        },
    )
    cart = (root / "shop/cart.py").read_text()
    write_files(
        root,
        {
            "shop/cart.py": cart.replace("return 3", "return 30"),
            "tests/test_cart.py": "def test_x():\n    assert 1\n",
        },
    )
    first = commit_all(root, "Make step 3 return thirty (#7)\n\nCo-authored-by: B <b@x>")
    write_files(root, {"tests/test_cart.py": "def test_y():\n    assert 2\n"})
    commit_all(root, "Only tests change: no task")
    write_files(root, {"shop/new.py": "X = 1\n"})
    commit_all(root, "An added file is not a modified one: no task")

    made = list(tasks.tasks_for(mirror, "acme/shop", 10))
    assert [t["commit"] for t in made] == [first]
    (task,) = made
    assert task["query"] == "Make step 3 return thirty"
    assert task["parent"] == git(root, "rev-parse", f"{first}^").strip()
    assert task["gold"] == ["shop/cart.py"]
    assert task["gold_lines"] == {"shop/cart.py": [[14, 14]]}
    assert task["id"] == f"shop-{first[:10]}"
    json.dumps(task)  # one JSON line per task
