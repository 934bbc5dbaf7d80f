"""The run log (SQLite with migrations) and ``git gpte log`` on real repositories."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from git_gpte.config import Settings
from git_gpte.errors import ConfigError, LLMError, UsageError
from git_gpte.llm import LLM, RunLog, resolve_model
from git_gpte.llm.db import connect
from git_gpte.llm.runlog import MIGRATIONS, Exchange
from tests.conftest import run_gpte
from tests.helpers.gitrepo import Snapshot, git, make_repo
from tests.helpers.llm_server import LLMServer, Reply


def test_runs_are_recorded_listed_and_found_by_prefix(tmp_path: Path) -> None:
    log = RunLog(tmp_path)
    run = log.start("improve", prompt="add logging", model="gpt-4o", base="abc123")
    run.record(
        Exchange(
            messages=[{"role": "user", "content": "hi"}],
            reply="r1",
            model="gpt-4o",
            provider="openai",
            tokens_in=10,
            tokens_out=2,
            cost_usd=0.5,
        )
    )
    run.record(
        Exchange(
            messages=[],
            reply="r2",
            model="gpt-4o",
            provider="openai",
            tokens_in=5,
            tokens_out=1,
            cost_usd=0.25,
        )
    )
    run.finish("partial", branch="gpte/add-logging", commit="f" * 40, detail="1 hunk refused")
    assert len(run.id) == 12 and all(c in "0123456789abcdef" for c in run.id)
    record = log.get(run.id[:5])
    assert (record.tokens_in, record.tokens_out, record.calls) == (15, 3, 2)
    assert record.cost_usd == pytest.approx(0.75)
    assert (record.outcome, record.branch, record.commit) == (
        "partial",
        "gpte/add-logging",
        "f" * 40,
    )
    assert [e.reply for e in record.exchanges] == ["r1", "r2"]
    assert [r.id for r in log.list()] == [run.id]
    latest = log.latest()
    assert latest is not None and latest.id == run.id


def test_unknown_price_makes_the_run_cost_unknown(tmp_path: Path) -> None:
    log = RunLog(tmp_path)
    run = log.start("improve")
    run.record(
        Exchange(
            messages=[],
            reply="",
            model="llama",
            provider="openai-compatible",
            tokens_in=10,
            tokens_out=2,
            cost_usd=None,
        )
    )
    assert log.get(run.id).cost_usd is None


def test_a_session_records_how_its_block_ended(tmp_path: Path) -> None:
    """The session, and nothing else, ends a run: on Ctrl-C, an error or success."""
    from git_gpte.errors import Interrupted
    from git_gpte.llm.session import Session

    def session() -> Session:
        return Session(tmp_path, "improve", settings=Settings(environ={}))

    with pytest.raises(Interrupted), session() as interrupted:
        raise KeyboardInterrupt
    with pytest.raises(LLMError), session() as failed:
        raise LLMError("rate limited")
    with session() as fine:
        pass
    log = RunLog(tmp_path)
    assert log.get(interrupted.id).outcome == "interrupted"
    assert log.get(failed.id).outcome == "llm-error"
    assert log.get(failed.id).detail == "rate limited"
    assert log.get(fine.id).outcome == "ok"


def test_bad_or_ambiguous_ids(tmp_path: Path) -> None:
    log = RunLog(tmp_path)
    with pytest.raises(UsageError, match="nothing has been recorded"):
        log.get("abcd")
    for _ in range(40):
        log.start("improve")
    with pytest.raises(UsageError, match="not a run id"):
        log.get("zz")
    for run_id in ("aaaa00000001", "aaaa00000002"):
        log.conn.execute(
            "INSERT INTO runs (id, started_at, command) VALUES (?, '2026-01-01T00:00:00Z', 'x')",
            (run_id,),
        )
    with pytest.raises(UsageError, match="ambiguous"):
        log.get("aaaa")
    assert log.get("aaaa00000002").id == "aaaa00000002"
    first = log.list()[0].id
    with pytest.raises(UsageError, match="no run"):
        log.get("0000000000000" if not first.startswith("0000") else "ffffffffffff0")


def test_migrations_are_recorded_and_run_once(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    conn = connect(path, MIGRATIONS)
    names = [row[0] for row in conn.execute("SELECT name FROM _migrations ORDER BY id")]
    assert names == [name for name, _ in MIGRATIONS]
    conn.close()
    conn = connect(path, MIGRATIONS)  # again: nothing re-run, no error
    assert conn.execute("SELECT COUNT(*) FROM _migrations").fetchone()[0] == len(MIGRATIONS)
    # A later migration is applied on open, in order.
    later = [*MIGRATIONS, ("0002_test_column", "ALTER TABLE runs ADD COLUMN extra TEXT")]
    conn.close()
    conn = connect(path, later)
    assert "extra" in [row[1] for row in conn.execute("PRAGMA table_info(runs)")]
    conn.close()
    # A file from a newer version is refused rather than misread.
    with pytest.raises(ConfigError, match="newer git-gpte"):
        connect(path, MIGRATIONS)


def test_not_a_database_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "runs.sqlite").write_text("garbage " * 200)
    with pytest.raises(ConfigError, match="not a usable"):
        RunLog(tmp_path).list()


# ---------------------------------------------------------------------- through the CLI
def test_log_in_a_fresh_repository(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "fresh")  # no commits at all
    snap = Snapshot.take(repo)
    out = run_gpte("log", cwd=repo)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "" and "no runs recorded yet" in out.stderr
    out = run_gpte("log", "--json", cwd=repo)
    assert out.returncode == 0 and json.loads(out.stdout) == []
    snap.assert_unchanged(repo)


def test_log_outside_a_repository(tmp_path: Path) -> None:
    out = run_gpte("log", cwd=tmp_path)
    assert out.returncode == 3 and "not a git repository" in out.stderr


def test_llm_calls_are_listed_by_git_gpte_log(repo: Path, llm_server: LLMServer) -> None:
    snap = Snapshot.take(repo)
    state = Path(git(repo, "rev-parse", "--absolute-git-dir").strip()) / "gpte"
    settings = Settings(
        environ={"OPENAI_BASE_URL": llm_server.openai_base_url, "OPENAI_API_KEY": "t"}
    )
    info = resolve_model(None, settings)
    log = RunLog(state)
    llm_server.queue(Reply("--- src/app.py\n+++ src/app.py\n", usage=(1200, 80)))
    run = log.start("improve", prompt="add logging\nmore detail", model=info.name, base="HEAD")
    llm = LLM(info, settings, state_dir=state, run=run)
    llm.ask([{"role": "system", "content": "sys"}, {"role": "user", "content": "add logging"}])
    run.finish("ok", branch="gpte/add-logging", commit="c" * 40)
    log.close()

    out = run_gpte("log", cwd=repo)
    assert out.returncode == 0, out.stderr
    (line,) = out.stdout.splitlines()
    for part in (
        run.id,
        "gpt-4o",
        "1,200/80",
        "$0.0038",
        "ok",
        "gpte/add-logging",
        "improve: add logging",
    ):
        assert part in line

    listed = json.loads(run_gpte("log", "--json", cwd=repo).stdout)
    assert listed[0]["id"] == run.id and listed[0]["tokens_in"] == 1200
    assert "exchanges" not in listed[0]

    shown = run_gpte("log", "show", run.id[:6], cwd=repo)
    assert shown.returncode == 0, shown.stderr
    # a summary by default: the run, the request, one line per call; --full has every message
    assert "outcome:  ok" in shown.stdout and "--- system" not in shown.stdout
    assert "calls (1):" in shown.stdout and f"log show --full {run.id}" in shown.stdout
    full_text = run_gpte("log", "show", "--full", run.id[:6], cwd=repo).stdout
    assert "--- system\nsys" in full_text and "--- reply\n--- src/app.py" in full_text
    # on a terminal, through the pager git would use
    from tests.helpers.pty_run import run_in_pty

    paged = run_in_pty(
        ["git", "gpte", "log", "show", run.id], cwd=repo, env={"GIT_PAGER": "sed s/^/PAGED:/"}
    )
    assert paged.returncode == 0 and "PAGED:outcome:  ok" in paged.output

    full = json.loads(run_gpte("log", "show", run.id, "--json", cwd=repo).stdout)
    assert full["exchanges"][0]["messages"][1]["content"] == "add logging"
    assert full["exchanges"][0]["reply"].startswith("--- src/app.py")
    assert full["commit"] == "c" * 40

    missing = run_gpte("log", "show", "deadbeef", cwd=repo)
    assert missing.returncode == 2 and "no run 'deadbeef'" in missing.stderr
    snap.assert_unchanged(repo)


def test_state_lives_in_git_dir_not_the_work_tree(repo: Path) -> None:
    run_gpte("log", cwd=repo)
    assert git(repo, "status", "--porcelain", "--ignored") == ""
    assert not (repo / "runs.sqlite").exists()


def test_databases_are_plain_sqlite(tmp_path: Path) -> None:
    log = RunLog(tmp_path)
    log.start("heal", prompt="x")
    log.close()
    with sqlite3.connect(tmp_path / "runs.sqlite") as conn:
        assert conn.execute("SELECT command, outcome FROM runs").fetchall() == [("heal", "running")]


def test_log_columns_line_up_and_a_count_of_zero_is_not_an_empty_log(repo: Path) -> None:
    log = RunLog(repo / ".git" / "gpte")
    for model in ("gpt-4o-mini", "gpt-4o"):
        log.start("improve", prompt="p", model=model).finish("ok", branch="gpte/p")
    lines = run_gpte("log", cwd=repo).stdout.splitlines()
    assert len(lines) == 2 and lines[0].index("0/0") == lines[1].index("0/0")
    none = run_gpte("log", "-n", "0", cwd=repo)
    assert none.returncode == 0 and none.stdout == "" and "no runs recorded" not in none.stderr
    negative = run_gpte("log", "-n", "-1", cwd=repo)
    assert negative.returncode == 2
