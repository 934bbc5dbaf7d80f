"""``--probe``: a script of asserts the model writes from the request, run on each result.

Wraps the check (the user's command, or the project's tests): once a result passes it, the
model is asked (once, in a short conversation of its own) for a probe of what the request asks,
shown only the signatures of what changed (see prompts/probe.py). The probe must fail on the
base, or it checks nothing the change did, and is dropped. A result on which it fails, by an
assertion or by an exception out of the project's code, fails like a failing check: the probe
and its output go back to the model. A result still failing it after the retries is committed
with exit 1 and the failure said, never as a success: the probe is the model's own reading of
the request and may be what is wrong (asserting 50 less 30 % is 37.5, it refused a right
rename), so it does not refuse what the other checks pass. A probe that misuses the code (a
name it made up, a call with wrong arguments) is dropped with one line saying so, never blamed
on the result; so is probing in a repository that tracks a file of the probe's name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..config import Settings
from ..edit.pycheck import Problem
from ..errors import GpteError
from ..git import FileChange, Repository
from ..prompts.probe import (
    PROBE_FILE,
    Verdict,
    changed_signatures,
    probe_enough,
    probe_messages,
    probe_script,
    verdict,
)
from ..run import RunOptions
from ..ui import Console
from .edit_loop import Verify
from .regression import OnBase
from .verify import judged_by

if TYPE_CHECKING:
    from ..llm.client import LLM

PROBE_TIMEOUT = 60.0
PROBE_FAILS = "A check written from the request fails on the result"


class ProbeCheck:
    """A :data:`Verify`: ``inner`` (None: none), then the probe on a result that passes it."""

    def __init__(
        self,
        inner: Verify | None,
        llm: LLM,
        request: str,
        runner: OnBase,
        console: Console,
    ) -> None:
        self.inner, self.llm, self.request = inner, llm, request
        self.runner, self.console = runner, console
        self.repo, self.base = runner.repo, runner.base
        self.script: str | None = None
        self.asked = False
        self.on_base: Verdict | None = None

    def judged_by(self) -> list[str]:
        """The wrapped check's judges, and the probe while it stands."""
        return judged_by(self.inner) + (["the probe"] if self.script is not None else [])

    def __call__(self, changes: list[FileChange]) -> list[Problem]:
        problems = self.inner(changes) if self.inner is not None else []
        if problems:
            return problems
        if not self.asked:
            self.asked = True
            self.script = self._write(changes)
        if self.script is None:
            return []
        found = self._run(changes)
        if found.passed:
            self.console.info("the probe passed")
            return []
        if not found.judges or found.as_before(self.on_base):
            self.console.info(f"the probe failed on its own ({found.error}): dropped")
            self.script = None
            return []
        self.console.info(f"the probe failed: {found.error}")
        return [
            Problem(
                "check",
                "",
                None,
                f"{PROBE_FAILS} ({found.error}).\n"
                f"The check:\n```python\n{self.script}```\n"
                "Change the code so that it does what the request asks.",
                advisory=True,
            )
        ]

    def _write(self, changes: list[FileChange]) -> str | None:
        """Ask for a probe; keep it only when it fails on the base."""
        before_after = {}
        for change in changes:
            if change.content is None or not change.path.endswith(".py"):
                continue
            try:
                before = self.repo.read_file(self.base, change.path).decode("utf-8", "replace")
            except GpteError:  # a new file: all of it is the change
                before = ""
            before_after[change.path] = (before, change.content.decode("utf-8", "replace"))
        signatures = changed_signatures(before_after)
        if not signatures or self.repo.tree_entries(self.base, (f":(literal){PROBE_FILE}",)):
            return None  # nothing importable changed, or the probe would replace a file
        self.console.info("asking for a probe of the request")
        try:
            reply = self.llm.ask(probe_messages(self.request, signatures), enough=probe_enough)
        except GpteError as exc:  # the edit stands on its own checks; the probe is extra
            self.console.info(f"no probe: {exc.render().splitlines()[0]}")
            return None
        script = probe_script(reply.text, signatures)
        if script is None:
            self.console.info("no usable probe in the answer: not probing")
            return None
        self.script = script
        self.on_base = self._run([])
        if self.on_base.passed:
            self.console.info("the probe passes before the change too: not probing")
            return None
        return script

    def _run(self, changes: list[FileChange]) -> Verdict:
        assert self.script is not None
        probe = FileChange(PROBE_FILE, self.script.encode("utf-8"))
        result = self.runner.run([*changes, probe], PROBE_TIMEOUT)
        return verdict(None if result.timed_out else result.exit_code, result.output_tail)


def probe_check(
    inner: Verify | None,
    llm: LLM,
    request: str,
    repo: Repository,
    settings: Settings,
    base: str,
    identity: tuple[str, str],
    console: Console,
) -> ProbeCheck:
    """``inner`` with the probe after it, the probe run with the interpreter on ``PATH``."""
    options = RunOptions.resolve(settings, command=f"python3 {PROBE_FILE}")
    return ProbeCheck(inner, llm, request, OnBase(repo, options, base, identity), console)
