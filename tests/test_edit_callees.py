"""What a block of definitions calls in other files (git_gpte.edit.callees)."""

from __future__ import annotations

from git_gpte.edit.callees import MAX_SIGNATURES, called_signatures

STORE = '''\
import json


class Store:
    def load(self, path,
             strict=False) -> list:
        """Read the tasks from ``path``.

        Long description.
        """
        return json.loads(path)

    def get(self, key):
        return key


def helper(x):
    return x
'''


def test_what_a_block_calls_in_other_files_comes_in_the_order_of_the_calls() -> None:
    block = "def report(store, path):\n    rows = helper(store.load(path))\n    return rows\n"
    got = called_signatures([("report.py", block)], {"store.py": STORE, "notes.md": "load()"})
    assert [s.render() for s in got] == [
        "- `helper(x)` in store.py",
        "- `Store.load(self, path, strict=False) -> list` in store.py: Read the tasks from "
        "``path``.",
    ]
    # What an answer writing them back would hold.
    assert got[1].lines == {
        "class Store:",
        "def load(self, path,",
        "strict=False) -> list:",
        "Read the tasks from ``path``.",
        '"""Read the tasks from ``path``."""',
    }


def test_names_the_block_defines_its_own_file_defines_or_many_files_define_are_left_out() -> None:
    many = {f"m{n}.py": "def get(key):\n    return key\n" for n in range(3)}
    block = "class Report:\n    def helper(self):\n        return self.get(helper(1))\n"
    assert called_signatures([("r.py", block)], {**many, "store.py": STORE}) == []
    assert (
        called_signatures([("store.py", "def f(s):\n    return s.load(1)\n")], {"store.py": STORE})
        == []
    )


def test_a_block_that_does_not_parse_or_calls_nothing_known_gives_nothing() -> None:
    assert called_signatures([("r.py", "def broken(:\n")], {"store.py": STORE}) == []
    assert called_signatures([("r.py", "def f():\n    return print(1)\n")], {"s.py": STORE}) == []


def test_at_most_a_few_signatures_are_shown() -> None:
    source = "".join(f"def f{n}():\n    return {n}\n\n" for n in range(MAX_SIGNATURES + 5))
    block = "def main():\n" + "".join(f"    f{n}()\n" for n in range(MAX_SIGNATURES + 5))
    got = called_signatures([("main.py", block)], {"lib.py": source})
    assert [s.name for s in got] == [f"f{n}" for n in range(MAX_SIGNATURES)]
