"""Excerpts grow into the budget the chunks leave: a changed line is often just past one."""

from __future__ import annotations

import math
from pathlib import Path

from git_gpte.context.exact import GROW_LINES, cost, grown
from git_gpte.context.model import LineRange, Pick
from git_gpte.context.pack import EXCERPT_OVERHEAD
from tests.helpers.context_cli import excerpt_spans
from tests.helpers.gitrepo import make_repo

TEXT = "".join(f"line {n}\n" for n in range(1, 101))  # each line: two words


def _words(text: str) -> int:
    return len(text.split())


def _pick(path: str, *spans: tuple[int, int], whole: bool = False) -> Pick:
    ranges = tuple(LineRange(s, e) for s, e in spans)
    return Pick(path, "0" * 40, whole, ranges, 0, 1.0, (), 100, 200)


def test_excerpts_grow_best_file_first_and_never_past_the_budget() -> None:
    texts = {"a.py": TEXT, "b.py": TEXT, "w.py": TEXT}
    picks = [_pick("w.py", whole=True), _pick("a.py", (10, 20), (40, 44)), _pick("b.py", (50, 60))]
    spent = cost(picks, texts, _words)
    # enough for a.py's two excerpts to grow by GROW_LINES at both ends, and b.py's by one
    budget = spent + 4 * GROW_LINES * 2 + 2 * 2
    out = grown(picks, texts, _words, budget)
    assert out[0] == picks[0]  # a whole file stays whole
    assert out[1].ranges == (LineRange(5, 25), LineRange(35, 49))
    assert out[2].ranges == (LineRange(49, 61),)
    assert cost(out, texts, _words) <= budget
    assert grown(picks, texts, _words, spent) == picks  # nothing left: nothing grows


def test_excerpts_that_meet_are_merged_and_stay_in_the_file() -> None:
    texts = {"a.py": TEXT}
    picks = [_pick("a.py", (1, 10), (14, 98))]
    out = grown(picks, texts, _words, 10_000)
    assert out[0].ranges == (LineRange(1, 100),)
    assert cost(out, texts, _words) < cost(picks, texts, _words) + 2 * 6 + 1  # one heading less


def test_the_cli_sends_the_next_definitions_signature_when_the_budget_allows(
    tmp_path: Path,
) -> None:
    functions = [
        f"def {'retry_budget' if i == 20 else f'helper_{i}'}(value, limit={i}):\n"
        f'    """Step {i} of the pipeline."""\n'
        f"    total = value * {i}\n    if total > limit:\n        total = limit\n    return total\n"
        for i in range(40)
    ]
    text = "\n\n".join(functions)
    root = make_repo(tmp_path / "r", {"pipeline.py": text})
    lines = text.split("\n")
    start = lines.index("def retry_budget(value, limit=20):") + 1
    after = lines.index("def helper_21(value, limit=21):") + 1
    spans = excerpt_spans(root, "the retry budget should never go over the limit", 150)
    assert any(s < start and after <= e <= after + GROW_LINES for s, e in spans), spans
    charged = sum(
        math.ceil(len("".join(f"{line}\n" for line in lines[s - 1 : e]).encode()) * 0.2525)
        + EXCERPT_OVERHEAD
        for s, e in spans
    )
    assert charged <= 150
