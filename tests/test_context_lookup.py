"""The lookups the pipelines add to context selection: where a symbol is defined, and which
paths the selection's rules allow (what a model may be given when it asks for more)."""

from __future__ import annotations

from pathlib import Path

from git_gpte.context import candidates, locate
from git_gpte.git import Repository
from tests.helpers.gitrepo import make_repo

LIB = """\
import os


class Session:
    def send(self, x):
        return x

    def close(self):
        pass


def send(y):
    return y
"""


def _repo(tmp_path: Path) -> tuple[Repository, str]:
    root = make_repo(
        tmp_path / "r",
        {"src/lib.py": LIB, "src/app.py": "from lib import send\n", ".env": "KEY=1\n"},
    )
    repo = Repository.discover(root)
    return repo, repo.resolve_commit("HEAD")


def test_locate_finds_functions_classes_and_methods_through_their_class(tmp_path: Path) -> None:
    repo, commit = _repo(tmp_path)
    found = locate(repo, commit, ["send", "Session", "Session.close", "missing"])
    assert [(h.path, h.start <= 12 <= h.end) for h in found["send"]] == [("src/lib.py", True)]
    (session,) = found["Session"]
    assert (session.path, session.start <= 4, session.end >= 9) == ("src/lib.py", True, True)
    # a method without a chunk of its own is found as its class's chunk
    assert [(h.name, h.path) for h in found["Session.close"]] == [("Session", "src/lib.py")]
    assert found["missing"] == []


def test_candidates_apply_the_selection_rules(tmp_path: Path) -> None:
    repo, commit = _repo(tmp_path)
    allowed, skipped = candidates(repo, commit)
    assert allowed == {"src/lib.py", "src/app.py"}
    assert ".env" in skipped and "secret" in skipped[".env"]


def test_failing_output_places_are_matched_to_tracked_files() -> None:
    from git_gpte.context.places import output_places

    output = (
        "Traceback (most recent call last):\n"
        '  File "/tmp/gpte-run-x/wt-1a2b/src/app.py", line 12, in <module>\n'
        '  File "/tmp/gpte-run-x/wt-1a2b/src/lib/util.py", line 40, in main\n'
        "tests/test_app.py:7: AssertionError\n"
        "    at main (web/index.js:3:5)\n"
        "/usr/lib/python3.11/json/decoder.py:337\n"
    )
    tracked = ["src/app.py", "src/lib/util.py", "tests/test_app.py", "web/index.js", "x.md"]
    assert output_places(output, tracked) == [
        ("web/index.js", 3),
        ("tests/test_app.py", 7),
        ("src/lib/util.py", 40),
        ("src/app.py", 12),
    ]
    # A program printing one long line (minified output, a progress bar's carriage returns)
    # before the traceback: each place is looked for only where a run of path characters
    # starts (tried at every character, 200,000 of them took minutes).
    noisy = "a." * 100_000 + "\n" + "x-" * 100_000 + "\n" + output
    assert output_places(noisy, tracked) == output_places(output, tracked)


def test_an_installed_copys_places_are_the_tracked_files_it_copies() -> None:
    from git_gpte.context.places import output_places

    output = (
        '  File "/home/u/.venv/lib/python3.12/site-packages/click/core.py", line 1200, in main\n'
        '  File "/usr/lib/python3.12/json/decoder.py", line 337, in decode\n'
    )
    tracked = ["src/click/core.py", "tests/core.py", "docs/json/decoder.py"]
    # the standard library's json is not the docs' json, though both end in json/decoder.py
    assert output_places(output, tracked) == [("src/click/core.py", 1200)]
    # two tracked files it could be: none
    assert output_places(output, ["src/click/core.py", "lib/click/core.py"]) == []


def test_need_blocks_are_read_leniently_and_prose_is_not_a_path() -> None:
    from git_gpte.prompts.context import NeedItem, parse_need

    assert parse_need("```diff\n--- a\n```\n") is None
    reply = (
        "I need more.\n\n```need\n- `src/a.py`\nsrc/b.py:30-10\nsymbol: Session.send\n"
        "class Foo\nplease show me everything\n# a comment\n```\n"
    )
    assert parse_need(reply) == [
        NeedItem("file", path="src/a.py"),
        NeedItem("lines", path="src/b.py", start=10, end=30),
        NeedItem("symbol", name="Session.send"),
        NeedItem("symbol", name="Foo"),
    ]


def test_a_line_is_carried_over_edits_above_it() -> None:
    from git_gpte.pipeline.more_context import map_line

    old = ["a", "b", "c", "d", "e"]
    new = ["a", "x", "y", "b", "c", "e"]
    assert map_line(old, new, 3) == 5  # "c" moved down by the two added lines
    assert map_line(old, new, 4) == 6  # "d" was deleted: its nearest place


def test_a_retry_shows_what_was_shown_when_nothing_locates_the_failure() -> None:
    from git_gpte.pipeline.more_context import retry_parts
    from git_gpte.pipeline.shown import Shown
    from git_gpte.prompts.messages import Part

    text = "".join(f"line {n}\n" for n in range(1, 401))
    shown = Shown()
    shown.add(Part("big.py", text, ((100, 140), (300, 320))))
    unplaced = ["big.py hunk 1: the block is not Python that parses"]
    parts = retry_parts(["big.py"], {"big.py": text}, shown, {}, unplaced)
    assert parts == [Part("big.py", text, ((100, 140), (300, 320)))]
    # a problem that names its line: the lines around it
    at = retry_parts(["big.py"], {"big.py": text}, shown, {}, ["big.py:250: undefined name 'x'"])
    assert at[0].ranges == ((230, 270),)
