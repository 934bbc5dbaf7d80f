"""``--probe``: a script of asserts the model writes from the request, run on each result.

Wraps the check (the user's command, or the project's tests): once a result passes it, the
model is asked (once, in a short conversation of its own) for a probe of what the request asks,
and for one of each later sentence of a request of several, shown only the signatures of what
changed (see prompts/probe.py). Each probe stands or falls alone, and so does each of its
statements (prompts/probe_steps.py): only those that fail on the base check what the change
did; a probe with none is dropped. A result on which one of them fails, by an assertion or by
an exception out of the project's code, fails like a failing check: the probe, the statement
and its error go back to the model. A result still failing it after the retries is committed
with exit 1 and the failure said, never as a success: the probe is the model's own reading of
the request and may be what is wrong (asserting 50 less 30 % is 37.5, it refused a right
rename), so it does not refuse what the other checks pass. A statement that misuses the code
(a name it made up, a call with wrong arguments) is dropped with one line saying so, never
blamed on the result; so is probing in a repository that tracks a file of the probe's name,
and a statement expecting an exception from a call that a guard the change added for it lets
through (prompts/probe_guards.py).
An exception the request says the code raises now ("crashes with ZeroDivisionError") is never
taken for misuse, and with such a request each call an assertion makes with ``""`` is made
again with a blank string (prompts/probe_steps.py: with_blank_calls). A probe whose every
statement failed on its own, the first by the project's own error (a constructor given values
it refuses), is asked for once more, shown the lines of the project's tests that make that call
(prompts/probe_repair.py).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..config import Settings
from ..context.languages import is_test
from ..edit.pycheck import Problem
from ..edit.rename import plain_rename
from ..errors import GpteError
from ..git import FileChange, Repository
from ..prompts.probe import (
    PROBE_FILE,
    Verdict,
    changed_signatures,
    focus_sentences,
    probe_enough,
    probe_messages,
    probe_script,
    step_verdicts,
)
from ..prompts.probe_guards import expected_raise, new_guards
from ..prompts.probe_repair import (
    MAX_USAGE_FOUND,
    called_names,
    repair_messages,
    shortest,
    usage_lines,
)
from ..prompts.probe_steps import (
    guesses_wording,
    harness,
    is_new_crash,
    named_exceptions,
    quoted,
    raises_one_of,
    steps,
    stopped_exceptions,
    uses_example,
    with_blank_calls,
)
from ..run import RunOptions
from ..ui import Console
from .edit_loop import Verify
from .regression import OnBase
from .verify import judged_by

if TYPE_CHECKING:
    from ..llm.client import LLM

PROBE_TIMEOUT = 60.0
MAX_TEST_BYTES = 200_000  # a test file read for the calls a repaired probe is shown
MAX_TEST_FILES = 200
PROBE_FAILS = "A check written from the request fails on the result"


@dataclass
class Probe:
    """One probe that stands: its script; its steps that failed on the base, with what they
    said there (see :mod:`~git_gpte.prompts.probe_steps`: the others are not held against a
    result); the sentence of the request it checks above all (empty: the whole request); and
    what it said on the last result it ran on (None: none yet), with the statement that
    failed there; the conversation that asked for it, and whether it was asked again."""

    script: str
    on_base: dict[int, Verdict]
    focus: str
    last: Verdict | None = None
    failing: str = ""
    messages: tuple[dict[str, str], ...] = ()
    signatures: str = ""
    repaired: bool = False


class ProbeCheck:
    """A :data:`Verify`: ``inner`` (None: none), then the probes on a result that passes it:
    one of the whole request and one of each later sentence of it that says what must hold
    (see :func:`~git_gpte.prompts.probe.focus_sentences`)."""

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
        self.probes: list[Probe] = []
        self.repairs: dict[str, Probe | None] = {}  # a probe's script -> it asked for again
        # Why the result may stand without a probe (see unverified): a rename, a guard of the
        # change that a probe's call went through. (A probe passing before the change checks
        # something else than what the request changes: no evidence.)
        self.vouched = ""
        # The parts of the request a probe was asked for ("": the whole), and those whose
        # probe passed before the change too (it says that part holds already).
        self.focuses: list[str] = []
        self.held_before: set[str] = set()
        self.same_as: dict[str, str] = {}  # a part -> the part whose probe it wrote again
        self.local: set[str] = set()
        self.asked = False
        # Whether the probes were written about an answer's result (not a fix search's
        # candidate), and whether they were written again for a candidate (see written_for).
        self.about_answer = False
        self.rewritten = False
        self.examples = quoted(request)
        self.stopped = stopped_exceptions(request)
        self.named = named_exceptions(request)

    def judged_by(self) -> list[str]:
        """The wrapped check's judges, and the probe while one stands."""
        return judged_by(self.inner) + (["the probe"] if self.probes else [])

    def __call__(self, changes: list[FileChange]) -> list[Problem]:
        problems = self.inner(changes) if self.inner is not None else []
        if problems:
            return problems
        if not self.asked:
            self.asked = self.about_answer = True
            self.probes = self._write(changes)
        judged = [self._judge(probe, changes) for probe in self.probes]
        self.probes = [probe for probe in judged if probe is not None]
        failed = next((p for p in self.probes if p.last is not None and not p.last.passed), None)
        if failed is None:
            if self.probes:
                self.console.info("the probe passed")
            return []
        assert failed.last is not None
        self.console.info(f"the probe failed: {failed.last.error}")
        return [
            Problem(
                "check",
                "",
                None,
                f"{PROBE_FAILS} ({failed.last.error}), at:\n"
                f"```python\n{failed.failing}\n```\n"
                f"The check:\n```python\n{failed.script}```\n"
                "Change the code so that it does what the request asks.",
                advisory=True,
            )
        ]

    def unverified(self) -> str | None:
        """Why nothing checked what the request asks, when the probe was asked for and none
        stood (each failed on its own, passed before the change too, was no usable script, or
        could not be written) and nothing vouches for the result otherwise; None when a probe
        judged it or something does. The project's tests passing says the change broke what
        they check, which passed before it too, not that it did what was asked (seen on
        ledger/statement-end-date: both probes called the code with made-up arguments, and an
        answer counting deposits alone on the period's last day went out as a success). So
        with a request of several sentences: each whose own probe was asked for must have one
        standing, unless it passed before the change (that part held already) or the model
        answered it with the probe of another part (its word that that one checks both). A
        probe of a later sentence asked for again (shown the tests' calls) does not count for
        it: the model copies the calls and drops what the sentence asks (seen on
        settings/get-list, twice: the probe of "When the key is not set it returns default, or
        [] if default is None", asked again, checked only keys that are set, and a result
        returning None for a missing key went out as a success)."""
        if not self.asked or self.vouched:
            return None
        if not self.probes:
            return (
                "not verified: no check written from the request could judge the result (see "
                "above why), and nothing else checks what it asks; read the diff, or give a "
                "check of your own with --check CMD"
            )
        scripts: set[str] = set()
        judged: set[str] = set()
        for probe in self.probes:  # a probe written again as another's script checks no more
            if probe.script not in scripts and not (probe.repaired and probe.focus):
                scripts.add(probe.script)
                judged.add(probe.focus)
        judged |= {focus for focus, same in self.same_as.items() if same in judged}
        unjudged = [f for f in self.focuses if f not in judged and f not in self.held_before]
        if not unjudged:
            return None
        part = f'"{_short(unjudged[0])}"' if unjudged[0] else "the request as a whole"
        return (
            f"not verified: no check written from the request could judge {part} (its probe "
            "failed on its own, or had to be asked again); read the diff, or give a check of "
            "your own with --check CMD"
        )

    def probe_alone(self, changes: list[FileChange]) -> bool | None:
        """The probes alone on ``changes``, asked for first if they were not (the wrapped check
        is not run): True when one stands and every one passes, False when one fails, None
        when none stands. What the probes hold is left as it was (a candidate that misuses them
        must not change how the next one is judged), and a probe asked for again is asked once
        (see _repair)."""
        if not self.asked:
            self.asked = True
            self.probes = self._write(changes)
        judged = [self._judge(probe, changes) for probe in self.probes]
        standing = [probe for probe in judged if probe is not None]
        if not standing:
            return None
        return all(probe.last is not None and probe.last.passed for probe in standing)

    def written_for(self, changes: list[FileChange]) -> bool:
        """Write the probes again on ``changes`` (a fix search's candidate) when those written
        about an answer's result stand for none of the candidates: they were written about
        what the answer changed, not the code the candidates change (seen on
        minimark/escape-href: both probes imported ``escape_href``, a function the model added
        and nothing called, and failed on their own on the one candidate, which escaped
        ``_anchor``'s ``href``). Once; whether they were written again."""
        if not self.about_answer or self.rewritten:
            return False
        self.rewritten = True
        self.console.info("the probes were written about the answers' change: asking again")
        self.probes = self._write(changes)
        return True

    def _judge(self, probe: Probe, changes: list[FileChange]) -> Probe | None:
        """``probe`` with its verdict on the result in ``last``, keeping the steps that still
        judge; None when none does (each failed on its own there), and it is dropped."""
        found = self._run(probe.script, changes)
        if found is None:
            self.console.info("the probe did not run to its end on the result: dropped")
            return None
        standing: dict[int, Verdict] = {}
        failures: list[tuple[int, Verdict]] = []
        own: list[Verdict] = []
        sources = steps(probe.script)
        guards = new_guards(self._before_after(changes))
        for step, before in probe.on_base.items():
            now = found.get(step)
            if now is not None and self._passes_guard(now, sources[step], guards):
                continue
            if now is None or self._judges(now, before, sources[step]):
                standing[step] = before
                failures += [(step, now)] if now is not None else []
            else:
                own.append(now)
        crashes = [
            (step, now)
            for step, now in found.items()
            if step not in probe.on_base and now.judges and is_new_crash(now.error, self.named)
        ]
        if crashes:  # what failed on its own after a crash may have failed by it: kept
            standing, failures = dict(probe.on_base), failures + crashes
        if not standing and not own:
            self.vouched = "the change's own check"
            return None  # every failure was a call a guard of the change lets through
        if not standing:
            again = self._repair(probe, found, sources)
            if again is not None:
                return self._judge(again, changes)
            self.console.info(f"the probe failed on its own ({own[0].error}): dropped")
            return None
        if not failures:
            return replace(probe, on_base=standing, last=Verdict(True, True), failing="")
        step, now = min(failures, key=lambda failure: failure[0])
        return replace(probe, on_base=standing, last=now, failing=sources[step])

    def _passes_guard(self, now: Verdict, source: str, guards: set[tuple[str, str]]) -> bool:
        """Whether ``source`` expects an exception from a call that a guard the change added
        for that exception lets through (see :mod:`~git_gpte.prompts.probe_guards`): then
        the probe and the change read the request apart, and the statement does not judge."""
        expected = expected_raise(source) if now.error.startswith("AssertionError") else None
        if expected is None:
            return False
        if not any((name, expected.error) in guards for name in expected.called):
            return False
        self.console.info(
            f"the probe expects {expected.error} from {_short(expected.first)}, a call the "
            "change's own check for it lets through: not held against the result"
        )
        return True

    def _judges(self, now: Verdict, before: Verdict, source: str) -> bool:
        """Whether a statement's failure on the result judges it: an assertion failed, or the
        project's code raised, but not as it did on the base (the statement misuses the code:
        an item it never added), nor a comparison of a docstring with words of the probe's own
        (see guesses_wording); unless the statement uses an example the request quotes, or
        the exception is one the request says the code must stop raising: then failing as
        before says the change left what was asked as it was."""
        if not now.judges:
            return False
        if guesses_wording(source) and not uses_example(source, self.examples):
            return False
        if raises_one_of(now.error, self.stopped):
            return True
        return not now.as_before(before) or uses_example(source, self.examples)

    def _write(self, changes: list[FileChange]) -> list[Probe]:
        """Ask for the probes; keep those that fail on the base."""
        if plain_rename(self.request) is not None:
            # What a rename changes is names, which the checks of names judge; the probe
            # can only guess at behaviour (seen on itsdangerous: `int_from_bytes(b'123') ==
            # 123` held a right rename back with exit 1).
            self.console.info("not probing a rename: the checks of names and the tests judge it")
            self.vouched = "a rename"
            return []
        signatures = changed_signatures(self._before_after(changes), self.request)
        if not signatures or self.repo.tree_entries(self.base, (f":(literal){PROBE_FILE}",)):
            return []  # nothing importable changed, or the probe would replace a file
        self.local = self._top_modules()
        kept: list[Probe] = []
        self.focuses = ["", *focus_sentences(self.request)]
        for focus in self.focuses:
            probe = self._ask(signatures, focus)
            same = next((k for k in kept if probe is not None and k.script == probe.script), None)
            if same is not None:  # the model's own word that that probe checks this part too
                self.same_as[focus] = same.focus
            elif probe is not None:
                kept.append(probe)
        return kept

    def _before_after(self, changes: list[FileChange]) -> dict[str, tuple[str, str]]:
        before_after = {}
        for change in changes:
            if change.content is None or not change.path.endswith(".py"):
                continue
            try:
                before = self.repo.read_file(self.base, change.path).decode("utf-8", "replace")
            except GpteError:  # a new file: all of it is the change
                before = ""
            before_after[change.path] = (before, change.content.decode("utf-8", "replace"))
        return before_after

    def _top_modules(self) -> set[str]:
        """The modules and packages at the repository's top, which an import finds first."""
        entries = self.repo.tree_entries(self.base)
        return {entry.path.split("/", 1)[0].removesuffix(".py") for entry in entries}

    def _ask(self, signatures: str, focus: str) -> Probe | None:
        """One probe of the request (of its sentence ``focus`` above all, when given), when
        the answer holds one that fails on the base."""
        what = f"of: {_short(focus)}" if focus else "of the request"
        self.console.info(f"asking for a probe {what}")
        messages = probe_messages(self.request, signatures, focus)
        return self._answer(Probe("", {}, focus, messages=tuple(messages), signatures=signatures))

    def _repair(self, probe: Probe, found: dict[int, Verdict], sources: list[str]) -> Probe | None:
        """``probe`` asked for again, once, when its first failing statement was stopped by
        the project's own error: shown the error and the tests' calls of what it called."""
        if probe.script in self.repairs:  # judged again on another result: asked once
            return self.repairs[probe.script]
        step = min((s for s in found if s in probe.on_base), default=None)
        if probe.repaired or step is None or not found[step].judges:
            return None  # a name it made up: shown its error, the model writes it again
        usage, name = [], ""
        for name in called_names(sources[step]):
            usage = self._usage(name)
            if usage:
                break
        if not usage:
            return None
        error = found[step].error
        self.console.info(
            f"the probe failed on its own ({error}): asking again with the tests' calls of {name}"
        )
        messages = repair_messages(
            list(probe.messages), probe.script, sources[step], error, name, usage
        )
        again = self._answer(replace(probe, messages=tuple(messages), repaired=True))
        self.repairs[probe.script] = again
        return again

    def _usage(self, name: str) -> list[str]:
        """The shortest lines of the project's tests calling ``name``."""
        found: list[str] = []
        tests = [
            e
            for e in self.repo.tree_entries(self.base)
            if e.path.endswith(".py") and is_test(e.path) and e.size <= MAX_TEST_BYTES
        ]
        for entry in tests[:MAX_TEST_FILES]:
            text = self.repo.read_file(self.base, entry.path).decode("utf-8", "replace")
            found += [line for line in usage_lines(text, name) if line not in found]
            if len(found) >= MAX_USAGE_FOUND:
                break
        return shortest(found)

    def _answer(self, asked: Probe) -> Probe | None:
        """The probe in the answer to ``asked``'s conversation, when it fails on the base."""
        try:
            reply = self.llm.ask(list(asked.messages), enough=probe_enough)
        except GpteError as exc:  # the edit stands on its own checks; the probe is extra
            self.console.info(f"no probe: {exc.render().splitlines()[0]}")
            return None
        script = probe_script(reply.text, asked.signatures, self.local)
        if script is None:
            self.console.info("no usable probe in the answer: not probing")
            return None
        if self.stopped:  # the crash the request names, on a blank string too
            script = with_blank_calls(script)
        on_base = self._run(script, [])
        if on_base is None:
            self.console.info("the probe did not run to its end before the change: not probing")
            return None
        if not on_base:
            self.console.info("the probe passes before the change too: not probing")
            self.held_before.add(asked.focus)
            return None
        return replace(asked, script=script, on_base=on_base)

    def _run(self, script: str, changes: list[FileChange]) -> dict[int, Verdict] | None:
        """The verdicts of the probe's steps that failed (see
        :func:`~git_gpte.prompts.probe_steps.harness`); None when the run did not end."""
        probe = FileChange(PROBE_FILE, harness(script).encode("utf-8"))
        result = self.runner.run([*changes, probe], PROBE_TIMEOUT)
        return step_verdicts(None if result.timed_out else result.exit_code, result.output_tail)


def _short(sentence: str, most: int = 60) -> str:
    return sentence if len(sentence) <= most else sentence[: most - 1].rstrip() + "…"


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
