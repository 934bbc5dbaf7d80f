"""What the probe is shown of the code: what changed, and the methods the request names."""

from __future__ import annotations

from pathlib import Path

from git_gpte.prompts.probe import changed_signatures
from tests.conftest import run_gpte
from tests.helpers.gitrepo import make_repo
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

    @classmethod
    def square(cls, side):
        return cls([(0, 0), (side, 0), (side, side), (0, side)])
"""
REQUEST = "Polygon.area comes out negative when the points are listed clockwise."
# Seen (geometry/clockwise-area): the change in edges alone, the area left as it was.
EDGES = SHAPES.replace(
    "        return list(zip(self.points",
    "        points = self.points[:]\n        return list(zip(self.points",
)


def test_a_method_the_request_names_is_shown_with_its_decorator() -> None:
    shown = changed_signatures({"shapes.py": (SHAPES, EDGES)}, REQUEST)
    assert shown.splitlines() == [
        "# shapes.py: import shapes",
        "class Polygon:",
        "    def __init__(self, points)",
        "    def edges(self)",
        "    @property",
        "    def area(self)",
    ]
    # without the request's words: what changed only
    assert "area" not in changed_signatures({"shapes.py": (SHAPES, EDGES)})
    squared = SHAPES.replace("cls([(0, 0)", "cls([(0.0, 0)")
    assert "    @classmethod\n    def square(cls, side)" in changed_signatures(
        {"shapes.py": (SHAPES, squared)}
    )


def test_the_probe_is_asked_with_the_named_property(tmp_path: Path, llm_server: LLMServer) -> None:
    root = make_repo(tmp_path / "shapes", {"shapes.py": SHAPES})
    llm_server.queue(f"shapes.py\n```python\n{EDGES}```\n", "no probe here")
    done = run_gpte("improve", REQUEST, cwd=root, env=self_hosted_env(llm_server, GPTE_PROBE=""))
    # The area left as it was, and no probe: committed, never as a success (it was, at 7201303).
    assert done.returncode == 1 and "not verified" in done.stdout, done.stderr
    asked = llm_server.requests[1].body["messages"][-1]["content"]
    assert "    @property\n    def area(self)" in asked
