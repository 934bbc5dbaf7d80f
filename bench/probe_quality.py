"""How good the probes a model writes are, on the solved-rate tasks' reference solutions.

The probe (``--probe``, :mod:`git_gpte.pipeline.probe`) is asked once a result passes the
project's tests. Whether it helps depends on two things a full ``bench/solve.py`` run measures
only slowly and mixed with everything else: does it stand (fail before the change), and does a
right result pass it? Here the change is each task's reference solution, so every failure on
it is a false alarm. Each probe git-gpte would ask for (one of the whole request, one of each
later sentence: :func:`~git_gpte.prompts.probe.focus_sentences`) is asked of the model with
git-gpte's own messages and client settings, read with its own rules, and run on the base and
on the solution as git-gpte runs it (``python3 gpte_probe.py`` at the top of the tree):

- stands: it fails on the base, and is usable (git-gpte keeps it);
- right: it stands and passes on the solution (it checks what the change did);
- false alarm: it stands and fails on the solution in a way that judges the code (an assertion,
  or the project's code raising otherwise than on the base): a right result that git-gpte
  would send back, and commit with exit 1 if the retries keep it;
- per task: whether any probe is right, and whether any raises a false alarm.

    python bench/probe_quality.py --url http://127.0.0.1:8012/v1 [--only PROJECT] [--task P/T]
        [--samples N] [--report R.jsonl]

Prints a table per kind of probe (whole request / later sentence) and per task.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from solve_tasks import SolveTask, load_all, write_solution, write_tree

from git_gpte.config import Settings
from git_gpte.errors import GpteError
from git_gpte.llm import LLM, resolve_model
from git_gpte.prompts.probe import (
    PROBE_FILE,
    Verdict,
    changed_signatures,
    focus_sentences,
    probe_enough,
    probe_messages,
    probe_script,
    verdict,
)

PROBE_TIMEOUT = 60.0


@dataclass
class Row:
    """One probe asked for one task."""

    task: str
    kind: str  # "whole" or "sentence"
    sample: int
    usable: bool = False
    stands: bool = False
    right: bool = False
    false_alarm: bool = False
    on_base: str = ""
    on_solution: str = ""
    seconds: float = 0.0
    script: str = ""


def run_probe(script: str, tree: Path) -> Verdict:
    """Run ``script`` at the top of ``tree`` as git-gpte runs a probe."""
    (tree / PROBE_FILE).write_text(script, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "GPTE"))}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    try:
        proc = subprocess.run(
            [sys.executable, PROBE_FILE],
            cwd=tree,
            env=env,
            capture_output=True,
            text=True,
            timeout=PROBE_TIMEOUT,
            start_new_session=True,
        )
    except subprocess.TimeoutExpired:
        return verdict(None, "")
    finally:
        (tree / PROBE_FILE).unlink()
    return verdict(proc.returncode, (proc.stdout + proc.stderr)[-4000:])


def judge(row: Row, script: str | None, base: Path, solution: Path) -> Row:
    """Fill ``row`` from running ``script`` (None: no usable probe) on both trees."""
    if script is None:
        return row
    row.usable, row.script = True, script
    before = run_probe(script, base)
    row.on_base = "passed" if before.passed else before.error
    if before.passed:
        return row
    row.stands = True
    after = run_probe(script, solution)
    row.on_solution = "passed" if after.passed else after.error
    row.right = after.passed
    row.false_alarm = not after.passed and after.judges and not after.as_before(before)
    return row


def task_rows(task: SolveTask, llm: LLM, samples: int, tmp: Path) -> list[Row]:
    base, solution = tmp / "base", tmp / "solution"
    write_tree(task.files, base)
    error = write_solution(task, solution)
    if error:
        raise SystemExit(f"{task.name}: the solution does not apply: {error}")
    before_after = {
        path: (task.files.get(path, ""), (solution / path).read_text(encoding="utf-8"))
        for path in task.edited
        if path.endswith(".py") and (solution / path).is_file()
    }
    signatures = changed_signatures(before_after)
    if not signatures:
        return []
    local = {path.split("/", 1)[0].removesuffix(".py") for path in task.files}
    rows = []
    for sample in range(samples):
        for focus in ["", *focus_sentences(task.prompt)]:
            row = Row(task.name, "sentence" if focus else "whole", sample)
            started = time.monotonic()
            try:
                reply = llm.ask(probe_messages(task.prompt, signatures, focus), enough=probe_enough)
                script = probe_script(reply.text, signatures, local)
            except GpteError as exc:
                print(f"  {task.name}: {exc.render().splitlines()[0]}", file=sys.stderr)
                script = None
            row.seconds = round(time.monotonic() - started, 1)
            rows.append(judge(row, script, base, solution))
    return rows


def pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "-"


def tables(rows: list[Row]) -> str:
    out = [f"{'probe':<10}{'asked':>7}{'usable':>8}{'stands':>8}{'right':>8}{'false alarm':>13}"]
    for kind in ("whole", "sentence"):
        mine = [r for r in rows if r.kind == kind]
        stands = sum(r.stands for r in mine)
        out.append(
            f"{kind:<10}{len(mine):>7}{sum(r.usable for r in mine):>8}{stands:>8}"
            f"{sum(r.right for r in mine):>8}{sum(r.false_alarm for r in mine):>13}"
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
        rows = [Row(**json.loads(line)) for p in args.table for line in p.read_text().splitlines()]
        print(tables(rows))
        return 0
    env = {**os.environ, "OPENAI_BASE_URL": args.url, "OPENAI_API_KEY": "local"}
    env["MODEL_NAME"] = args.model
    settings = Settings(environ=env)
    llm = LLM(resolve_model(None, settings), settings)
    tasks = [t for t in load_all(only=tuple(args.only)) if not args.task or t.name in args.task]
    rows: list[Row] = []
    for task in tasks:
        with tempfile.TemporaryDirectory(prefix="probe-quality-") as tmp:
            mine = task_rows(task, llm, args.samples, Path(tmp))
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
