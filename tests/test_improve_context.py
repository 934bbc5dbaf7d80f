"""``git gpte improve`` with a selected context: the installed CLI, the real OpenAI SDK, the
scripted local server, and a repository larger than the budget (tests/helpers/bigrepo.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.conftest import run_gpte
from tests.helpers.bigrepo import big_project, billing_module, line_of
from tests.helpers.gitrepo import git, make_repo
from tests.helpers.llm_server import LLMServer

REQUEST = "round the total of compute_invoice_total to cents"
DEF_LINE = line_of(billing_module(), "def compute_invoice_total")
RETURN_LINE = DEF_LINE + 4  # "    return total"

FIX = f"""\
```diff
--- shop/billing.py
+++ shop/billing.py
@@ -{DEF_LINE + 2},3 +{DEF_LINE + 2},3 @@
     subtotal = sum(price for _, price in items)
     total = subtotal + subtotal * tax_rate
-    return total
+    return round(total, 2)
```
"""


def env_for(server: LLMServer) -> dict[str, str]:
    return {"OPENAI_BASE_URL": server.openai_base_url, "OPENAI_API_KEY": "sk-test"}


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "shop", big_project())


def improve(shop: Path, server: LLMServer, *args: str) -> tuple[int, str, str]:
    result = run_gpte(
        "improve", *args, "--model", "gpt-4o", "-b", "fix", cwd=shop, env=env_for(server)
    )
    return result.returncode, result.stdout, result.stderr


def user_text(server: LLMServer, n: int) -> str:
    messages = server.requests[n].body["messages"]
    return "\n".join(m["content"] for m in messages if m["role"] != "system")


def fixed_billing() -> str:
    lines = billing_module().splitlines(keepends=True)
    lines[RETURN_LINE - 1] = "    return round(total, 2)\n"
    return "".join(lines)


def run_meta(shop: Path) -> dict[str, object]:
    shown = run_gpte(
        "log",
        "show",
        "--json",
        git(shop, "log", "-1", "--format=%(trailers:key=Gpte-Run,valueonly)", "fix").strip(),
        cwd=shop,
    )
    assert shown.returncode == 0, shown.stderr
    meta = json.loads(shown.stdout)["meta"]
    assert isinstance(meta, dict)
    return meta


def test_a_repository_over_the_budget_is_sent_as_a_selection_and_committed(
    shop: Path, llm_server: LLMServer
) -> None:
    total = sum(len(str(t)) for t in big_project().values())
    assert total // 4 > 16_384  # bigger than the default budget, even at 4 characters a token
    llm_server.queue(FIX)
    code, _, err = improve(shop, llm_server, REQUEST)
    assert code == 0, err
    sent = user_text(llm_server, 0)
    assert len(sent) < total * 0.6
    assert "File: shop/billing.py" in sent
    assert sent.count("File: shop/") < len([p for p in big_project() if p.startswith("shop/")])
    assert "Map of other files you have not seen" in sent or "Excerpts of" in sent
    system = llm_server.requests[0].body["messages"][0]["content"]
    assert "```need" in system  # the model is told how to ask for more
    assert git(shop, "show", "fix:shop/billing.py") == fixed_billing()
    meta = run_meta(shop)
    context = meta["context"]
    assert isinstance(context, dict) and context["mode"] == "selected"
    assert {"path": "shop/billing.py"}.items() <= context["sent"][0].items()


def test_an_edit_to_an_excerpted_file_is_placed_in_the_whole_file(
    shop: Path, llm_server: LLMServer
) -> None:
    llm_server.queue(FIX)
    code, _, err = improve(shop, llm_server, REQUEST, "--context-tokens", "600")
    assert code == 0, err
    sent = user_text(llm_server, 0)
    assert "File: shop/billing.py (excerpt: lines" in sent
    assert f"{RETURN_LINE} " + "    return total" in sent  # the file's own line numbers
    assert "def archive_record_29" not in sent  # the end of the file was not sent
    assert git(shop, "show", "fix:shop/billing.py") == fixed_billing()


def test_a_refused_hunk_in_an_excerpted_file_is_retried_with_the_region_around_it(
    shop: Path, llm_server: LLMServer
) -> None:
    invented = f"""\
```diff
--- shop/billing.py
+++ shop/billing.py
@@ -{DEF_LINE + 3},2 +{DEF_LINE + 3},2 @@
     total = subtotal * (1 + tax_rate) + shipping_fee
-    return total
+    return round(total, 2)
```
"""
    llm_server.queue(invented, FIX)
    code, _, err = improve(shop, llm_server, REQUEST, "--context-tokens", "600")
    assert code == 0, err
    # The retry continues the conversation: what was sent, the answer, then what failed.
    roles = [m["role"] for m in llm_server.requests[1].body["messages"]]
    assert roles == ["system", "user", "assistant", "user"]
    retry = llm_server.requests[1].body["messages"][-1]["content"]
    assert "could not be used" in retry
    assert "File: shop/billing.py (excerpt: lines" in retry
    assert f"{RETURN_LINE} " + "    return total" in retry
    assert "def ledger_entry_0(" not in retry and "def archive_record_29(" not in retry
    assert git(shop, "show", "fix:shop/billing.py") == fixed_billing()


def test_the_model_asks_for_more_gets_it_and_then_edits(shop: Path, llm_server: LLMServer) -> None:
    need = (
        "I need to see more first.\n\n```need\nshop/weather.py\nsymbol: falcon_step_3\n"
        "shop/nothing_here.py\n.env\n```\n"
    )
    llm_server.queue(need, FIX)
    code, _, err = improve(shop, llm_server, REQUEST, "--context-tokens", "600")
    assert code == 0, err
    assert "round 1/2: the model asked for shop/weather.py" in err
    assert len(llm_server.requests) == 2
    second = llm_server.requests[1].body["messages"]
    assert [m["role"] for m in second] == ["system", "user", "assistant", "user"]
    answer = second[-1]["content"]
    assert "File: shop/weather.py\n" in answer  # the whole file
    assert "def weather_step_11" in answer
    assert "File: shop/falcon.py (excerpt: lines" in answer and "def falcon_step_3(" in answer
    assert "def falcon_step_9(" not in answer
    assert "shop/nothing_here.py: no such file in the repository" in answer
    assert "you may ask once more" in answer
    assert git(shop, "show", "fix:shop/billing.py") == fixed_billing()
    context = run_meta(shop)["context"]
    assert isinstance(context, dict)
    (round_one,) = context["rounds"]
    assert round_one["asked"][:2] == ["shop/weather.py", "symbol falcon_step_3"]
    assert "shop/weather.py" in round_one["given"]
    assert any(g.startswith("shop/falcon.py:") for g in round_one["given"])
    run_id = git(shop, "log", "-1", "--format=%(trailers:key=Gpte-Run,valueonly)", "fix").strip()
    shown = run_gpte("log", "show", run_id, cwd=shop)
    assert shown.returncode == 0, shown.stderr
    text = shown.stdout
    assert "context: selected within 600 tokens" in text
    assert "round 1: asked for shop/weather.py; symbol falcon_step_3" in text
    assert "not given: shop/nothing_here.py (" in text, text


def test_asking_rounds_are_bounded(shop: Path, llm_server: LLMServer) -> None:
    need = "```need\nshop/weather.py\n```\n"
    again = "```need\nshop/garden.py\n```\n"
    llm_server.queue(need, again, FIX)
    code, _, err = improve(
        shop, llm_server, REQUEST, "--context-tokens", "600", "--context-rounds", "1"
    )
    assert code == 0, err
    assert len(llm_server.requests) == 3
    assert "you cannot ask for more" in llm_server.requests[1].body["messages"][-1]["content"]
    third = user_text(llm_server, 2)
    assert "File: shop/garden.py" not in third  # the second request was not answered
    assert "no more can be given" in llm_server.requests[2].body["messages"][-1]["content"]
    context = run_meta(shop)["context"]
    assert isinstance(context, dict) and len(context["rounds"]) == 1


def test_context_all_sends_every_file_whole(shop: Path, llm_server: LLMServer) -> None:
    llm_server.queue(FIX)
    code, _, err = improve(shop, llm_server, REQUEST, "--context", "all")
    assert code == 0, err
    sent = user_text(llm_server, 0)
    assert sent.startswith("Here are the files of the repository")
    for path in big_project():
        if big_project()[path]:
            assert f"File: {path}\n" in sent
    assert "```need" not in llm_server.requests[0].body["messages"][0]["content"]


def test_dry_run_shows_the_selection_like_git_gpte_context(shop: Path) -> None:
    args = ("--context-tokens", "600")
    dry = run_gpte("improve", "--dry-run", REQUEST, *args, "--model", "gpt-4o", cwd=shop)
    assert dry.returncode == 0, dry.stderr
    context = run_gpte("context", "--tokens", "600", REQUEST, cwd=shop)
    assert context.returncode == 0, context.stderr
    assert context.stdout.strip() in dry.stdout
    assert "shop/billing.py  [" in dry.stdout and "tokens" in dry.stdout
    assert "defines compute_invoice_total" in dry.stdout
    data = json.loads(
        run_gpte("improve", "-n", "--json", REQUEST, *args, "--model", "gpt-4o", cwd=shop).stdout
    )
    assert data["context"] == "selected" and data["selection"]["budget"] <= 600
    assert data["sent"][0]["path"] == "shop/billing.py" and not data["sent"][0]["whole"]


def test_context_settings_and_their_errors(shop: Path) -> None:
    git(shop, "config", "gpte.contextTokens", "600")
    dry = run_gpte("improve", "-n", "--json", REQUEST, "--model", "gpt-4o", cwd=shop)
    assert json.loads(dry.stdout)["selection"]["budget"] == 600
    env = {"GPTE_CONTEXT_TOKENS": "900"}
    dry = run_gpte("improve", "-n", "--json", REQUEST, "--model", "gpt-4o", cwd=shop, env=env)
    assert json.loads(dry.stdout)["selection"]["budget"] == 900
    git(shop, "config", "gpte.context", "all")
    dry = run_gpte("improve", "-n", "--json", REQUEST, "--model", "gpt-4o", cwd=shop)
    assert json.loads(dry.stdout)["context"] == "all"
    git(shop, "config", "gpte.context", "some")
    bad = run_gpte("improve", "-n", REQUEST, "--model", "gpt-4o", cwd=shop)
    assert bad.returncode != 0 and "gpte.context must be 'auto' or 'all'" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1
    git(shop, "config", "gpte.context", "auto")
    git(shop, "config", "gpte.contextTokens", "lots")
    bad = run_gpte("improve", "-n", REQUEST, "--model", "gpt-4o", cwd=shop)
    assert bad.returncode != 0 and "gpte.contextTokens" in bad.stderr
    # the budget is capped by the model's window minus the reply reserve
    git(shop, "config", "gpte.contextTokens", "1000000")
    dry = run_gpte("improve", "-n", "--json", REQUEST, "--model", "gpt-4", cwd=shop)
    data = json.loads(dry.stdout)
    assert data["selection"]["budget"] < 8192 - 4096 and data["over_budget"] is None


def test_need_rounds_never_grow_the_request_past_the_window(
    shop: Path, llm_server: LLMServer
) -> None:
    # A need block buried in 2,000 lines of prose, asking for 30 items: the conversation keeps
    # only the items answered, says which were not, and no request exceeds gpt-4's 8k window.
    prose = "".join(f"Thought {i}: I am thinking about this carefully.\n" for i in range(2_000))
    items = "\n".join(f"shop/nothing_{i}.py" for i in range(30))
    need = prose + f"```need\nshop/weather.py\n{items}\n```\n"
    llm_server.queue(need, need, need, need, FIX)
    result = run_gpte(
        "improve",
        REQUEST,
        "--model",
        "gpt-4",
        "-b",
        "fix",
        "--context-tokens",
        "600",
        "--context-rounds",
        "10",
        cwd=shop,
        env=env_for(llm_server),
    )
    assert result.returncode == 0, result.stderr
    sizes = [sum(len(m["content"]) for m in r.body["messages"]) for r in llm_server.requests]
    assert all(size / 4 < 8192 - 4096 for size in sizes), sizes  # the window minus the reply
    second = llm_server.requests[1].body["messages"]
    assert second[-2]["role"] == "assistant" and len(second[-2]["content"]) < 1000
    assert "only 20 items are answered per request" in second[-1]["content"]


def test_a_need_block_that_lost_its_fence_is_still_a_request(
    shop: Path, llm_server: LLMServer
) -> None:
    # As a 1.5B model wrote it: no fence around the items.
    llm_server.queue("need\nshop/weather.py\nsymbol: falcon_step_3\n", FIX)
    code, _, err = improve(shop, llm_server, REQUEST, "--context-tokens", "600")
    assert code == 0, err
    assert "round 1/2: the model asked for shop/weather.py" in err
    assert "File: shop/weather.py\n" in llm_server.requests[1].body["messages"][-1]["content"]


def test_a_later_round_sends_only_the_lines_not_shown_yet(
    shop: Path, llm_server: LLMServer
) -> None:
    llm_server.queue("```need\nshop/billing.py\nshop/nothing.py\n```\n", FIX)
    code, _, err = improve(shop, llm_server, REQUEST, "--context-tokens", "600")
    assert code == 0, err
    first = user_text(llm_server, 0)
    shown = re.search(r"File: shop/billing\.py \(excerpt: lines ([\d, -]+) of", first)
    assert shown, first
    answer = llm_server.requests[1].body["messages"][-1]["content"]
    again = re.search(r"File: shop/billing\.py \(excerpt: lines ([\d, -]+) of", answer)
    assert again, answer  # the rest of the file, not all of it once more
    sent_before = [tuple(map(int, r.split("-"))) for r in shown.group(1).split(", ")]
    sent_now = [tuple(map(int, r.split("-"))) for r in again.group(1).split(", ")]
    for a, b in sent_now:
        assert all(b < s or a > e for s, e in sent_before), (sent_now, sent_before)
    # the round's line says what was not given, and why
    assert "not given: shop/nothing.py (no such file in the repository)" in err


def test_a_module_over_the_size_limit_is_excerpted_and_edited_but_never_sent_whole(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    # A huge module (over gpte.maxFileBytes, 200,000 bytes): the function the request names is
    # sent as an excerpt, the file never whole, whatever the budget; an edit to it commits.
    filler = "".join(
        f"def helper_{n}(value):\n    '''Return value plus {n}.'''\n    return value + {n}\n\n\n"
        for n in range(3500)
    )
    big = filler + billing_module()
    assert len(big.encode()) > 200_000
    repo = make_repo(tmp_path / "r", {"shop/billing.py": big, "shop/__init__.py": ""})
    start = line_of(big, "def compute_invoice_total")
    for tokens in ("4000", "400000"):
        shown = run_gpte("context", "--format", "lines", "--tokens", tokens, REQUEST, cwd=repo)
        assert shown.returncode == 0, shown.stderr
        spans = [line.split(":", 1)[1] for line in shown.stdout.split() if ":" in line]
        assert "shop/billing.py" not in shown.stdout.split()  # never whole
        assert any(int(s.split("-")[0]) <= start <= int(s.split("-")[1]) for s in spans), spans
    listed = run_gpte("context", REQUEST, cwd=repo)
    assert "over the size limit: excerpts only" in listed.stdout
    fix = FIX.replace(f"-{DEF_LINE + 2},3 +{DEF_LINE + 2},3", f"-{start + 2},3 +{start + 2},3")
    llm_server.queue(fix)
    code, _, err = improve(repo, llm_server, REQUEST)
    assert code == 0, err
    committed = git(repo, "show", "fix:shop/billing.py")
    assert committed == big.replace("    return total\n", "    return round(total, 2)\n", 1)
    sent = user_text(llm_server, 0)
    assert "File: shop/billing.py (excerpt: lines" in sent and "def compute_invoice_total" in sent
