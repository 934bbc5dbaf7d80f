"""The index's link facts (link_facts.py): written with each record, equal to what the record
gives, read in place of whole records; an index of the schema before them is rebuilt."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from git_gpte.context import select
from git_gpte.context.index import ensure_indexed, list_candidates
from git_gpte.context.link_facts import MAP_SIGNATURES, LinkFacts
from git_gpte.context.store import FILENAME, SCHEMA_VERSION, IndexStore
from git_gpte.git import Repository
from tests.conftest import run_gpte
from tests.helpers.gitrepo import make_repo
from tests.helpers.shop_repo import PY_FILES

MANY_DEFS = {
    "big.py": "".join(f"def helper_{i}(x):\n    return shop_total(x) + {i}\n\n" for i in range(20)),
    "shop_total.py": "def shop_total(x):\n    return x\n",
}


def _indexed(tmp_path: Path) -> tuple[Repository, IndexStore, list[str]]:
    root = make_repo(tmp_path / "r", {**PY_FILES, **MANY_DEFS})
    repo = Repository.discover(root)
    files = list_candidates(repo, repo.resolve_commit("HEAD")).files
    store = IndexStore(repo.state_dir())
    ensure_indexed(repo, store, files)
    return repo, store, [c.key for c in files]


def test_link_facts_equal_what_the_records_give(tmp_path: Path) -> None:
    _, store, keys = _indexed(tmp_path)
    try:
        records = store.records(keys)
        facts = store.link_facts(keys)
        assert records and set(facts) == set(records)  # none for the binary logo.png
        for key, record in records.items():
            assert facts[key] == LinkFacts.of_record(record)
            used = {ident for chunk in record.chunks for ident in chunk.idents}
            assert facts[key].used == tuple(sorted(used))
            assert facts[key].defs == tuple(sorted({name for name, _ in record.defs}))
        big = next(f for f in facts.values() if "helper_0" in f.defs)
        assert len(big.signatures) == MAP_SIGNATURES
        assert big.signatures[0] == (1, "def helper_0(x):")
    finally:
        store.close()


def test_an_index_of_the_schema_before_link_facts_is_rebuilt(tmp_path: Path) -> None:
    repo, store, keys = _indexed(tmp_path)
    store.close()
    path = repo.state_dir() / FILENAME
    conn = sqlite3.connect(path)
    conn.execute("DROP TABLE links")
    conn.execute("UPDATE meta SET value = ? WHERE key = 'schema'", (str(SCHEMA_VERSION - 1),))
    conn.commit()
    conn.close()
    reopened = IndexStore(repo.state_dir())
    try:
        assert reopened.rebuilt and reopened.link_facts(keys) == {}
    finally:
        reopened.close()
    head = repo.resolve_commit("HEAD")
    assert select(repo, head, "discount", 4000).picks[0].path == "shop/pricing.py"
    again = IndexStore(repo.state_dir())
    try:
        assert not again.rebuilt
        records = again.records(keys)
        facts = again.link_facts(keys)
        assert set(facts) == set(records)
        assert all(facts[key] == LinkFacts.of_record(r) for key, r in records.items())
    finally:
        again.close()


def test_damaged_link_facts_are_indexed_again(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "r", PY_FILES)
    first = run_gpte("context", "discount", "--format", "lines", cwd=root)
    assert first.returncode == 0, first.stderr
    conn = sqlite3.connect(Repository.discover(root).state_dir() / FILENAME)
    conn.execute("UPDATE links SET data = x'00112233'")
    conn.commit()
    conn.close()
    again = run_gpte("context", "discount", "--format", "lines", cwd=root)
    assert again.returncode == 0, again.stderr
    assert again.stdout == first.stdout and "shop/pricing.py" in again.stdout
