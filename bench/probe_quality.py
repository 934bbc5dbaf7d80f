"""How good the probes a model writes are, on the solved-rate tasks' reference solutions.

The probe (``--probe``, :mod:`git_gpte.pipeline.probe`) is asked once a result passes the
project's tests. Whether it helps depends on two things a full ``bench/solve.py`` run measures
only slowly and mixed with everything else: does it stand (fail before the change), and does a
right result pass it? Here the change is each task's reference solution, so every failure on
it is a false alarm. git-gpte's own probe check (``probe_check``, with its messages, client
settings and rules: one probe of the whole request and one of each later sentence) runs on a
git repository of the task, with the solution as the result:

- stands: it failed on the base and was kept (not failing on its own on the solution);
- right: it stands and the solution passes it (it checks what the change did);
- false alarm: it stands and the solution fails it: a right result that git-gpte would send
  back, and commit with exit 1 if the retries keep it;
- per task: whether any probe is right, and whether any raises a false alarm.

    python bench/probe_quality.py --url http://127.0.0.1:8012/v1 [--only PROJECT] [--task P/T]
        [--samples N] [--report R.jsonl]

Prints a table per kind of probe (whole request / later sentence) and per task.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from solve import git, make_repo
from solve_tasks import SolveTask, load_all, write_solution

from git_gpte.config import Settings
from git_gpte.git import FileChange, Repository
from git_gpte.llm import LLM, resolve_model
from git_gpte.pipeline.probe import probe_check
from git_gpte.prompts.probe import focus_sentences
from git_gpte.ui import Console

IDENTITY = ("probe-quality", "probe-quality@localhost")


@dataclass
class Row:
    """One probe asked for one task: what became of it."""

    task: str
    kind: str  # "whole" or "sentence"
    sample: int
    stands: bool = False
    right: bool = False
    false_alarm: bool = False
    on_base: str = ""
    on_solution: str = ""
    script: str = ""
    said: str = ""  # what the check said while asking and running (why a probe was dropped)


def task_repo(task: SolveTask, root: Path) -> tuple[Repository, str]:
    """A git repository of the task's files (as bench/solve.py gives it to the tools), and its
    one commit."""
    repo = make_repo(task, root)
    return Repository.discover(repo), git(repo, "rev-parse", "HEAD").strip()


def solution_changes(task: SolveTask, root: Path) -> list[FileChange]:
    error = write_solution(task, root)
    if error:
        raise SystemExit(f"{task.name}: the solution does not apply: {error}")
    return [
        FileChange(path, (root / path).read_bytes() if (root / path).is_file() else None)
        for path in task.edited
    ]


def task_rows(task: SolveTask, llm: LLM, settings: Settings, samples: int, tmp: Path) -> list[Row]:
    repo, base = task_repo(task, tmp)
    changes = solution_changes(task, tmp / "solution")
    asked = {"whole": 1, "sentence": len(focus_sentences(task.prompt))}
    rows = []
    for sample in range(samples):
        said = io.StringIO()
        console = Console(stream=said, live=False)
        check = probe_check(None, llm, task.prompt, repo, settings, base, IDENTITY, console)
        check(changes)
        kinds = {"whole": 0, "sentence": 0}
        for probe in check.probes:
            kind = "sentence" if probe.focus else "whole"
            kinds[kind] += 1
            last = probe.last
            rows.append(
                Row(
                    task.name, kind, sample, stands=True,
                    right=last is not None and last.passed,
                    false_alarm=last is not None and not last.passed,
                    on_base="; ".join(v.error for v in probe.on_base.values()),
                    on_solution="" if last is None else "passed" if last.passed else last.error,
                    script=probe.script,
                    said=said.getvalue(),
                )
            )  # fmt: skip
        rows += [
            Row(task.name, kind, sample, said=said.getvalue())
            for kind, n in asked.items()
            for _ in range(n - kinds[kind])
        ]
    return rows


def pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "-"


def tables(rows: list[Row]) -> str:
    out = [f"{'probe':<10}{'asked':>7}{'stands':>8}{'right':>8}{'false alarm':>13}"]
    for kind in ("whole", "sentence"):
        mine = [r for r in rows if r.kind == kind]
        out.append(
            f"{kind:<10}{len(mine):>7}{sum(r.stands for r in mine):>8}"
            f"{sum(r.right for r in mine):>8}"
            f"{sum(r.false_alarm for r in mine):>13}"
        )
    tasks = sorted({(r.task, r.sample) for r in rows})
    for label, kinds in (("whole only", {"whole"}), ("all probes", {"whole", "sentence"})):
        right = alarm = 0
        for key in tasks:
            mine = [r for r in rows if (r.task, r.sample) == key and r.kind in kinds]
            right += any(r.right for r in mine)
            alarm += any(r.false_alarm for r in mine)
        out.append(
            f"{label}: {len(tasks)} task run(s), a right probe in {right} "
            f"({pct(right, len(tasks))}), a false alarm in {alarm} ({pct(alarm, len(tasks))})"
        )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:8012/v1")
    parser.add_argument("--model", default="local-model")
    parser.add_argument("--only", action="append", default=[], metavar="PROJECT")
    parser.add_argument("--task", action="append", default=[], metavar="NAME")
    parser.add_argument("--samples", type=int, default=1, help="times each probe is asked")
    parser.add_argument("--report", type=Path, help="JSON lines: one row per probe")
    parser.add_argument("--table", type=Path, nargs="+", help="only print these reports' tables")
    args = parser.parse_args(argv)
    if args.table:
        known = Row.__dataclass_fields__
        rows = [
            Row(**{k: v for k, v in json.loads(line).items() if k in known})
            for path in args.table
            for line in path.read_text().splitlines()
        ]
        print(tables(rows))
        return 0
    env = {**os.environ, "OPENAI_BASE_URL": args.url, "OPENAI_API_KEY": "local"}
    env["MODEL_NAME"] = args.model
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    settings = Settings(environ=env)
    llm = LLM(resolve_model(None, settings), settings)
    tasks = [t for t in load_all(only=tuple(args.only)) if not args.task or t.name in args.task]
    rows: list[Row] = []
    for task in tasks:
        with tempfile.TemporaryDirectory(prefix="probe-quality-") as tmp:
            mine = task_rows(task, llm, settings, args.samples, Path(tmp))
        for row in mine:
            print(
                f"{row.task:<36}{row.kind:<9}{row.sample:>2}  "
                f"{'right' if row.right else 'FALSE ALARM' if row.false_alarm else '-':<12}"
                f"base: {row.on_base[:50]:<52}solution: {row.on_solution[:50]}",
                flush=True,
            )
            if args.report:
                with args.report.open("a", encoding="utf-8") as report:
                    report.write(json.dumps(asdict(row)) + "\n")
        rows += mine
    print(tables(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
