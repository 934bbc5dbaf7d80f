"""bench/locbench_tasks.py: locbench's task rules applied to a real repository's history."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

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


def test_a_commit_whose_parent_lacks_a_blob_makes_no_task(tmp_path: Path) -> None:
    # A snapshot may come without its largest files' blobs: such a task could not be checked
    # out to be scored (js-yaml's benchmark/samples/document_huge.yaml).
    mirror = tmp_path / "mirrors" / "acme+shop" / "repo"
    root = make_repo(mirror, {"shop/cart.py": "def total():\n    return 1\n", "big.yaml": "a: 1\n"})
    write_files(root, {"shop/cart.py": "def total():\n    return 2\n", "big.yaml": "a: 3\n"})
    first = commit_all(root, "Make the total two")
    write_files(root, {"shop/cart.py": "def total():\n    return 3\n", "big.yaml": "a: 2\n"})
    second = commit_all(root, "Make the total three")
    assert [t["commit"] for t in tasks.tasks_for(mirror, "acme/shop", 10)] == [first, second]

    blob = git(root, "rev-parse", f"{first}^:big.yaml").strip()  # in the first's parent only
    (root / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    assert [t["commit"] for t in tasks.tasks_for(mirror, "acme/shop", 10)] == [second]


def test_source_files_of_four_languages() -> None:
    expected = {
        "a/b.py": "python",
        "cmd/main.go": "go",
        "src/x.ts": "typescript",
        "src/App.tsx": "typescript",
        "lib/y.js": "javascript",
        "ui/z.jsx": "javascript",
        "esm.mjs": "javascript",
        "rollup.config.cjs": "javascript",
        "index.d.ts": None,
        "package.json": None,
        "README.md": None,
    }
    assert {path: tasks.language_of(path) for path in expected} == expected


def test_tests_are_not_gold_by_each_languages_conventions() -> None:
    for path, language in [
        ("server_test.go", "go"),
        ("pkg/testdata/fixture.go", "go"),
        ("test/request.go", "go"),  # echo's helpers for its tests
        ("typings/commander-tests.ts", "typescript"),
        ("runtime_tests/workerd/index.ts", "typescript"),
        ("src/a.test.ts", "typescript"),
        ("src/b.spec.tsx", "typescript"),
        ("index.test-d.ts", "typescript"),
        ("src/__tests__/c.ts", "typescript"),
        ("e2e/login.ts", "typescript"),
        ("test/app.js", "javascript"),
        ("tests/util.mjs", "javascript"),
        ("spec/lib/router.js", "javascript"),
        ("test.js", "javascript"),
    ]:
        assert tasks.is_test(path, language), path
    for path, language in [
        ("latest.go", "go"),
        ("testing/helper.go", "go"),
        ("src/latest-tests-run.ts", "typescript"),
        ("src/contests/list.ts", "typescript"),
        ("src/contest.ts", "typescript"),
        ("src/testing.js", "javascript"),
        ("lib/attest.js", "javascript"),
    ]:
        assert not tasks.is_test(path, language), path


def test_vendored_built_and_minified_files_are_not_gold_outside_python() -> None:
    for path, language in [
        ("vendor/github.com/x/y.go", "go"),
        ("source/vendor/ansi.js", "javascript"),
        ("node_modules/a/index.js", "javascript"),
        ("dist/axios.js", "javascript"),
        ("static/jquery.min.js", "javascript"),
        ("deno_dist/router.ts", "typescript"),
        ("deno/lib/types.ts", "typescript"),
    ]:
        assert tasks.is_generated(path, language), path
    assert not tasks.is_generated("src/adapter/deno/serve.ts", "typescript")
    assert not tasks.is_generated("requests/packages/urllib3/util.py", "python")  # locbench's rule


def test_a_tasks_language_is_that_of_most_gold_files() -> None:
    assert tasks.task_language(["a.go"]) == "go"
    assert tasks.task_language(["a.js", "b.js", "c.ts"]) == "javascript"
    assert tasks.task_language(["a.js", "c.ts"]) == "typescript"  # a tie: the first listed
    assert tasks.task_language(["setup.py", "x.js"]) == "python"


def test_tasks_of_several_languages_from_a_real_history(tmp_path: Path) -> None:
    mirror = tmp_path / "mirrors" / "acme+mixed" / "repo"
    body = "".join(f"// line {i}\n" for i in range(10))
    generated = "// Code generated by stringer; DO NOT EDIT.\n\npackage p\n"
    root = make_repo(
        mirror,
        {
            "server.go": "package p\n" + body,
            "server_test.go": "package p\n",
            "kind_string.go": generated + body,
            "src/client.ts": body,
            "src/client.test.ts": body,
            "src/types.d.ts": body,
            "dist/client.js": body,
            "lib/a.js": body,
            "lib/b.js": body,
            "lib/c.ts": body,
        },
    )
    write_files(root, {"server.go": "package p\n" + body.replace("line 4", "line four")})
    write_files(root, {"server_test.go": "package p\n\n"})
    go = commit_all(root, "Rename line four (#12)")
    write_files(root, {"kind_string.go": generated + body + "// more\n"})
    commit_all(root, "Regenerate: no task")
    changed = {p: body.replace("line 0", "line zero") for p in ("src/types.d.ts", "dist/client.js")}
    write_files(root, {"src/client.test.ts": body + "// case\n", **changed})
    commit_all(root, "Only tests, declarations and built files: no task")
    write_files(root, {"src/client.ts": body.replace("line 9", "line nine"), **changed})
    ts = commit_all(root, "Say line nine")
    write_files(root, {p: body + "// end\n" for p in ("lib/a.js", "lib/b.js", "lib/c.ts")})
    js = commit_all(root, "Mark the end")

    made = {t["commit"]: t for t in tasks.tasks_for(mirror, "acme/mixed", 10)}
    assert list(made) == [go, ts, js]
    assert made[go]["gold"] == ["server.go"]
    assert made[go]["gold_lines"] == {"server.go": [[6, 6]]}
    assert made[go]["query"] == "Rename line four"
    assert made[ts]["gold"] == ["src/client.ts"]
    assert made[ts]["gold_lines"] == {"src/client.ts": [[10, 10]]}
    assert made[js]["gold"] == ["lib/a.js", "lib/b.js", "lib/c.ts"]
    assert made[js]["gold_lines"]["lib/c.ts"] == [[10, 10]]  # an insertion after the last line
    assert [t["language"] for t in made.values()] == ["go", "typescript", "javascript"]

    only = list(tasks.tasks_for(mirror, "acme/mixed", 10, ("typescript",)))
    assert [(t["commit"], t["gold"]) for t in only] == [(ts, ["src/client.ts"]), (js, ["lib/c.ts"])]
    assert all(t["language"] == "typescript" for t in only)


def test_languages_option(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    mirror = tmp_path / "acme+duo" / "repo"
    root = make_repo(mirror, {"a.py": "A = 1\nB = 2\n", "b.go": "package b\nvar B = 2\n"})
    write_files(root, {"a.py": "A = 1\nB = 3\n", "b.go": "package b\nvar B = 3\n"})
    both = commit_all(root, "Make B three in both")
    argv = ["locbench_tasks.py", "--mirror-root", str(tmp_path), "--languages", "go", "acme/duo"]
    monkeypatch.setattr(sys, "argv", argv)
    assert tasks.main() == 0
    (line,) = capsys.readouterr().out.splitlines()
    task = json.loads(line)
    assert (task["commit"], task["gold"], task["language"]) == (both, ["b.go"], "go")

    monkeypatch.setattr(sys, "argv", [*argv[:4], "go,cobol", "acme/duo"])
    with pytest.raises(SystemExit) as exited:
        tasks.main()
    assert exited.value.code == 2
