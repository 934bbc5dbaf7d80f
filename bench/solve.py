"""Solved requests with a real model: git gpte improve beside aider and gpt-engineer.

Each task (``bench/solve_tasks.py``: a project, a request, a hidden check that runs code) runs
in a fresh git repository per tool. The tool is run as a user runs it, as a whole process
against the same OpenAI-compatible server (``bench/local_model.py start``); then the hidden
check runs on what the tool left: for git-gpte the commit it reports (its branch), for aider and
gpt-engineer the work tree. Per task and tool it records:

- solved: the check passed;
- well-formed: the tool produced a change (a commit, or changed files);
- claimed: the tool said it succeeded (git-gpte: exit 0 with a commit; aider and gpt-engineer
  have no failure exit: a change made counts as claimed);
- broken-committed: claimed, and the check failed (the worst outcome: broken code reported
  as success);
- refused: no change and a clear refusal (git-gpte's exit 6/8 or a shown answer);
- retries, tokens (as the tool reports them), wall time.

Tools (``--tools``, comma-separated):

    gpte                git gpte improve with its defaults for the server
    gpte-whole | gpte-diff | gpte-search-replace | gpte-definitions
                        the same with --edit-format
    gpte-check          defaults plus --check running the project's own visible tests (what
                        a user who has tests gives it; the hidden check is never shown)
    aider-whole | aider-diff      aider (its own venv, ``--aider PATH``) with that edit format;
                        the files the reference solution edits are added to its chat, as an
                        aider user adds the files to change
    aider-whole-test | aider-diff-test   the same with --test-cmd (the visible tests) and
                        --auto-test: aider's own way of checking a result
    gpt-engineer        gpt-engineer improve mode (``--gpt-engineer PATH``), the same files
                        selected in its file list, its question answered yes

    python bench/solve.py --url http://127.0.0.1:8012/v1 --tools gpte,aider-whole \\
        --report solve.jsonl [--only invoice] [--limit 20]
    python bench/solve.py --url ... --exercism /path/to/python-track --exercism-limit 40 \\
        --no-own-tasks --tools gpte,aider-whole --report exercism.jsonl
    python bench/solve.py --url ... --exercism ... --exercism-tests --no-own-tasks \\
        --tools gpte-check,aider-whole-test --report exercism-tests.jsonl   # tests shown
    python bench/solve.py --table solve.jsonl [rerun.jsonl ...]   # the tables from reports

The report is JSON lines, one row per task and tool, appended as each finishes: a run that is
stopped resumes where it was (rows already in the report are not run again).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from solve_tasks import SolveTask, exercism_tasks, load_all, run_check

MODEL = "local-model"
IDENTITY = {
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
}
TOOL_TIMEOUT = 1500.0  # seconds a tool run may take (--tool-timeout), the same for every tool


@dataclass
class Row:
    task: str
    tool: str
    solved: bool = False
    well_formed: bool = False
    claimed: bool = False
    broken_committed: bool = False
    refused: bool = False
    exit_code: int | None = None
    retries: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    seconds: float = 0.0
    note: str = ""
    check_tail: str = ""
    extra: dict[str, object] = field(default_factory=dict)


@dataclass
class Outcome:
    """What a tool run left: the tree to check (None: nothing changed) and what it said."""

    tree: Path | None
    exit_code: int | None
    claimed: bool
    refused: bool = False
    retries: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    note: str = ""
    extra: dict[str, object] = field(default_factory=dict)


def git(repo: Path, *args: str, env: dict[str, str] | None = None) -> str:
    proc = subprocess.run(
        ["git", *args], cwd=repo, capture_output=True, text=True, env=env, check=True
    )
    return proc.stdout


TIKTOKEN_CACHE: str | None = None


def base_env() -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("GPTE_", "OPENAI", "ANTHROPIC", "AZURE", "GIT_", "TIKTOKEN"))
        and k not in ("MODEL_NAME", "LOCAL_MODEL", "VIRTUAL_ENV")
    }
    env.update(IDENTITY)
    if TIKTOKEN_CACHE:
        env["TIKTOKEN_CACHE_DIR"] = TIKTOKEN_CACHE
    return env


def make_repo(task: SolveTask, root: Path) -> Path:
    repo = root / "repo"
    repo.mkdir()
    for path, text in task.files.items():
        target = repo / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    env = base_env()
    git(repo, "init", "-q", "-b", "main", env=env)
    git(repo, "add", "-A", env=env)
    git(repo, "commit", "-q", "-m", "Initial commit", env=env)
    return repo


def copy_tree_of_commit(repo: Path, commit: str, dest: Path) -> Path:
    dest.mkdir()
    archive = subprocess.run(["git", "archive", commit], cwd=repo, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
    return dest


def copy_work_tree(repo: Path, dest: Path) -> Path:
    shutil.copytree(repo, dest, ignore=shutil.ignore_patterns(".git", ".aider*", ".gpteng"))
    return dest


def changed(repo: Path) -> bool:
    """Whether the work tree or HEAD differs from the initial commit."""
    status = git(repo, "status", "--porcelain", "--untracked-files=all")
    interesting = [
        line for line in status.splitlines() if ".aider" not in line and ".gpteng" not in line
    ]
    commits = git(repo, "rev-list", "--count", "HEAD").strip()
    if commits != "1":
        diff = git(repo, "diff", "--name-only", "HEAD~" + str(int(commits) - 1), "HEAD")
        if [p for p in diff.splitlines() if p != ".gitignore" and ".aider" not in p]:
            return True
    return bool(interesting)


# --- the tools --------------------------------------------------------------------------------


@dataclass
class Context:
    url: str
    gpte: list[str]
    aider: Path | None
    gpt_engineer: Path | None
    log_dir: Path | None
    gpte_args: tuple[str, ...] = ()


def run_logged(
    argv: list[str],
    cwd: Path,
    env: dict[str, str],
    ctx: Context,
    label: str,
    stdin: str | None = None,
) -> subprocess.CompletedProcess[str]:
    try:
        proc = subprocess.run(
            argv,
            cwd=cwd,
            env=env,
            input=stdin if stdin is not None else "",
            capture_output=True,
            text=True,
            timeout=TOOL_TIMEOUT,
            start_new_session=True,
        )
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        err = exc.stderr.decode() if isinstance(exc.stderr, bytes) else (exc.stderr or "")
        proc = subprocess.CompletedProcess(argv, 124, out, err + "\n[timed out]")
    if ctx.log_dir is not None:
        ctx.log_dir.mkdir(parents=True, exist_ok=True)
        name = re.sub(r"[^\w.-]+", "_", label)
        (ctx.log_dir / f"{name}.log").write_text(
            f"$ {' '.join(argv)}\n[exit {proc.returncode}]\n--- stdout\n{proc.stdout}\n"
            f"--- stderr\n{proc.stderr}\n",
            encoding="utf-8",
        )
    return proc


def gpte_tool(extra: list[str], check: bool = False) -> Callable[..., Outcome]:
    def run(task: SolveTask, repo: Path, work: Path, ctx: Context) -> Outcome:
        env = base_env()
        env.update(OPENAI_BASE_URL=ctx.url, OPENAI_API_KEY="local", MODEL_NAME=MODEL)
        argv = [*ctx.gpte, "improve", task.prompt, "--json", "--yes", *extra, *ctx.gpte_args]
        command = task.visible if check else None
        if command:
            argv += ["--check", command]
        label = f"{task.name}-gpte{'-'.join(['', *extra])}{'-check' if check else ''}"
        proc = run_logged(argv, repo, env, ctx, label)
        data: dict[str, object] = {}
        with contextlib.suppress(ValueError):
            data = json.loads(proc.stdout) if proc.stdout.strip() else {}
        commit = data.get("commit") if isinstance(data, dict) else None
        last = (proc.stderr.strip().splitlines() or [""])[-1][:300]
        tree = copy_tree_of_commit(repo, str(commit), work / "result") if commit else None
        return Outcome(
            tree=tree,
            exit_code=proc.returncode,
            claimed=bool(commit) and proc.returncode == 0,
            refused=not commit and proc.returncode in (6, 8),
            # A refusal's JSON has no attempts when it failed before any answer (a network error).
            retries=max(0, int(str(data.get("attempts") or 1)) - 1) if data else 0,
            tokens_in=int(str(data.get("tokens_in", 0) or 0)) if data else 0,
            tokens_out=int(str(data.get("tokens_out", 0) or 0)) if data else 0,
            note="" if commit else last,
            extra={"edit_format": data.get("edit_format")} if data else {},
        )

    return run


def _aider_tokens(text: str) -> tuple[int, int]:
    sent = received = 0
    for match in re.finditer(r"Tokens: ([\d.]+)(k?) sent, ([\d.]+)(k?) received", text):
        sent += int(float(match.group(1)) * (1000 if match.group(2) else 1))
        received += int(float(match.group(3)) * (1000 if match.group(4) else 1))
    return sent, received


def aider_tool(edit_format: str, test: bool = False) -> Callable[..., Outcome]:
    def run(task: SolveTask, repo: Path, work: Path, ctx: Context) -> Outcome:
        if ctx.aider is None:
            raise SystemExit("--aider PATH (aider's executable) is needed for the aider tools")
        env = base_env()
        env.update(OPENAI_API_BASE=ctx.url, OPENAI_API_KEY="local", AIDER_ANALYTICS="false")
        env["HOME"] = str(work)  # aider's own settings and caches stay in the task's folder
        files = list(task.edited or [p for p in task.files if not p.startswith("tests/")])
        argv = [
            str(ctx.aider),
            "--model",
            f"openai/{MODEL}",
            "--edit-format",
            edit_format,
            "--yes-always",
            "--no-check-update",
            "--analytics-disable",
            "--no-show-model-warnings",
            "--no-pretty",
            "--no-fancy-input",
            "--no-detect-urls",
            "--no-suggest-shell-commands",
            "--no-gitignore",
            "--timeout",
            "1200",
            "--chat-history-file",
            str(work / "aider.chat.md"),
            "--input-history-file",
            str(work / "aider.input"),
            "--message",
            task.prompt,
            *files,
        ]
        check = task.visible if test else None
        if check:
            argv[1:1] = ["--test-cmd", check, "--auto-test"]
        label = f"{task.name}-aider-{edit_format}{'-test' if test else ''}"
        proc = run_logged(argv, repo, env, ctx, label)
        tokens_in, tokens_out = _aider_tokens(proc.stdout + proc.stderr)
        made = changed(repo)
        tree = copy_work_tree(repo, work / "result") if made else None
        retries = (proc.stdout + proc.stderr).count("Only 3 reflections allowed")
        return Outcome(
            tree=tree,
            exit_code=proc.returncode,
            claimed=made and proc.returncode == 0,
            retries=retries,
            tokens_in=tokens_in,
            tokens_out=tokens_out,
            note="" if made else "no change",
        )

    return run


EDITOR = """#!/usr/bin/env python3
import os, sys
path = sys.argv[1]
wanted = set(filter(None, os.environ["BENCH_SELECT"].split("\\n")))
out = []
for line in open(path).read().split("\\n"):
    bare = line[2:] if line.startswith("# ") else line
    name = bare.split(" = ")[0].strip('"')
    out.append(bare if bare.endswith(' = "selected"') and name in wanted else line)
open(path, "w").write("\\n".join(out))
"""


def gpt_engineer_tool(task: SolveTask, repo: Path, work: Path, ctx: Context) -> Outcome:
    if ctx.gpt_engineer is None:
        raise SystemExit("--gpt-engineer PATH (its gpte executable) is needed")
    editor = work / "select-files"
    editor.write_text(EDITOR, encoding="utf-8")
    editor.chmod(0o755)
    (repo / "prompt").write_text(task.prompt + "\n", encoding="utf-8")
    files = list(task.edited or [p for p in task.files if not p.startswith("tests/")])
    env = base_env()
    env.update(
        OPENAI_API_BASE=ctx.url,
        OPENAI_BASE_URL=ctx.url,
        OPENAI_API_KEY="local",
        LOCAL_MODEL="true",
        EDITOR=str(editor),
        BENCH_SELECT="\n".join(files),
    )
    env["HOME"] = str(work)
    argv = [str(ctx.gpt_engineer), str(repo), "-i", "--model", MODEL, "--temperature", "0.1"]
    proc = run_logged(argv, repo, env, ctx, f"{task.name}-gpt-engineer", stdin="y\n" * 5)
    (repo / "prompt").unlink(missing_ok=True)
    made = changed(repo)
    tree = copy_work_tree(repo, work / "result") if made else None
    text = proc.stdout + proc.stderr
    total = re.search(r"Total tokens used:\s*(\d+)", text)
    return Outcome(
        tree=tree,
        exit_code=proc.returncode,
        claimed=made and proc.returncode == 0,
        tokens_in=int(total.group(1)) if total else 0,
        note="" if made else "no change",
    )


def tools(gpte: list[str]) -> dict[str, Callable[..., Outcome]]:
    return {
        "gpte": gpte_tool([]),
        "gpte-whole": gpte_tool(["--edit-format", "whole"]),
        "gpte-diff": gpte_tool(["--edit-format", "diff"]),
        "gpte-search-replace": gpte_tool(["--edit-format", "search-replace"]),
        "gpte-definitions": gpte_tool(["--edit-format", "definitions"]),
        "gpte-check": gpte_tool([], check=True),
        "aider-whole": aider_tool("whole"),
        "aider-diff": aider_tool("diff"),
        "aider-whole-test": aider_tool("whole", test=True),
        "aider-diff-test": aider_tool("diff", test=True),
        "gpt-engineer": gpt_engineer_tool,
    }


def run_one(task: SolveTask, tool: str, ctx: Context) -> Row:
    runner = tools(ctx.gpte)[tool]
    with tempfile.TemporaryDirectory(prefix="solve-") as tmp:
        work = Path(tmp)
        repo = make_repo(task, work)
        started = time.monotonic()
        outcome = runner(task, repo, work, ctx)
        seconds = time.monotonic() - started
        row = Row(
            task=task.name,
            tool=tool,
            exit_code=outcome.exit_code,
            well_formed=outcome.tree is not None,
            claimed=outcome.claimed,
            refused=outcome.refused,
            retries=outcome.retries,
            tokens_in=outcome.tokens_in,
            tokens_out=outcome.tokens_out,
            seconds=round(seconds, 1),
            note=outcome.note,
            extra=outcome.extra,
        )
        if ctx.log_dir is not None:  # the repository and its run log, to read the replies
            name = re.sub(r"[^\w.-]+", "_", f"{task.name}-{tool}")
            kept = ctx.log_dir / f"{name}-repo"
            shutil.rmtree(kept, ignore_errors=True)
            shutil.copytree(repo, kept, symlinks=True)
        if outcome.tree is not None:
            result = run_check(task, outcome.tree)
            row.solved = result.passed
            row.check_tail = "" if result.passed else result.output.strip()[-600:]
        row.broken_committed = row.claimed and not row.solved
    return row


# --- reporting --------------------------------------------------------------------------------


def load_rows(path: Path) -> list[Row]:
    if not path.exists():
        return []
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            rows.append(Row(**json.loads(line)))
    return rows


def latest_rows(paths: list[Path]) -> list[Row]:
    """The rows of all ``paths``, the last one for each task and tool (first-seen order)."""
    latest: dict[tuple[str, str], Row] = {}
    for path in paths:
        for row in load_rows(path):
            latest[(row.task, row.tool)] = row
    return list(latest.values())


def pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "-"


def table(rows: list[Row]) -> str:
    by_tool: dict[str, list[Row]] = {}
    for row in rows:
        by_tool.setdefault(row.tool, []).append(row)
    head = (
        f"{'tool':<22}{'tasks':>6}{'solved':>9}{'well-formed':>13}{'broken+claimed':>16}"
        f"{'refused':>9}{'retries':>9}{'tokens in/out':>16}{'median s':>10}"
    )
    out = [head, "-" * len(head)]
    for tool, mine in by_tool.items():
        n = len(mine)
        secs = sorted(r.seconds for r in mine)
        median = secs[n // 2] if n else 0
        tokens = f"{sum(r.tokens_in for r in mine) // max(n, 1):,}/" + (
            f"{sum(r.tokens_out for r in mine) // max(n, 1):,}"
        )
        out.append(
            f"{tool:<22}{n:>6}{pct(sum(r.solved for r in mine), n):>9}"
            f"{pct(sum(r.well_formed for r in mine), n):>13}"
            f"{sum(r.broken_committed for r in mine):>16}{sum(r.refused for r in mine):>9}"
            f"{sum(r.retries for r in mine):>9}{tokens:>16}{median:>10.0f}"
        )
    return "\n".join(out)


def state(row: Row) -> str:
    if row.solved:
        return "solved"
    return "BROKEN" if row.broken_committed else ("refused" if row.refused else "failed")


def per_task(rows: list[Row]) -> str:
    tool_names = list(dict.fromkeys(r.tool for r in rows))
    tasks = list(dict.fromkeys(r.task for r in rows))
    cell = {(r.task, r.tool): r for r in rows}
    width = max((len(t) for t in tasks), default=10) + 2
    out = [f"{'task':<{width}}" + "".join(f"{t[:14]:>15}" for t in tool_names)]
    for task in tasks:
        marks = []
        for tool in tool_names:
            row = cell.get((task, tool))
            if row is None:
                marks.append(f"{'':>15}")
                continue
            marks.append(f"{state(row) + f' {row.seconds:.0f}s':>15}")
        out.append(f"{task:<{width}}" + "".join(marks))
    return "\n".join(out)


def compared(before: list[Row], after: list[Row]) -> str:
    """``after``'s rows beside ``before``'s for the same task and tool, and per tool what was
    gained and lost: a change is judged on the tasks it was run on, against their last rows
    before it (one sample each, so a task or two either way is within the noise)."""
    earlier = {(r.task, r.tool): r for r in before}
    pairs = [(earlier[(r.task, r.tool)], r) for r in after if (r.task, r.tool) in earlier]
    if not pairs:
        return "no task of these reports has a row in the --before reports"
    width = max(len(new.task) for _, new in pairs) + 2
    out = [f"{'task':<{width}}{'tool':<14}{'before':>16}{'after':>16}"]
    for old, new in pairs:
        was, now = f"{state(old)} {old.seconds:.0f}s", f"{state(new)} {new.seconds:.0f}s"
        out.append(f"{new.task:<{width}}{new.tool[:13]:<14}{was:>16}{now:>16}")
    for tool in dict.fromkeys(new.tool for _, new in pairs):
        mine = [(old, new) for old, new in pairs if new.tool == tool]
        gained = [new.task for old, new in mine if new.solved and not old.solved]
        lost = [new.task for old, new in mine if old.solved and not new.solved]
        seconds = [sorted(r.seconds for r in side) for side in zip(*mine, strict=True)]
        medians = [f"{side[len(side) // 2]:.0f}" for side in seconds]
        out.append(
            f"{tool}, {len(mine)} task(s): solved {sum(o.solved for o, _ in mine)} -> "
            f"{sum(n.solved for _, n in mine)} (gained: {', '.join(gained) or '-'}; lost: "
            f"{', '.join(lost) or '-'}); broken and claimed "
            f"{sum(o.broken_committed for o, _ in mine)} -> "
            f"{sum(n.broken_committed for _, n in mine)}; median seconds {' -> '.join(medians)}"
        )
    return "\n".join(out)


def interleaved(tasks: list[SolveTask]) -> list[SolveTask]:
    """The first task of each project, then the second of each, and so on."""
    by_project: dict[str, list[SolveTask]] = {}
    for task in tasks:
        by_project.setdefault(task.project, []).append(task)
    rounds = max((len(group) for group in by_project.values()), default=0)
    return [group[i] for i in range(rounds) for group in by_project.values() if i < len(group)]


def main(argv: list[str] | None = None) -> int:
    global TIKTOKEN_CACHE, TOOL_TIMEOUT
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="the OpenAI-compatible server (…/v1)")
    parser.add_argument("--tools", default="gpte", help="comma-separated, see the docstring")
    parser.add_argument("--only", action="append", default=[], metavar="PROJECT")
    parser.add_argument("--task", action="append", default=[], metavar="NAME")
    parser.add_argument("--limit", type=int, help="at most N tasks")
    parser.add_argument(
        "--interleave",
        action="store_true",
        help="one task of each project in turn, so that a run cut short is a fair sample",
    )
    parser.add_argument("--exercism", type=Path, help="a checkout of Exercism's Python track")
    parser.add_argument("--exercism-limit", type=int, default=40)
    parser.add_argument(
        "--exercism-tests",
        action="store_true",
        help="the exercises' tests in the repository, for the -check/-test tools to run",
    )
    parser.add_argument("--no-own-tasks", action="store_true", help="only the Exercism tasks")
    parser.add_argument("--report", type=Path, help="JSON lines, appended (and resumed from)")
    parser.add_argument("--logs", type=Path, help="keep each tool run's output here")
    parser.add_argument("--gpte", default=None, help="git-gpte command (default: this venv's)")
    parser.add_argument(
        "--gpte-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="one more argument for every git gpte improve (a variant: --gpte-arg=--max-retries=4)",
    )
    parser.add_argument("--aider", type=Path, help="aider's executable")
    parser.add_argument("--gpt-engineer", type=Path, help="gpt-engineer's gpte executable")
    parser.add_argument(
        "--table",
        type=Path,
        nargs="+",
        help="only print the tables of these reports (a later report's row for a task and "
        "tool replaces an earlier one's: re-runs after a fix)",
    )
    parser.add_argument(
        "--before",
        type=Path,
        nargs="+",
        help="with --table: the reports of the runs before a change; their latest row of each "
        "task the --table reports hold is printed beside it, with what was gained and lost",
    )
    parser.add_argument(
        "--tool-timeout",
        type=float,
        default=TOOL_TIMEOUT,
        help="seconds each tool run may take, the same for every tool (default %(default)s); "
        "a run stopped by it counts as failed",
    )
    parser.add_argument(
        "--tiktoken-cache",
        help="TIKTOKEN_CACHE_DIR for every tool (gpt-engineer cannot start without cl100k_base "
        "offline; litellm, which aider brings, ships the file)",
    )
    args = parser.parse_args(argv)
    TIKTOKEN_CACHE = args.tiktoken_cache
    TOOL_TIMEOUT = args.tool_timeout
    if args.table:
        rows = latest_rows(args.table)
        print(table(rows) + "\n\n" + per_task(rows))
        if args.before:
            print("\n" + compared(latest_rows(args.before), rows))
        return 0
    if not args.url:
        parser.error("--url is required (see bench/local_model.py start)")
    probe = subprocess.run([sys.executable, "-c", "import pytest"], capture_output=True)
    if probe.returncode != 0:
        parser.error(f"the checks run pytest with {sys.executable}: pip install pytest there")
    gpte = args.gpte.split() if args.gpte else [str(Path(sys.executable).parent / "git-gpte")]
    ctx = Context(
        args.url.rstrip("/"), gpte, args.aider, args.gpt_engineer, args.logs, tuple(args.gpte_arg)
    )
    tasks: list[SolveTask] = [] if args.no_own_tasks else load_all(only=tuple(args.only))
    if args.exercism:
        tasks += exercism_tasks(args.exercism, args.exercism_limit, args.exercism_tests)
    if args.task:
        tasks = [t for t in tasks if t.name in args.task]
    tasks = interleaved(tasks) if args.interleave else tasks
    tasks = tasks[: args.limit] if args.limit else tasks
    chosen = [t.strip() for t in args.tools.split(",") if t.strip()]
    unknown = set(chosen) - set(tools(gpte))
    if unknown:
        parser.error(f"unknown tool(s): {', '.join(sorted(unknown))}")
    done = {(r.task, r.tool) for r in load_rows(args.report)} if args.report else set()
    rows = load_rows(args.report) if args.report else []
    for number, task in enumerate(tasks, 1):
        for tool in chosen:
            if (task.name, tool) in done:
                continue
            row = run_one(task, tool, ctx)
            rows.append(row)
            state = "solved" if row.solved else ("BROKEN" if row.broken_committed else "failed")
            print(
                f"[{number}/{len(tasks)}] {task.name} {tool}: {state} "
                f"(exit {row.exit_code}, {row.seconds:.0f}s) {row.note[:120]}",
                file=sys.stderr,
                flush=True,
            )
            if args.report:
                with args.report.open("a", encoding="utf-8") as handle:
                    handle.write(json.dumps(asdict(row)) + "\n")
    print(table(rows) + "\n\n" + per_task(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
