"""The solved-rate task set: projects of real modules, everyday requests, checks that run code.

A project is a directory under ``bench/tasks/solve/``::

    PROJECT/
      repo/                 the files of the repository the tool is given (committed)
      tasks.json            {"tasks": [{"name", "prompt", "check", "hidden", "solution", ...}]}
      hidden/TASK/...       files laid over the result only when its check runs (tests the
                            tool never sees), at the same relative paths
      solutions/TASK.patch  a reference solution (``git apply`` on repo/), used only to
                            validate the task: the check fails on repo/ and passes with it

A task's ``check`` is a shell command run at the root of the result with the hidden files laid
over it and the root on ``PYTHONPATH``; exit 0 means solved. ``timeout`` (seconds) is optional.

Exercism's Python track is read as aider's editing benchmark reads it: each practice exercise's
``.docs/instructions*.md`` is the request, its stub the file to edit, its ``*_test.py`` the hidden
check (see :func:`exercism_tasks`).

    python bench/solve_tasks.py validate [--only PROJECT ...]   # every task: fails, then passes
    python bench/solve_tasks.py list                            # tasks, with file sizes
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
TASKS_ROOT = HERE / "tasks" / "solve"
DEFAULT_TIMEOUT = 120.0


@dataclass
class SolveTask:
    """One request on one repository, and how to tell that it was done."""

    name: str
    project: str
    prompt: str
    files: dict[str, str]  # the repository the tool is given
    check: str
    hidden: dict[str, str] = field(default_factory=dict)
    solution: str | None = None  # a patch, for validation only
    timeout: float = DEFAULT_TIMEOUT
    edited: tuple[str, ...] = ()  # the files the reference solution changes
    visible: str | None = None  # the tests a user of the project would run (never the hidden)

    @property
    def sizes(self) -> dict[str, int]:
        return {path: text.count("\n") for path, text in self.files.items()}


def _read_tree(root: Path) -> dict[str, str]:
    files = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            files[path.relative_to(root).as_posix()] = path.read_text(encoding="utf-8")
    return files


def _patched_paths(patch: str) -> tuple[str, ...]:
    paths = []
    for line in patch.splitlines():
        if line.startswith("+++ ") and not line.endswith("/dev/null"):
            name = line[4:].split("\t")[0].strip()
            paths.append(name[2:] if name.startswith("b/") else name)
    return tuple(dict.fromkeys(paths))


def _visible_tests(files: dict[str, str]) -> str | None:
    """The project's own test suite, when it has one: what a user gives a tool to check with."""
    if not any(path.startswith("tests/") for path in files):
        return None
    return f"{sys.executable} -m pytest -q -x -p no:cacheprovider tests"


def load_project(directory: Path) -> list[SolveTask]:
    spec = json.loads((directory / "tasks.json").read_text(encoding="utf-8"))
    files = _read_tree(directory / "repo")
    tasks = []
    for row in spec["tasks"]:
        hidden_dir = directory / "hidden" / row["name"]
        hidden = _read_tree(hidden_dir) if hidden_dir.is_dir() else {}
        patch_file = directory / "solutions" / f"{row['name']}.patch"
        solution = patch_file.read_text(encoding="utf-8") if patch_file.exists() else None
        tasks.append(
            SolveTask(
                name=f"{directory.name}/{row['name']}",
                project=directory.name,
                prompt=row["prompt"],
                files=files,
                check=row["check"],
                hidden=hidden,
                solution=solution,
                timeout=float(row.get("timeout", DEFAULT_TIMEOUT)),
                edited=_patched_paths(solution) if solution else (),
                visible=_visible_tests(files),
            )
        )
    return tasks


def load_all(root: Path = TASKS_ROOT, only: tuple[str, ...] = ()) -> list[SolveTask]:
    tasks: list[SolveTask] = []
    for directory in sorted(p for p in root.iterdir() if (p / "tasks.json").is_file()):
        if only and directory.name not in only:
            continue
        tasks += load_project(directory)
    return tasks


# --- Exercism ---------------------------------------------------------------------------------

# The request aider's editing benchmark sends with each exercise's instructions.
EXERCISM_PROMPT = (
    "{instructions}\n\n"
    "Use the above instructions to modify the supplied files: {files}\n"
    "Don't change the names of existing functions or classes, as they may be referenced from "
    "other code like unit tests, etc.\n"
    "Only use standard python libraries, don't suggest installing any packages.\n"
)


def exercism_tasks(
    track: Path, limit: int | None = None, show_tests: bool = False
) -> list[SolveTask]:
    """The practice exercises of a checkout of Exercism's Python track, in name order.

    ``show_tests``: the exercise's tests are in the repository the tool gets and are what its
    check runs (aider's own benchmark shows the model the failures); the scoring check still
    lays the original tests over the result, so a tool that edits them gains nothing.
    """
    practice = track / "exercises" / "practice"
    if not practice.is_dir():
        raise SystemExit(f"{track}: no exercises/practice directory (a checkout of the track?)")
    tasks = []
    for exercise in sorted(p for p in practice.iterdir() if p.is_dir()):
        config_file = exercise / ".meta" / "config.json"
        if not config_file.is_file():
            continue
        config = json.loads(config_file.read_text(encoding="utf-8"))
        solution_files = config.get("files", {}).get("solution", [])
        test_files = config.get("files", {}).get("test", [])
        if not solution_files or not test_files:
            continue
        docs = exercise / ".docs"
        parts = [
            (docs / name).read_text(encoding="utf-8")
            for name in ("introduction.md", "instructions.md", "instructions.append.md")
            if (docs / name).is_file()
        ]
        files = {name: (exercise / name).read_text(encoding="utf-8") for name in solution_files}
        hidden = {name: (exercise / name).read_text(encoding="utf-8") for name in test_files}
        tests = " ".join(test_files)
        visible = None
        if show_tests:
            files.update(hidden)
            visible = f"{sys.executable} -m pytest -q -x -p no:cacheprovider {tests}"
        tasks.append(
            SolveTask(
                name=f"exercism/{exercise.name}",
                project="exercism",
                prompt=EXERCISM_PROMPT.format(
                    instructions="\n\n".join(p.strip() for p in parts),
                    files=" ".join(solution_files),
                ),
                files=files,
                check=f"python -m pytest -q -p no:cacheprovider {tests}",
                hidden=hidden,
                timeout=120.0,
                edited=tuple(solution_files),
                visible=visible,
            )
        )
        if limit and len(tasks) >= limit:
            break
    return tasks


# --- checking ---------------------------------------------------------------------------------


@dataclass
class CheckResult:
    passed: bool
    output: str
    timed_out: bool = False


def run_check(task: SolveTask, tree: Path) -> CheckResult:
    """Lay the hidden files over ``tree`` (a copy the caller owns) and run the check in it."""
    for path, text in task.hidden.items():
        target = tree / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.endswith(("_KEY", "_TOKEN")) and not key.startswith(("OPENAI", "GPTE"))
    }
    env["PYTHONPATH"] = str(tree)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    try:
        proc = subprocess.run(
            ["bash", "-c", task.check],
            cwd=tree,
            env=env,
            capture_output=True,
            text=True,
            timeout=task.timeout,
            start_new_session=True,
        )
    except subprocess.TimeoutExpired as exc:
        out = (
            (exc.stdout or b"").decode("utf-8", "replace") if isinstance(exc.stdout, bytes) else ""
        )
        return CheckResult(False, out[-4000:], timed_out=True)
    return CheckResult(proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:])


def write_tree(files: dict[str, str], root: Path) -> None:
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


def write_solution(task: SolveTask, root: Path) -> str:
    """Write the repository with the reference solution applied at ``root`` (a new folder);
    what ``git apply`` said when it does not apply (empty when it does)."""
    assert task.solution is not None
    write_tree(task.files, root)
    patch = root.parent / f"{root.name}.patch"
    patch.write_text(task.solution, encoding="utf-8")
    applied = subprocess.run(
        ["git", "apply", "--unsafe-paths", f"--directory={root.name}", str(patch)],
        cwd=root.parent,
        capture_output=True,
        text=True,
    )
    if applied.returncode != 0:
        applied = subprocess.run(
            ["git", "apply", str(patch)], cwd=root, capture_output=True, text=True
        )
    patch.unlink()
    return applied.stderr.strip() if applied.returncode != 0 else ""


def validate(task: SolveTask) -> list[str]:
    """What is wrong with ``task``: its check must fail on the repository as given and pass
    with the reference solution applied."""
    problems = []
    if task.solution is None:
        return [f"{task.name}: no solutions/ patch"]
    with tempfile.TemporaryDirectory(prefix="solve-validate-") as tmp:
        before = Path(tmp) / "before"
        write_tree(task.files, before)
        result = run_check(task, before)
        if result.passed:
            problems.append(f"{task.name}: the check passes before any change")
        after = Path(tmp) / "after"
        error = write_solution(task, after)
        if error:
            problems.append(f"{task.name}: the solution does not apply: {error}")
        else:
            result = run_check(task, after)
            if not result.passed:
                tail = result.output.strip().splitlines()[-5:]
                problems.append(f"{task.name}: the check fails with the solution: {tail}")
        shutil.rmtree(before, ignore_errors=True)
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="The solved-rate task set.")
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("validate", help="each task fails as given and passes when solved")
    check.add_argument("--only", action="append", default=[], metavar="PROJECT")
    listing = sub.add_parser("list", help="the tasks and their file sizes")
    listing.add_argument("--only", action="append", default=[], metavar="PROJECT")
    args = parser.parse_args(argv)
    tasks = load_all(only=tuple(args.only))
    if args.command == "list":
        for task in tasks:
            sizes = ", ".join(f"{p} {n}" for p, n in task.sizes.items() if p.endswith(".py"))
            print(f"{task.name}: {task.prompt[:70]!r}  [{sizes}]  edits {', '.join(task.edited)}")
        print(f"{len(tasks)} tasks")
        return 0
    failures = 0
    for task in tasks:
        problems = validate(task)
        failures += bool(problems)
        print("\n".join(problems) if problems else f"ok  {task.name}")
    print(f"{len(tasks) - failures}/{len(tasks)} tasks valid")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
