"""Signatures of what a block of definitions calls (git_gpte.edit.callees)."""

from __future__ import annotations

from git_gpte.edit.callees import MAX_SIGNATURES, called_signatures

STORE = '''\
import json


class Store:
    def load(self, path,
             strict=False):
        """Read the tasks from ``path``.

        Long description.
        """
        return json.loads(path)

    def get(self, key):
        return key


def helper(x):
    return x
'''


def test_the_signatures_of_called_functions_come_in_the_order_of_the_calls() -> None:
    block = "def report(store, path):\n    rows = helper(store.load(path))\n    return rows\n"
    got = called_signatures([("report.py", block)], {"store.py": STORE, "notes.md": "load()"})
    assert got == [
        (
            "store.py",
            "def helper(x):\n"
            "class Store:\n"
            "    def load(self, path,\n"
            "             strict=False):\n"
            '        """Read the tasks from ``path``."""',
        )
    ]


def test_names_the_block_defines_or_many_files_define_are_left_out() -> None:
    many = {f"m{n}.py": "def get(key):\n    return key\n" for n in range(3)}
    block = "class Report:\n    def helper(self):\n        return self.get(helper(1))\n"
    assert called_signatures([("r.py", block)], {**many, "store.py": STORE}) == []


def test_a_block_that_does_not_parse_or_calls_nothing_known_gives_nothing() -> None:
    assert called_signatures([("r.py", "def broken(:\n")], {"store.py": STORE}) == []
    assert called_signatures([("r.py", "def f():\n    return print(1)\n")], {"s.py": STORE}) == []


def test_at_most_a_few_signatures_are_shown() -> None:
    source = "".join(f"def f{n}():\n    return {n}\n\n" for n in range(MAX_SIGNATURES + 5))
    block = "def main():\n" + "".join(f"    f{n}()\n" for n in range(MAX_SIGNATURES + 5))
    ((path, text),) = called_signatures([("main.py", block)], {"lib.py": source})
    assert path == "lib.py" and text.count("def ") == MAX_SIGNATURES
