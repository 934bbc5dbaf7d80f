"""What a class has, said to a model that used an attribute it lacks: the pure function, then
``git gpte improve`` through the CLI against the scripted server, the answer reproducing the
1.5B model's ``task.completed`` for a ``Task`` whose field is ``done`` (todo/overdue-open-only).
"""

from __future__ import annotations

from pathlib import Path

from git_gpte.edit.attributes import missing_attribute_hints
from tests.conftest import run_gpte
from tests.helpers.gitrepo import git, make_repo
from tests.helpers.llm_server import LLMServer
from tests.helpers.llm_server import self_hosted_env as local_env

MODELS = """\
from dataclasses import dataclass


@dataclass
class Item:
    title: str


@dataclass
class Task(Item):
    done: bool = False
    COLOURS = ("red",)

    def __post_init__(self):
        self.tags = []

    def close(self):
        self.done = True
"""

QUERIES = """\
def open_titles(tasks):
    return [t.title for t in tasks]
"""

TESTS = """\
from models import Task
from queries import open_titles


def test_open_titles():
    assert open_titles([Task("a")]) == ["a"]
"""


def test_a_class_lacking_an_attribute_says_what_it_has() -> None:
    output = (
        "E   AttributeError: 'Task' object has no attribute 'completed'\n"
        "E   AttributeError: 'Task' object has no attribute 'completed'\n"
        "E   AttributeError: 'dict' object has no attribute 'title'\n"
    )
    hints = missing_attribute_hints(output, {"models.py": MODELS})
    assert hints == [
        "Task (in models.py) has no attribute `completed`; what it has: done, COLOURS, tags, "
        "close(), title. Use one of these, or define the attribute in the class."
    ]
    # A class defined twice, or not at all, says nothing.
    assert missing_attribute_hints(output, {"a.py": MODELS, "b.py": MODELS}) == []
    assert missing_attribute_hints(output, {"a.py": "x = (\n"}) == []


def test_a_failing_test_on_a_made_up_attribute_is_told_the_class_s_own(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    files = {"models.py": MODELS, "queries.py": QUERIES, "tests/test_queries.py": TESTS}
    repo = make_repo(tmp_path / "todo", files)
    made_up = "def open_titles(tasks):\n    return [t.title for t in tasks if not t.completed]\n"
    right = made_up.replace("t.completed", "t.done")
    llm_server.queue(
        f"queries.py\n```python\n{made_up}```\n", f"queries.py\n```python\n{right}```\n"
    )
    request = "open_titles should leave out the tasks that are done"
    done = run_gpte(
        "improve", request, "-b", "open", "--no-probe", cwd=repo, env=local_env(llm_server)
    )
    assert done.returncode == 0, done.stderr
    retry = llm_server.requests[1].body["messages"][-1]["content"]
    assert "'Task' object has no attribute 'completed'" in retry
    assert "Task (in models.py) has no attribute `completed`; what it has: done," in retry
    assert git(repo, "show", "open:queries.py") == right
