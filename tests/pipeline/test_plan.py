"""pipeline/plan.py on a real repository, no model call: what is sent, in which shape, and
what a real run would refuse."""

from __future__ import annotations

from pathlib import Path

import pytest

from git_gpte.config import Settings
from git_gpte.errors import UsageError
from git_gpte.git import Repository
from git_gpte.pipeline.context_choice import ContextChoice
from git_gpte.pipeline.plan import Plan, plan
from tests.helpers.gitrepo import make_repo

SETTINGS = Settings(environ={"OPENAI_API_KEY": "k"})
FILES = {
    "shop/cart.py": "".join(
        f"def total_{n}(items):\n    return sum(items)\n\n\n" for n in range(60)
    )
    + "def apply_coupon(total, code):\n    return total\n",
    "shop/pricing.py": "RATE = 0.2\n\n\ndef vat(amount):\n    return amount * RATE\n",
    "README.md": "# shop\n",
}


@pytest.fixture
def repo(tmp_path: Path) -> Repository:
    return Repository.discover(make_repo(tmp_path / "r", FILES))


def _plan(repo: Repository, context: ContextChoice, edit_format: str | None = None) -> Plan:
    return plan(
        repo,
        SETTINGS,
        instruction="apply_coupon ignores the code",
        base=repo.resolve_commit("HEAD"),
        model="gpt-4o-mini",
        context=context,
        edit_format=edit_format,
    )


def test_context_all_is_every_file_whole_and_nothing_to_ask_for(repo: Repository) -> None:
    planned = _plan(repo, ContextChoice(all=True))
    shown = planned.shown
    assert shown.everything and sorted(shown.parts) == sorted(FILES)
    assert all(part.whole for part in shown.parts.values())
    assert planned.rounds == 0
    user = planned.messages[-1]["content"]
    assert all(f"File: {path}" in user or path in user for path in FILES)


def test_a_selection_within_a_budget_shows_the_best_lines_and_may_ask_for_more(
    repo: Repository,
) -> None:
    planned = _plan(repo, ContextChoice(tokens=400, rounds=2))
    shown = planned.shown
    assert not shown.everything
    cart = shown.parts["shop/cart.py"]
    assert not cart.whole  # too big for the budget: an excerpt holding the named function
    assert any(start <= 241 <= end for start, end in cart.ranges)
    assert planned.rounds == 2
    assert "need" in planned.messages[0]["content"].lower()


def test_whole_file_edits_see_whole_files_or_the_plan_asks_for_diffs(repo: Repository) -> None:
    roomy = _plan(repo, ContextChoice(tokens=4000), edit_format="whole")
    parts = roomy.shown.parts.values()
    assert roomy.edit_format == "whole" and parts and all(p.whole for p in parts)
    # The file to change does not fit whole: an excerpt can only be edited with diffs.
    tight = _plan(repo, ContextChoice(tokens=400), edit_format="whole")
    assert tight.edit_format != "whole"
    assert "shop/cart.py is shown only in part" in tight.format_note


def test_a_request_over_the_window_is_refused_when_run(repo: Repository, tmp_path: Path) -> None:
    padding = "x = 1  # padding\n" * 10_000  # 170 kB each, under the per-file limit
    big = make_repo(tmp_path / "big", {f"m{i}.py": padding for i in range(8)})
    planned = _plan(Repository.discover(big), ContextChoice(all=True))
    assert planned.over_budget is not None
    with pytest.raises(UsageError, match="over gpt-4o-mini's budget"):
        planned.check()


def test_a_pinned_file_too_long_to_show_whole_is_named_in_the_map() -> None:
    # A pin (a place heal's failing output names) is not one of the selection's picks: left
    # out for the budget, it is still named in the map of what is sent.
    from git_gpte.context import ContextSelection, Pick
    from git_gpte.pipeline.shown import Shown, whole_only
    from git_gpte.prompts.messages import Part

    top = Pick("app.py", "0" * 40, True, (), 10, 1.0, ("named",), 2, 10, pointed=True)
    selection = ContextSelection("0" * 40, "fix app", 100, (top,), (), {}, 2)
    shown = Shown(selection=selection)
    shown.add(Part("app.py", "def f():\n    return 1\n"))
    shown.add(Part("big.py", "x = 1\n" * 400, ((1, 5),)))
    sent = whole_only(shown, 50, lambda text: len(text) // 4)
    assert list(sent.parts) == ["app.py"]
    assert "big.py  (too long to show whole here)" in sent.map_text
    assert sent.selection is not None and [e.path for e in sent.selection.map] == ["big.py"]
    # the best-ranked file too long to show whole: the excerpts stand as chosen for the budget
    # (made whole, the files below it came on top of its excerpt, past the budget)
    big = Pick("big.py", "0" * 40, False, ((1, 5),), 10, 2.0, ("named",), 2, 600, pointed=True)
    shown.selection = ContextSelection("0" * 40, "fix big", 100, (big, top), (), {}, 2)
    sent = whole_only(shown, 50, lambda text: len(text) // 4)
    assert sent is shown and not sent.parts["big.py"].whole
