"""improve puts back a definition the request does not name when changing it broke tests.

Seen with the 1.5B model: asked for a positive ``Polygon.area``, it wrote ``area`` right and made
``centroid`` a property in the same answer; the tests calling ``centroid()`` failed, and the
retries lost the fix. The result with ``centroid`` as it was passes: that is what is committed.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import run_gpte
from tests.helpers.gitrepo import Snapshot, git, make_repo
from tests.helpers.llm_server import LLMServer, self_hosted_env

SHAPES = """\
class Polygon:
    def __init__(self, points):
        self.points = points

    def edges(self):
        return list(zip(self.points, self.points[1:] + self.points[:1]))

    @property
    def area(self):
        return sum(a[0] * b[1] - b[0] * a[1] for a, b in self.edges()) / 2

    def centroid(self):
        xs = [p[0] for p in self.points]
        ys = [p[1] for p in self.points]
        return sum(xs) / len(xs), sum(ys) / len(ys)
"""

TESTS = """\
from shapes import Polygon


def test_centroid():
    assert Polygon([(0, 0), (2, 0), (2, 2), (0, 2)]).centroid() == (1, 1)


def test_area():
    assert Polygon([(0, 0), (2, 0), (2, 2), (0, 2)]).area == 4
"""

AREA = "        return sum(a[0] * b[1] - b[0] * a[1] for a, b in self.edges()) / 2\n"
FIXED = "        return abs(sum(a[0] * b[1] - b[0] * a[1] for a, b in self.edges())) / 2\n"
# The right fix of area, and centroid made a property on the way.
ANSWER = (
    "shapes.py\n```python\n"
    + SHAPES.replace(
        "        return sum(a[0] * b[1] - b[0] * a[1] for a, b in self.edges()) / 2\n", FIXED
    ).replace("    def centroid(self):", "    @property\n    def centroid(self):")
    + "```\n"
)
PROBE = (
    "```python\nfrom shapes import Polygon\n\n"
    "assert Polygon([(0, 0), (0, 2), (2, 2), (2, 0)]).area == 4\n```\n"
)
REQUEST = "Polygon.area comes out negative when the points are listed clockwise: make it positive."


def test_a_definition_the_request_does_not_name_is_put_back(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    repo = make_repo(tmp_path / "shapes", {"shapes.py": SHAPES, "tests/test_shapes.py": TESTS})
    before = Snapshot.take(repo)
    llm_server.queue(ANSWER, PROBE, PROBE)
    done = run_gpte(
        "improve", REQUEST, "--json", cwd=repo, env=self_hosted_env(llm_server), timeout=300
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["attempts"] == 1
    committed = git(repo, "show", f"{data['branch']}:shapes.py")
    assert FIXED in committed and "@property\n    def centroid" not in committed
    assert committed == SHAPES.replace(
        "        return sum(a[0] * b[1] - b[0] * a[1] for a, b in self.edges()) / 2\n", FIXED
    )
    shown = run_gpte("log", "show", data["run_id"], cwd=repo).stdout
    assert "put Polygon.centroid back as it was: the change to it broke tests" in shown
    before.assert_unchanged(repo, new_branches=(data["branch"],))


def test_nothing_is_put_back_when_the_request_names_no_changed_definition(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    repo = make_repo(tmp_path / "shapes", {"shapes.py": SHAPES, "tests/test_shapes.py": TESTS})
    llm_server.queue(ANSWER, ANSWER, ANSWER)
    vague = "Shapes with points listed clockwise come out wrong; fix it."
    done = run_gpte(
        "improve", vague, "--max-retries", "0", cwd=repo, env=self_hosted_env(llm_server),
        timeout=300,
    )  # fmt: skip
    assert done.returncode == 8, done.stderr
    assert "Tests that pass before your edits fail after them" in done.stderr


def test_the_texts_with_a_definition_as_it_was() -> None:
    from git_gpte.edit.revert import changed_definitions, with_definition_as_was

    after = ANSWER.split("```python\n")[1].split("```")[0]
    assert changed_definitions(SHAPES, after) == ["Polygon.area", "Polygon.centroid"]
    undone = with_definition_as_was(SHAPES, after, "Polygon.centroid")
    assert undone is not None and "@property\n    def centroid" not in undone and FIXED in undone
    assert with_definition_as_was(SHAPES, undone, "Polygon.area") == SHAPES
    assert changed_definitions(SHAPES, "def broken(:\n") == []
    assert with_definition_as_was(SHAPES, after, "Polygon.perimeter") is None


def test_a_definition_whose_wording_alone_changed_is_put_back() -> None:
    from git_gpte.edit.revert import keep_unasked_rewording

    reworded = SHAPES.replace(
        "    def edges(self):\n", '    def edges(self):\n        """The sides."""  # pairs\n'
    ).replace(AREA, FIXED)
    repair = keep_unasked_rewording(SHAPES, reworded, REQUEST)
    assert repair is not None and repair.detail.endswith("changed: Polygon.edges")
    assert repair.text == SHAPES.replace(AREA, FIXED)
    # asked about docstrings, or naming the definition: what the answer wrote stays
    assert keep_unasked_rewording(SHAPES, reworded, "document the class") is None
    assert keep_unasked_rewording(SHAPES, reworded, "fix edges and area") is None


def test_a_docstring_reworded_beside_the_fix_is_not_committed(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    repo = make_repo(tmp_path / "r", {"shapes.py": SHAPES, "test_shapes.py": TESTS})
    answer = ANSWER.replace("    @property\n    def centroid(self):", "    def centroid(self):")
    answer = answer.replace(
        "    def edges(self):\n", '    def edges(self):\n        """Each side, as a pair."""\n'
    )
    llm_server.queue(answer, PROBE)
    done = run_gpte(
        "improve", REQUEST, "--json", cwd=repo, env=self_hosted_env(llm_server), timeout=300
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert git(repo, "show", f"{data['branch']}:shapes.py") == SHAPES.replace(AREA, FIXED)
    assert any("only its wording changed: Polygon.edges" in line for line in data["corrected"])


NETMASK = '''"""Addresses."""


def dotted_netmask(mask):
    """Converts mask from /xx format to xxx.xxx.xxx.xxx

    Example: if mask is 24 function returns 255.255.255.0

    :rtype: str
    """
    bits = 0xFFFFFFFF ^ (1 << 32 - mask) - 1
    return ".".join(str(bits >> shift & 255) for shift in (24, 16, 8, 0))
'''
NETMASK_TESTS = """from net import dotted_netmask


def test_netmask():
    assert dotted_netmask(24) == "255.255.255.0"
"""
MASK_CHECK = (
    '    if not 0 <= mask <= 32:\n        raise ValueError("mask must be between 0 and 32")\n'
)


def test_docstring_lines_the_fix_dropped_are_put_back() -> None:
    from git_gpte.edit.wholefile import keep_docstring_lines

    fixed = NETMASK.replace("    bits =", MASK_CHECK + "    bits =")
    dropped = fixed.replace("\n    :rtype: str\n", "\n")
    repair = keep_docstring_lines(NETMASK, dropped, "dotted_netmask should refuse a bad mask")
    assert repair is not None and repair.text == fixed
    assert "dotted_netmask" in repair.detail
    # a docstring that gained or changed a line is the model's own change; so is one the
    # request asks about
    reworded = dropped.replace("Example:", "For example:")
    assert keep_docstring_lines(NETMASK, reworded, "refuse a bad mask") is None
    assert keep_docstring_lines(NETMASK, dropped, "tidy the docstring of dotted_netmask") is None
    assert keep_docstring_lines(NETMASK, fixed, "refuse a bad mask") is None


def test_a_docstring_line_dropped_beside_the_fix_is_not_committed(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    repo = make_repo(tmp_path / "r", {"net.py": NETMASK, "test_net.py": NETMASK_TESTS})
    fixed = NETMASK.replace("    bits =", MASK_CHECK + "    bits =")
    block = fixed.split("\n\n\n", 1)[1].replace("\n    :rtype: str\n", "\n")
    llm_server.queue(f"net.py\n```python\n{block}```\n")
    done = run_gpte(
        "improve", "dotted_netmask should raise ValueError when mask is not between 0 and 32",
        "--json", "--edit-format", "definitions", "--no-probe",
        cwd=repo, env=self_hosted_env(llm_server), timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert git(repo, "show", f"{data['branch']}:net.py") == fixed
    assert any("docstring line(s)" in line for line in data["corrected"])
