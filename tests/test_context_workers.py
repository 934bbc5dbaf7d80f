"""A large cold index is parsed by worker processes (index.py): the index they build is the one
this process builds, a repository past the threshold is indexed so through the CLI, and where
no process can be had the rest is parsed here."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import types
from collections.abc import Iterator
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest

from git_gpte.context import index
from git_gpte.context.index import ensure_indexed, list_candidates
from git_gpte.context.store import FILENAME, IndexStore, Stored
from git_gpte.git import Repository
from tests.conftest import run_gpte
from tests.helpers.gitrepo import make_repo
from tests.helpers.shop_repo import PY_FILES

FILES: dict[str, str | bytes] = {
    **PY_FILES,
    **{f"pkg/mod_{n}.py": f"def handler_{n}(value):\n    return value + {n}\n" for n in range(40)},
    "web/app.js": "function serve(port) {\n  return port;\n}\n",
    "logo.png": b"\x89PNG\r\n\x1a\n\x00\x00binary",
    "keys/deploy.txt": "-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n",
}
TABLES = ("blobs", "postings", "defs", "links")


def _rows(root: Path) -> dict[str, list[tuple[object, ...]]]:
    conn = sqlite3.connect(root / ".git" / "gpte" / FILENAME)
    try:
        return {t: sorted(conn.execute(f"SELECT * FROM {t}").fetchall()) for t in TABLES}
    finally:
        conn.close()


def _build(root: Path, workers: int) -> int:
    repo = Repository.discover(root)
    files = list_candidates(repo, repo.resolve_commit("HEAD")).files
    store = IndexStore(repo.state_dir())
    try:
        return ensure_indexed(repo, store, files, workers=workers)
    finally:
        store.close()


def test_worker_processes_build_the_index_this_process_builds(tmp_path: Path) -> None:
    here = make_repo(tmp_path / "here", FILES)
    there = make_repo(tmp_path / "there", FILES)
    assert _build(here, workers=1) == _build(there, workers=2) > 40
    rows = _rows(there)
    assert rows == _rows(here)
    statuses = {status for _, status, *_ in rows["blobs"]}
    assert {"ok", "binary"} <= statuses and any(s.startswith("secret:") for s in statuses)


def test_where_worker_processes_fail_the_rest_is_parsed_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    here = make_repo(tmp_path / "here", FILES)
    there = make_repo(tmp_path / "there", FILES)
    _build(here, workers=1)

    def first_job_then_broken(jobs: Iterator[index._Job], workers: int) -> Iterator[list[Stored]]:
        yield index._parse_job(next(jobs))
        raise BrokenProcessPool("a worker died")

    monkeypatch.setattr(index, "_in_processes", first_job_then_broken)
    _build(there, workers=2)
    assert _rows(there) == _rows(here)


def _large_files() -> dict[str, str | bytes]:
    """Past PARALLEL_MIN_BYTES of source: a cold build of these goes to worker processes."""
    words = " ".join(["the ledger keeps every posting of the quarter"] * 20)
    body = "".join(
        f'def step_{i}(total):\n    """{words}"""\n    return total * {i}\n\n\n' for i in range(60)
    )
    files: dict[str, str | bytes] = {f"lib/part_{n}.py": body for n in range(3)}
    files.update({f"lib/unique_{n}.py": f"# {n}\n" + body for n in range(40)})
    files["lib/invoice.py"] = "def invoice_total(lines):\n    return sum(lines)\n"
    assert sum(len(str(text)) for text in files.values()) > index.PARALLEL_MIN_BYTES
    return files


def test_a_large_repository_is_indexed_cold_through_the_cli(tmp_path: Path) -> None:
    files = _large_files()
    root = make_repo(tmp_path / "big", files)
    request = "round the invoice total"
    cold = run_gpte("context", "--json", request, cwd=root, process=True)
    assert cold.returncode == 0, cold.stderr
    assert "lib/invoice.py" in cold.stdout
    warm = run_gpte("context", "--json", request, cwd=root, process=True)
    assert warm.stdout == cold.stdout
    built_here = make_repo(tmp_path / "here", files)
    _build(built_here, workers=1)
    assert _rows(root) == _rows(built_here)


@pytest.mark.parametrize(
    ("file", "spec", "ours"),
    [
        ("/usr/local/bin/git-gpte", None, True),
        ("/src/git_gpte/__main__.py", "git_gpte.__main__", True),
        ("/home/me/report.py", None, False),
        ("/home/me/git_gpte_tools.py", "git_gpte_tools", False),
        (None, None, False),  # python -c, an interactive session
    ],
)
def test_workers_are_spawned_only_from_git_gpte_itself(
    monkeypatch: pytest.MonkeyPatch, file: str | None, spec: str | None, ours: bool
) -> None:
    main = types.ModuleType("__main__")
    if file is not None:
        main.__file__ = file
    main.__spec__ = None if spec is None else types.SimpleNamespace(name=spec)  # type: ignore[assignment]
    monkeypatch.setitem(sys.modules, "__main__", main)
    assert index._program_is_git_gpte() is ours
    assert (index._workers(index.PARALLEL_MIN_BYTES) > 1) is (ours and _cpus() > 1)


def _cpus() -> int:
    import os

    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def test_a_program_using_the_library_runs_its_top_level_once(tmp_path: Path) -> None:
    # A script with no ``if __name__ == "__main__"`` guard: a spawned worker would import it
    # again and run it. Indexed in its own process, its line is printed once.
    root = make_repo(tmp_path / "big", _large_files())
    script = tmp_path / "report.py"
    script.write_text(
        "import sys\n"
        "from git_gpte.context import select\n"
        "from git_gpte.git import Repository\n"
        "print('top level ran', flush=True)\n"
        "selection = select(Repository.discover(sys.argv[1]), 'HEAD', 'invoice total', 4096)\n"
        "print(selection.picks[0].path)\n"
    )
    proc = subprocess.run(
        [sys.executable, str(script), str(root)], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("top level ran") == 1
    assert "lib/invoice.py" in proc.stdout
