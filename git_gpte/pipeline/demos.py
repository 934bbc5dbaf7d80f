"""``--check auto``, part two: a module's own ``__main__`` block must still run.

Many small projects have no tests but a demo: ``if __name__ == "__main__":`` builds an example
and prints it. The demo is a statement of behaviour the project relies on, as a test is (seen
with the 1.5B model: asked to make ``parse_quantity`` raise ValueError on bad input, it dropped
the ``strip()`` that the demo's ``" 1 "`` needs; nothing else looked). So each module a result
changes that has such a block is run (``python3 -m module``, as ``git gpte run`` runs code: a
temporary worktree, stdin closed) on the base once and on the result. Only a demo that exits 0
on the base within DEMO_TIMEOUT judges (one waiting for a server, arguments or input does not),
and a result fails it only by crashing: an uncaught exception's traceback, or running far
longer than the base. An ordinary non-zero exit (``sys.exit(2)``, argparse's usage error) may
be what the request asked for, and is not blamed.
"""

from __future__ import annotations

import ast
import re
import shlex
from dataclasses import dataclass, replace

from ..config import Settings
from ..edit.pycheck import Crash, Problem
from ..errors import GpteError
from ..git import FileChange, Repository
from ..prompts.probe import module_name
from ..run import RunOptions, RunResult
from ..run.command import RunCommand
from ..ui import Console
from .edit_loop import Verify
from .regression import OnBase
from .verify import judged_by

DEMO_TIMEOUT = 20.0  # a demo, not a job: one taking longer is waiting for something
_TRACEBACK = "Traceback (most recent call last):"

# How a demo runs: as ``python3 -m module`` (or ``python3 path``) would, and on a crash, after
# the traceback, what the project's innermost function in it was called with. A traceback
# names the call but not its values; seen with the 1.5B model: told that the demo raised
# ValueError in parse_quantity, it wrote the same answer again, never seeing that the demo's
# quantity was " 1 " (invoice/value-error).
_RUN_DEMO = """\
import os, runpy, sys, traceback
def shown(value):
    try:
        return repr(value)[:80]
    except Exception:
        return "?"
how, target = sys.argv[1], sys.argv[2]
sys.argv = [target]
try:
    if how == "-m":
        runpy.run_module(target, run_name="__main__", alter_sys=True)
    else:
        sys.path.insert(0, os.path.dirname(os.path.abspath(target)))
        runpy.run_path(target, run_name="__main__")
except SystemExit:
    raise
except BaseException as exc:
    traceback.print_exc()
    root, frame, tb = os.getcwd() + os.sep, None, exc.__traceback__
    while tb is not None:
        if os.path.abspath(tb.tb_frame.f_code.co_filename).startswith(root):
            frame = tb.tb_frame
        tb = tb.tb_next
    code = frame.f_code if frame is not None else None
    names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount] if code else ()
    values = [f"{n}={shown(frame.f_locals[n])}" for n in names if n in frame.f_locals]
    if values:
        name = getattr(code, "co_qualname", code.co_name)
        print(f"{name} was called with {', '.join(values)}", file=sys.stderr)
    sys.exit(1)
"""


# The line _RUN_DEMO prints after a traceback, the exception's line just above it.
_CALLED = re.compile(
    r"^(?P<raised>\w[\w.]*(?::.*)?)\n(?P<function>[\w.]+) was called with (?P<arguments>.*)$",
    re.M,
)


def crash_of(output: str) -> Crash | None:
    """The call a demo's crash names (see _RUN_DEMO), from the run's output; None when the
    output does not end so (a timeout, a crash outside the project's functions)."""
    found = list(_CALLED.finditer(output))
    if not found:
        return None
    last = found[-1]
    return Crash(last["function"], last["arguments"].strip(), last["raised"].strip())


def has_main_block(source: str) -> bool:
    """Whether the module has a top-level ``if __name__ == "__main__":``."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return False
    return any(isinstance(node, ast.If) and _is_main_test(node.test) for node in tree.body)


def _is_main_test(test: ast.expr) -> bool:
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return False
    if not isinstance(test.ops[0], ast.Eq):
        return False
    sides = [test.left, test.comparators[0]]
    names = [s.id for s in sides if isinstance(s, ast.Name)]
    constants = [s.value for s in sides if isinstance(s, ast.Constant)]
    return names == ["__name__"] and constants == ["__main__"]


def demo_command(path: str) -> str:
    """How the demo of ``path`` runs: as a module when it is importable (a package's relative
    imports need that), else as a script."""
    module = module_name(path)
    return f"python3 -m {module}" if module else f"python3 {shlex.quote(path)}"


def demo_run(path: str) -> RunCommand:
    """:func:`demo_command`, run through _RUN_DEMO (shown as the command it stands for)."""
    module = module_name(path)
    how, target = ("-m", module) if module else ("-", path)
    argv = ("python3", "-c", _RUN_DEMO, how, target)
    return RunCommand(argv=argv, display=demo_command(path), source="the module's demo")


def crashed(result: RunResult) -> bool:
    """Whether a run of a demo that ran cleanly on the base is a crash."""
    if result.timed_out:
        return True
    return not result.success and _TRACEBACK in result.output_tail


@dataclass
class _Demo:
    runner: OnBase
    base: RunResult | None  # None: it does not run cleanly on the base, and judges nothing


class DemoCheck:
    """A :data:`Verify`: the changed modules' demos, then ``inner`` (None: none)."""

    def __init__(
        self,
        inner: Verify | None,
        repo: Repository,
        settings: Settings,
        base: str,
        identity: tuple[str, str],
        console: Console,
    ) -> None:
        self.inner, self.repo, self.settings = inner, repo, settings
        self.base, self.identity, self.console = base, identity, console
        self.demos: dict[str, _Demo] = {}

    def judged_by(self) -> list[str]:
        """The demos that ran on the base (and so judged), and the wrapped check's judges."""
        paths = [path for path, demo in sorted(self.demos.items()) if demo.base is not None]
        own = [f"the demo of {', '.join(paths)}"] if paths else []
        return own + judged_by(self.inner)

    def __call__(self, changes: list[FileChange]) -> list[Problem]:
        problems = [p for c in changes if (p := self._judge(c, changes)) is not None]
        if problems or self.inner is None:
            return problems
        return self.inner(changes)

    def _judge(self, change: FileChange, changes: list[FileChange]) -> Problem | None:
        demo = self._demo(change)
        if demo is None or demo.base is None:
            return None
        result = demo.runner.run(changes, max(DEMO_TIMEOUT, 5 * demo.base.duration))
        if not crashed(result):
            return None
        command = demo.runner.options.command.display
        self.console.info(f"`{command}` ran before the edits and {result.status_text()} after")
        return Problem(
            "check",
            change.path,
            None,
            f"`{command}` (the module's `__main__` block) runs cleanly "
            f"before your edits and {result.status_text()} after them.\n"
            "Make it run again (change that block only if the request changes what it does).\n"
            f"{result.feedback_text()}",
            crash=crash_of(result.output_tail),
        )

    def _demo(self, change: FileChange) -> _Demo | None:
        """The demo of a changed module that had one on the base (None: it has none), run on
        the base the first time it is asked for."""
        path = change.path
        if path in self.demos:
            return self.demos[path]
        if change.content is None or not path.endswith(".py"):
            return None
        try:
            before = self.repo.read_file(self.base, path).decode("utf-8", "replace")
        except GpteError:  # a new module: no behaviour to keep
            return None
        if not has_main_block(before):
            return None
        options = replace(
            RunOptions.resolve(self.settings, command="python3"), command=demo_run(path)
        )
        options.environment().check()
        runner = OnBase(self.repo, options, self.base, self.identity)
        self.console.info(f"running {path}'s demo on the base: {options.command.display}")
        ran = runner.run([], DEMO_TIMEOUT)
        demo = _Demo(runner, ran if ran.success else None)
        if demo.base is None:
            self.console.info(f"not judging by {path}'s demo: it {ran.status_text()} on the base")
        self.demos[path] = demo
        return demo
