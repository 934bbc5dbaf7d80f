"""Answers that write only what they add to a function, through ``git gpte improve``.

Seen with the 1.5B model on real projects: asked that more-itertools' ``chunked`` refuse
``n == 0``, it wrote the ``def`` line, the docstring and the new check, and nothing of the
body; asked that cachetools' ``Cache.__init__`` refuse a negative size, it wrote
``def __init__(self, maxsize, getsizeof=None)`` alone (the module has seven classes with an
``__init__``), the check, and then ``Cache.__init__(self, maxsize, getsizeof)``. Each answer
came back the same on every retry, and each run ended with nothing useful.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_gpte
from tests.helpers.gitrepo import git, make_repo
from tests.helpers.llm_server import LLMServer, self_hosted_env

CHUNKS = '''"""Splitting iterables."""


def chunked(items, n):
    """Lists of n items; the last one may be shorter."""
    out = []
    for start in range(0, len(items), n):
        out.append(items[start : start + n])
    return out


class Cache:
    def __init__(self, maxsize, getsizeof=None):
        self.maxsize = maxsize
        self.getsizeof = getsizeof


class LRUCache(Cache):
    def __init__(self, maxsize, getsizeof=None):
        Cache.__init__(self, maxsize, getsizeof)
        self.order = []
'''

TESTS = """from chunks import Cache, LRUCache, chunked


def test_chunked():
    assert chunked([1, 2, 3], 2) == [[1, 2], [3]]


def test_caches():
    assert Cache(2).maxsize == 2 and LRUCache(3).order == []
"""

CHECK = "if n == 0:\n        raise ValueError('n must be at least 1')\n"
GUARD_ONLY = (
    "chunks.py\n```python\ndef chunked(items, n):\n"
    '    """Lists of n items; the last one may be shorter."""\n'
    f"    {CHECK}```\n"
)
SIZE_CHECK = "if maxsize < 0:\n            raise ValueError('maxsize must be non-negative')\n"
WRAPPER = (
    "chunks.py\n```python\ndef __init__(self, maxsize, getsizeof=None):\n"
    + f"    {SIZE_CHECK.replace('    ', '', 1)}"
    + "    Cache.__init__(self, maxsize, getsizeof)\n```\n"
)


def _improve(tmp_path: Path, llm_server: LLMServer, request: str, answer: str) -> str:
    repo = make_repo(tmp_path / "r", {"chunks.py": CHUNKS, "test_chunks.py": TESTS})
    llm_server.queue(answer, answer, answer)
    done = run_gpte(
        "improve", request, "--json", "--edit-format", "definitions", "--no-probe",
        "--check", "python -m pytest -q -p no:cacheprovider",
        cwd=repo, env=self_hosted_env(llm_server), timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert len(llm_server.requests) == 1  # placed right the first time: no retry
    return git(repo, "show", f"{json.loads(done.stdout)['branch']}:chunks.py")


def test_a_function_written_as_its_new_check_alone_keeps_its_body(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    request = "chunked should raise ValueError when n is 0"
    result = _improve(tmp_path, llm_server, request, GUARD_ONLY)
    assert result == CHUNKS.replace("    out = []\n", f"    {CHECK}    out = []\n")


# The same model's next answer to it: placed in the right class, the check and the end of the
# body, its first lines lost.
LOST_HEAD = (
    "chunks.py\n```python\nclass Cache:\n    def __init__(self, maxsize, getsizeof=None):\n"
    f"        {SIZE_CHECK}        self.getsizeof = getsizeof\n```\n"
)


@pytest.mark.parametrize("answer", [WRAPPER, LOST_HEAD], ids=["calls-itself", "lost-head"])
def test_a_method_calling_itself_or_losing_its_head_keeps_its_body(
    tmp_path: Path, llm_server: LLMServer, answer: str
) -> None:
    request = "Cache.__init__ should raise ValueError when maxsize is negative"
    result = _improve(tmp_path, llm_server, request, answer)
    assert result == CHUNKS.replace(
        "        self.maxsize = maxsize\n", f"        {SIZE_CHECK}        self.maxsize = maxsize\n"
    )


REPORT = '''"""A report from the command line."""

import argparse


def split_list(text):
    return [item.strip() for item in text.split(",") if item.strip()]


def load(path, number_fields, date_fields):
    return {"path": path, "numbers": number_fields, "dates": date_fields}


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("path")
    parser.add_argument("--numbers", default="")
    parser.add_argument("--dates", default="")
    parser.add_argument("--value")
    args = parser.parse_args(argv)

    number_fields = split_list(args.numbers)
    date_fields = split_list(args.dates)
    if args.value and args.value not in number_fields:
        number_fields.append(args.value)

    loaded = load(args.path, number_fields, date_fields)
    print(loaded)
    return loaded
'''
REPORT_TESTS = """from report import main


def test_the_value_is_a_number_field():
    assert main(["f.csv", "--numbers", "a", "--value", "b"])["numbers"] == ["a", "b"]
"""
# As the 1.5B model answered csvreport/sort-option three times running: the lines building
# the two lists gone, the lists still passed on.
LOST_LINES = (
    "report.py\n```python\n"
    + REPORT[REPORT.index("def main") : REPORT.index("    args = parser")]
    + '    parser.add_argument("--title", default="")\n'
    + "    args = parser.parse_args(argv)\n"
    + "    if args.title:\n        print(args.title)\n"
    + REPORT[REPORT.index("    loaded = load") :]
    + "```\n"
)


def test_lines_setting_names_the_rewrite_still_uses_are_put_back(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    repo = make_repo(tmp_path / "r", {"report.py": REPORT, "test_report.py": REPORT_TESTS})
    llm_server.queue(LOST_LINES, LOST_LINES, LOST_LINES)
    done = run_gpte(
        "improve", "Add a --title option to main and print the title before the data.",
        "--json", "--edit-format", "definitions", "--no-probe",
        "--check", "python -m pytest -q -p no:cacheprovider",
        cwd=repo, env=self_hosted_env(llm_server), timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert len(llm_server.requests) == 1  # repaired, not asked again
    assert "put back the lines that set date_fields, number_fields" in done.stdout
    text = git(repo, "show", f"{json.loads(done.stdout)['branch']}:report.py")
    body = text[text.index("def main") :]
    restored = body.index("number_fields = split_list(args.numbers)")
    assert body.index("if args.title") < restored < body.index("loaded = load(")
    assert "number_fields.append(args.value)" in body
    assert 'parser.add_argument("--title", default="")' in body
