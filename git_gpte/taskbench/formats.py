"""APPS and MBPP rows, as published, turned into bench tasks.

MBPP (``mbpp.jsonl``: ``task_id``, ``text``, ``code``, ``test_list``, ``test_setup_code``,
``challenge_test_list``; the sanitized JSON has ``prompt`` and ``test_imports`` instead): the
model writes ``solution.py``; as in the MBPP paper the prompt shows the tests, and they run as
hidden assertion scripts that import the solution.

APPS (rows of ``problem_id``, ``question``, ``solutions``, ``input_output``, ``starter_code``,
``difficulty``; ``input_output`` is a JSON string of ``inputs``/``outputs`` and, for call-based
problems, ``fn_name``): the model writes ``main.py``; standard-input problems are checked by
running it on each input and comparing the output (whitespace-normalised), call-based ones by
calling the function (or ``Solution().fn``) on each input.
"""

from __future__ import annotations

import json
from typing import Any

from ..errors import UsageError
from .tasks import Task

MBPP_FILE = "solution.py"
APPS_FILE = "main.py"


def mbpp_task(row: dict[str, Any]) -> Task:
    task_id = row["task_id"]
    text = row.get("text") or row.get("prompt")
    tests = row["test_list"]
    if not isinstance(text, str) or not isinstance(tests, list) or not tests:
        raise UsageError(f"MBPP task {task_id}: needs text/prompt and a non-empty test_list")
    setup = str(row.get("test_setup_code") or "")
    imports = "\n".join(str(line) for line in row.get("test_imports") or [])
    shown = "\n".join(str(t) for t in tests)
    prompt = (
        f"{text.strip()}\n\nWrite the function in {MBPP_FILE}. "
        f"Your code should pass these tests:\n\n{shown}\n"
    )
    script = "\n".join(
        part for part in ("from solution import *  # noqa", imports, setup, shown) if part
    )
    return Task(
        name=f"mbpp-{task_id}",
        prompt=prompt,
        files={MBPP_FILE: f"# MBPP task {task_id}: write the solution here.\n"},
        asserts=[script + "\n"],
    )


def apps_task(row: dict[str, Any]) -> Task:
    problem = row.get("problem_id", row.get("id"))
    question = row["question"]
    io = row["input_output"]
    if isinstance(io, str):
        io = json.loads(io) if io.strip() else {}
    inputs, outputs = io.get("inputs"), io.get("outputs")
    if not isinstance(inputs, list) or not isinstance(outputs, list) or not inputs:
        raise UsageError(f"APPS problem {problem}: input_output has no test cases")
    if len(inputs) != len(outputs):
        raise UsageError(f"APPS problem {problem}: {len(inputs)} inputs but {len(outputs)} outputs")
    starter = str(row.get("starter_code") or "")
    fn_name = io.get("fn_name")
    if fn_name:
        how = f"Define `{fn_name}` in {APPS_FILE} (starting from the code there)."
        script = _call_script(str(fn_name), inputs, outputs)
    else:
        how = f"Write {APPS_FILE}: it reads standard input and prints the answer."
        script = _stdio_script(inputs, outputs)
    return Task(
        name=f"apps-{problem}",
        prompt=f"{question.strip()}\n\n{how}\n",
        files={APPS_FILE: starter or f"# APPS problem {problem}: write the program here.\n"},
        asserts=[script],
    )


def _stdio_script(inputs: list[Any], outputs: list[Any]) -> str:
    cases = json.dumps([[_text(i), _text(o)] for i, o in zip(inputs, outputs, strict=True)])
    return f"""\
import json, subprocess, sys

CASES = json.loads({cases!r})


def norm(text):
    return [line.rstrip() for line in text.strip().splitlines()]


for number, (given, wanted) in enumerate(CASES, 1):
    out = subprocess.run([sys.executable, "{APPS_FILE}"], input=given, capture_output=True,
                         text=True, timeout=30)
    if norm(out.stdout) != norm(wanted):
        got = out.stdout + out.stderr[-500:]
        sys.exit(f"case {{number}}: expected {{wanted!r}}, got {{got!r}}")
print(f"{{len(CASES)}} case(s) passed")
"""


def _call_script(fn_name: str, inputs: list[Any], outputs: list[Any]) -> str:
    cases = json.dumps([[i, o] for i, o in zip(inputs, outputs, strict=True)])
    return f"""\
import json, sys

import main

CASES = json.loads({cases!r})
owner = main.Solution() if hasattr(main, "Solution") else main
fn = getattr(owner, {fn_name!r})
for number, (args, wanted) in enumerate(CASES, 1):
    got = fn(*args) if isinstance(args, list) else fn(args)
    if isinstance(got, tuple):
        got = list(got)
    if got != wanted and not (isinstance(wanted, list) and len(wanted) == 1 and got == wanted[0]):
        sys.exit(f"case {{number}}: expected {{wanted!r}}, got {{got!r}}")
print(f"{{len(CASES)}} case(s) passed")
"""


def _text(value: Any) -> str:
    if isinstance(value, list):
        return "\n".join(str(v) for v in value)
    return str(value)
