"""The second step: ask, parse, apply in memory, check, and ask again for what failed. No git
writes.

What goes back to the model: refused hunks, Python files that stopped compiling or use names
they never define (or that other files import after a rename), the user's ``--check`` command
failing, a reply with no edits, a reply cut off or stopped while repeating itself. A retry
continues the conversation (the model sees what it was shown and what it answered) and shows
the files that still need work as they are now. A reply that holds no code at all is the
model's answer (often why the request cannot be done): it is kept and shown, not retried.

The result is the edited files and a report; what becomes of them (a commit, a branch) is the
caller's.
"""

from __future__ import annotations

import functools
import posixpath
import re
from collections.abc import Callable, Iterable, Mapping
from copy import copy
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ..edit import UnreadableFile
from ..edit.apply import DEFINITIONS
from ..edit.formats import EDIT_FORMATS
from ..edit.pycheck import Crash, Problem, module_names, python_problems, unused_new_loggers
from ..edit.render import retry_prompt
from ..errors import EditError, ReplyTruncated, WindowExceeded
from ..git import FileChange
from ..prompts.context import MAX_NEED_ITEMS, need_block, parse_need
from ..prompts.messages import NARROWED_ASK, retry_user_message
from ..ui import Console
from .files import CommitFiles
from .more_context import MoreContext, retry_parts
from .plan import Plan
from .standing import dropped_note, fails_check, may_fall_back_to

if TYPE_CHECKING:
    from ..edit import FileEdit, HunkReport, ParsedReply
    from ..edit.pycheck import AddedImport
    from ..edit.wholefile import Repair
    from ..llm import LLM, Reply

# The temperature a self-hosted model is asked at on a retry (see _Loop.ask).
RETRY_TEMPERATURE = 0.6
UNCHANGED = (
    "Your answer changes nothing: what you wrote is the code as it already is. The request is "
    "not done yet: write the functions that must change, with the change made."
)
EMPTY_REPLY = "Your reply was empty. Write the edits the request asks for."
# A reply whose every line a judge of edit/repeated.py cut (the model copying a file as shown).
STOPPED_REPLY = (
    "Your reply held no edit: {note}. Write only the code that changes, in the format asked "
    "for, without the line numbers the files are shown with."
)
# A fenced Python block (see _Loop._unnamed_block).
_UNNAMED_BLOCK = re.compile(r"^```(?:python|py)?[ \t]*\n(.*?)^```[ \t]*$", re.M | re.S)
# The folder of the example path the edit formats' instructions show (preprompts/file_format_*):
# no answer's file (see _Loop._drop_example_paths).
EXAMPLE_FOLDER = "path/to/"
# Lines of a cut-off answer the retry's conversation keeps (see _as_said).
CUT_REPLY_LINES = 40

# Runs the user's check on the edited files (the changes to the base): its problems.
Verify = Callable[[list[FileChange]], list[Problem]]


@dataclass
class Edited:
    """What the loop produced: the files (edits laid over the base) and how it went."""

    files: CommitFiles
    changes: list[FileChange]
    reports: list[HunkReport] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)  # refusals still standing, one line each
    # What the result still fails: broken Python, the user's check.
    failures: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what the last answer left unsolved besides
    attempts: int = 0
    started_over: int = 0  # attempts that asked the request again from the start (see
    # _Loop.starts_over), and what became of the hunks of the attempts given up then
    discarded: list[str] = field(default_factory=list)
    # The model's own words when it answered without any code (shown to the user).
    answer: str = ""
    explanation: str = ""  # what the model said around the edits that applied
    # What the model was sent and asked for (see context_record), as the run log keeps it.
    context: dict[str, Any] = field(default_factory=dict)
    checked: bool = False  # the user's check command ran on the result (and passed, unless
    # ``failures`` holds a "check" problem)
    # How the result was found when no answer made it (see pipeline/fix_search.py): one line.
    searched: str = ""

    @property
    def applied(self) -> int:
        return sum(1 for r in self.reports if r.status != "refused" and r.kind != "kept")

    @property
    def corrected(self) -> list[HunkReport]:
        return [r for r in self.reports if r.status == "corrected"]

    @property
    def problems(self) -> list[str]:
        """Everything left unsolved, one line each (refusals first)."""
        return [*self.refused, *self.other_problems, *self.notes]

    @property
    def other_problems(self) -> list[str]:
        """The problems that are not refusals: what is wrong with the result itself."""
        return [p.render() for p in self.failures]

    @property
    def partial(self) -> bool:
        return bool(self.refused or self.failures or self.notes)

    @property
    def broken(self) -> bool:
        """The result fails a check: it does not compile, uses undefined names, or fails the
        user's check command. Such a result is committed only when the user asks. (A probe
        failing alone leaves it partial: see Problem.advisory.)"""
        return any(not problem.advisory for problem in self.failures)

    def nothing_committed(self) -> EditError:
        """The error for a loop that ended with no change to commit."""
        if self.answer:
            first = " ".join(self.answer.split())
            shown = first if len(first) <= 400 else first[:399] + "…"
            return EditError(f"nothing committed: the model answered without an edit: {shown}")
        if self.refused:
            reason, detail = "every hunk was refused", "; ".join(self.refused[:3])
        elif self.reports:
            reason, detail = "the edits left every file as it was", ""
        else:
            reason = "the reply held no usable edit"
            detail = f"no edit in the requested format in {self.attempts} answer(s)"
            if self.notes:
                detail += "; " + self.notes[-1]
        return EditError(f"nothing committed: {reason}" + (f" ({detail})" if detail else ""))


def _may_show(path: str, files: CommitFiles, sent: Mapping[str, str]) -> bool:
    """Whether a retry may show ``path``: a file the model edited without being sent it is not
    shown when the secret-file rules would have left it out (its text would leave the machine
    only because the model guessed its name)."""
    from ..context.rules import secret_content_reason, secret_reason

    if not files.readable(path):
        return False
    if path in sent:
        return True
    return secret_reason(path) is None and secret_content_reason(files[path]) is None


def _unseen(report: HunkReport, files: CommitFiles, sent: Mapping[str, str]) -> HunkReport:
    """``report`` without the closest lines of a file the retry may not show (see _may_show)."""
    from dataclasses import replace

    if report.candidate is None or _may_show(report.path, files, sent):
        return report
    return replace(report, candidate=None)


def edit_loop(
    llm: LLM,
    plan: Plan,
    files: CommitFiles,
    console: Console,
    *,
    max_retries: int = 2,
    verify: Verify | None = None,
) -> Edited:
    """Ask with the plan's messages, apply each answer to ``files`` (in memory), check the
    result, and retry up to ``max_retries`` times while something failed.

    With a selected context, a reply that is a need block instead of edits is answered with
    what it asks for (at most ``plan.rounds`` times in all), and each round is noted in the
    run's log (``meta.context``). ``verify`` runs the user's check once the result is sound
    Python; its failures are retried like the others."""
    loop = _Loop(llm, plan, files, console, verify)
    messages = plan.messages
    answers: list[str] = []
    for attempt in range(max_retries + 1):
        loop.edited.attempts = attempt + 1
        if attempt:
            console.info(f"retry {attempt}/{max_retries}: asking for what failed")
        try:
            text, cut = _ask_in_window(loop, messages, first=attempt == 0)
        except WindowExceeded:
            if not attempt:
                raise
            # The server's window is smaller than the retry (a window git-gpte did not know):
            # what failed stays the answer, said as a refusal rather than a lost connection.
            console.info("a retry is longer than the model's window: not asking again")
            loop.edited.attempts = attempt
            break
        messages = loop.conversation
        feedback = loop.take(text, cut)
        loop.note_sound()
        if feedback and loop.rename_itself():
            break
        if not feedback or loop.edited.answer or attempt == max_retries:
            break
        if text.strip() and text.strip() in answers:
            # The same answer again: another retry would cost as much and give it a third time.
            console.info("the model gave the same answer again; not asking once more")
            break
        answers.append(text.strip())
        if loop.broke_check():
            messages = loop.go_back()
            continue
        again = loop.starts_over(feedback if attempt > 0 and loop.nothing else None)
        if again is not None:
            console.info("the answer held nothing: asking the request again, from the start")
            messages = again
            continue
        following = (
            loop.focused(messages)
            or loop.on_problems(messages)
            or fit(
                plan,
                [
                    *loop.narrowed(messages),
                    {"role": "assistant", "content": _as_said(text, cut)},
                    {"role": "user", "content": loop.retry_message(feedback, attempt + 1)},
                ],
            )
        )
        if following is None:
            console.info("a retry would not fit in the model's window; not asking again")
            break
        loop.remember(following)
        messages = following
    loop.fall_back()
    loop.keep_sound()
    loop.check_what_is_kept()
    loop.drop_broken_new_files()
    loop.edited.changes = files.file_changes()
    loop.edited.context = loop.asking.log
    if llm.run is not None:  # what ``log show`` tells of the edits: every hunk, every problem
        edited = loop.edited
        llm.run.note(
            "edits",
            {
                "format": plan.edit_format,
                "attempts": edited.attempts,
                "started_over": edited.started_over,
                "hunks": [*edited.discarded, *(r.one_line() for r in edited.reports)],
                "problems": edited.problems,
            },
        )
    return loop.edited


# What a sound result's record is (see _Loop.note_sound).
_SOUND_FIELDS = ("reports", "refused", "failures", "notes", "explanation", "checked")
# What the loop knows of the retry it asked, kept with a result to go back to (see
# _Loop.remember): how the answer to that retry is read.
_RETRY_FIELDS = ("in_focus", "switched", "asked", "shown_only", "reference")


@dataclass
class _Fallback:
    """A result a later answer may go back to (see standing.py): the edits, the record and
    the loop's fields then, and the retry asked from it."""

    changes: dict[str, str | None]
    record: dict[str, Any]
    state: dict[str, Any]
    retry: list[dict[str, str]]


# Files concerned by a retry that have fewer lines than this in all are shown whole again (the
# five everyday requests on a 62-line module were all done so); longer ones, only the
# definitions where something is left (see _Loop.on_problems).
FOCUS_MIN_LINES = 100
# The functions a retry after an answer that changed nothing may add (see _Loop._best_matches).
BEST_MATCHES = 2
# How many results with collateral definitions put back as they were are run through the
# checks (see trim_collateral): each is a run of the project's tests.
TRIM_TRIALS = 4


class _Loop:
    """The state one edit loop carries between attempts."""

    def __init__(
        self, llm: LLM, plan: Plan, files: CommitFiles, console: Console, verify: Verify | None
    ) -> None:
        self.llm = llm
        self.plan = plan
        self.files = files
        self.console = console
        self.verify = verify
        self.sent = plan.selection.files
        self.known = list(files.entries)
        self.edited = Edited(files=files, changes=[])
        self.asking = _Asking(llm, plan, files, console)
        self.conversation: list[dict[str, str]] = []
        # Refusals not yet fixed, per file, with the text each hunk was applied to: a retry that
        # leaves a file's failed hunks out does not make them disappear; only a retry that edits
        # that file clears them.
        self.outstanding: dict[str, list[tuple[HunkReport, str]]] = {}
        self.sole = _sole_file(plan)
        self.seen_in_part = _seen_in_part(plan)
        # The definitions the last answer wrote back as they were (see focused), and whether
        # the conversation is such a retry's (answered in the definitions format from then on).
        self.copied: list[tuple[str, str]] = []
        # The picks (function names) a retry showed alone (see _best_matches).
        self.shown_alone: set[frozenset[str]] = set()
        self.in_focus = False
        self.switched = False  # ... switched to it under the whole-file system prompt
        self.base_changes = dict(files.changes)  # what starting over goes back to
        self.asked: frozenset[str] = frozenset()  # the files the last retry message showed
        # In a retry of a new conversation: the names of each file it shows (see _written_blind).
        self.shown_only: dict[str, set[str]] = {}
        # ... and the lines of the signatures it shows for reference (see _called).
        self.reference: set[str] = set()
        self.stopped = ""  # why the last reply was cut short by a judge (see ask)
        self.nothing = False  # the last reply held nothing: empty, or cut before any edit
        self.fresh = False  # the next ask is the request again (see starts_over)
        # The first result that failed nothing but the probe: what the edits and the edited
        # record were then (see note_sound).
        self.sound: tuple[dict[str, str | None], dict[str, Any]] | None = None
        self.fallback: _Fallback | None = None  # the last result a retry was asked from that
        # runs and passed the checks it reached (see remember)

    # ------------------------------------------------------------------ asking
    def ask(self, messages: list[dict[str, str]], *, first: bool) -> tuple[str, str]:
        """The reply's text, and why it stopped early ("" when it ended normally).

        A retry of a self-hosted model is asked at a higher temperature: at its usual low one
        a small model gives the same answer to the corrected request, word for word."""
        heat = None
        if not first and self.plan.model.self_hosted:
            heat = max(self.llm.temperature, RETRY_TEMPERATURE)
        from ..edit.repeated import (
            copied_unasked,
            excerpt_copy,
            first_cut,
            kept_copied_into,
            kept_file,
            numbered_copy,
            repeated_file,
        )

        # Formats answered in file blocks (whole files, definitions) can repeat a block: a
        # small model wrote the same three blocks over and over to its output cap (ledger).
        enough = None
        if EDIT_FORMATS[self.plan.edit_format].reader == "files":
            shown = self.plan.selection.files
            kept = {path: shown[path] for path in self.plan.kept if path in shown}
            judges = [
                repeated_file,
                kept_file(self.plan.kept),
                kept_copied_into(kept, self._read),
                numbered_copy,
                excerpt_copy,
            ]
            if not first and self.asked:
                judges.append(copied_unasked(self._read, self.asked))
            enough = first_cut(*judges)
        images = self.plan.images if first or self.fresh else ()
        self.fresh = False
        try:
            reply = self.llm.ask(
                messages,
                images=images,
                temperature=heat,
                enough=enough,
            )
        except ReplyTruncated as exc:
            self.conversation = messages
            return exc.partial, _cut_note(exc)
        self.stopped = reply.stopped
        self.conversation, reply = self.asking.answer_needs(messages, reply)
        return reply.text, ""

    def starts_over(self, empty: list[str] | None = None) -> list[dict[str, str]] | None:
        """The messages of an attempt that asks the request again from the start, on the
        files as they were (which they then are), with what was wrong; None to go on with the
        conversation. For a self-hosted model whose answer to a retry held nothing (``empty``:
        what it was told then): after a retry showing the files numbered, the 1.5B model began
        copying them, numbers and all, four times of four, and again when told so; the first
        request it had answered. The server reads the same beginning from its cache.

        Not for a result failing the project's tests: asked again from the start, the model
        gave its usual answer, once one the tests passed and that was wrong
        (ratelimit/parse-rate-errors), and solved none of five (bench/solve.py); shown the
        failure and its diff, it solved none either, but broke nothing."""
        from ..prompts.messages import start_over_message

        edited = self.edited
        if not self.plan.model.self_hosted or self.outstanding or empty is None:
            return None
        wrong = [p.render() for p in edited.failures] or empty or []
        messages = [dict(m) for m in self.plan.messages]
        messages[-1]["content"] = start_over_message(messages[-1]["content"], wrong)
        self.files.changes.clear()
        self.files.changes.update(self.base_changes)
        edited.discarded += [f"{r.one_line()} (then started over)" for r in edited.reports]
        edited.reports, edited.failures, edited.notes = [], [], []
        edited.started_over += 1
        self.copied, self.in_focus, self.switched = [], False, False
        self.fresh, self.asked, self.shown_only = True, frozenset(), {}
        self.reference = set()
        return messages

    # ------------------------------------------------------------------ one answer
    def take(self, text: str, cut: str) -> list[str]:
        """Apply one answer and check the result: what to tell the model (empty: done)."""
        from ..edit import parse_reply
        from ..edit.parse import drop_unclosed, prose

        usable = drop_unclosed(text) if cut else text
        parsed = parse_reply(usable, "auto", sole=self.sole)
        if not parsed.edits:
            parsed = self._unnamed_block(usable) or parsed
        if self.plan.edit_format == DEFINITIONS or self.in_focus:
            for edit in parsed.edits:
                if edit.kind == "whole-file":
                    edit.fmt = DEFINITIONS
        feedback = [cut] if cut else []
        self.edited.notes = []
        self.nothing = False
        self.copied = []
        self._drop_kept(parsed)
        self._drop_copied_files(parsed)
        self._rehome_definitions(parsed)
        self._move_stub_code(parsed)
        feedback += self._drop_example_paths(parsed)
        self._drop_echoed(parsed)
        self._drop_elided(parsed)
        self._written_blind(parsed)
        self._unshown_whole(parsed)
        if parsed.edits:
            self._apply(parsed)
            self.edited.explanation = prose(usable)
        elif not cut and parse_need(text) is not None:
            note = "You asked for more context, but no more can be given: write the edits now."
            feedback.append(note)
            self.edited.notes.append("the model asked for more context than can be given")
        elif not cut and self.stopped:
            # Cut before its first edit: the 1.5B model began copying a file as the prompt
            # showed it, numbers and all (minimark/escape-href, inventory/store-logging). What
            # came before the copy (a line of lead-in: "Here is the updated store.py:") is
            # not an answer either.
            feedback.append(
                STOPPED_REPLY.format(note=self.stopped.removesuffix("; stopped it there"))
            )
            self.edited.notes.append(f"the reply held no edit: {self.stopped}")
            self.nothing = True
        elif not cut and not text.strip():
            # An empty reply is no answer to show.
            feedback.append(EMPTY_REPLY)
            self.edited.notes.append("the reply was empty")
            self.nothing = True
        elif not cut and not _has_code(text):
            self.edited.answer = text.strip()
            return []
        else:
            feedback.append(self._no_edits())
            self.edited.notes.append("the reply held no usable edit")
        refusals = [r for mine in self.outstanding.values() for r, _ in mine]
        self.edited.refused = [_report_line(r) for r in refusals]
        if refusals:
            feedback.append(retry_prompt([_unseen(r, self.files, self.sent) for r in refusals]))
        self.edited.failures = self._check()
        self._undo_off_subject()
        if fails_check(self.edited.failures) and not refusals:
            self.trim_collateral()
        if self.edited.failures and not refusals:
            self.drop_broken_new_files(unasked_only=True)
        feedback += [p.render() for p in self.edited.failures]
        if parsed.edits and not feedback and not self.files.file_changes():
            # Every block was the files' code as it is (a small model copied the class it was
            # shown, white space aside: minimark): nothing done, and the model can be told so.
            feedback.append(UNCHANGED)
            self.edited.notes.append("the answer changed nothing")
            self.copied = self._copied(parsed)
        elif not refusals and _code_unchanged(self.edited.failures):
            # Only docstrings or comments changed: as good as copied, and asked the same way.
            # Given the whole module again, the 1.5B model wrote marshmallow's
            # get_fixed_timezone back as it was; shown it alone with the request, it added
            # the check in 4 answers of 4.
            self.copied = self._copied(parsed)
        return feedback

    def _copied(self, parsed: ParsedReply) -> list[tuple[str, str]]:
        """What an answer that changed nothing was about: the definitions it wrote back, or,
        for whole files written back, the definitions of them the request names."""
        if self.plan.edit_format == DEFINITIONS:
            return [(e.path, e.content) for e in parsed.edits if e.content]
        if not self.plan.definitions_system:
            return []
        from ..edit.definitions import requested_definitions

        named = [
            (e.path, requested_definitions(self._read(e.path) or "", self.plan.instruction))
            for e in parsed.edits
            if e.path.endswith(".py")
        ]
        return [(path, block) for path, block in named if block]

    def focused(self, messages: list[dict[str, str]]) -> list[dict[str, str]] | None:
        """The retry for an answer that changed nothing: the system prompt and only the
        definitions the model wrote back (for whole files written back, the definitions of them
        the request names, asked in the definitions format), with the request (see
        :func:`git_gpte.prompts.messages.focused_retry_message`); None for any other retry."""
        from ..prompts.messages import focused_retry_message

        if not self.copied:
            return None
        self.console.info("the answer changed nothing: asking again with only what it chose")
        blocks = self.copied + self._best_matches(self.copied)
        called = self._called(blocks)
        text = focused_retry_message(blocks, self.plan.instruction, called)
        return self._new_conversation(messages, blocks, text)

    def _best_matches(self, copied: list[tuple[str, str]]) -> list[tuple[str, str]]:
        """The functions of the Python files shown that match the request best (at most
        BEST_MATCHES), when the model copied none of them: its pick was then likely the wrong
        place. Seen, asked to render ``<ol start="3">``, the 1.5B model copied
        ``parse_blocks`` three times over, shown it alone each time, while
        ``HtmlRenderer._render_list`` was the function to change and the best match. When its
        pick is among the best, it is shown alone as before: shown only the function it had
        picked, it made the change (settings/bool-case). But a pick shown alone and copied
        back unchanged again is shown beside the other best matches: asked to escape a link's
        href, the model copied ``escape_html`` (the best match) back twice, shown it alone,
        while ``_anchor`` (the second) wrote the href (minimark/escape-href)."""
        from ..context import best_definitions
        from ..edit.definitions import function_names, functions_in

        paths = sorted({p for p in self.plan.selection.files if p.endswith(".py")} - self.plan.kept)
        if not paths:
            return []
        chosen = set().union(*(function_names(block) for _, block in copied))
        again = frozenset(chosen) in self.shown_alone
        found = best_definitions(
            self.files.repo, self.files.rev, self.plan.instruction,
            [f":(literal){path}" for path in paths], BEST_MATCHES + 1 if again else BEST_MATCHES,
        )  # fmt: skip
        ranges: dict[str, list[tuple[int, int]]] = {}
        for place in found:
            if not (again and place.name in chosen):
                ranges.setdefault(place.path, []).append((place.start, place.end))
        best = []
        for path, spans in ranges.items():
            text = self._read(path)
            around = functions_in(text, spans) if text else None
            if around is None:
                continue
            if set(around.names.values()) & chosen:
                self.shown_alone.add(frozenset(chosen))
                return []
            best.append((path, around.block))
        return best

    def on_problems(self, messages: list[dict[str, str]]) -> list[dict[str, str]] | None:
        """The retry for a result whose every problem lies inside a function or method of a
        Python file (a print left, a name never defined, a parameter never used): the system
        prompt of the definitions format and only those definitions as they are now, each
        problem said with its line, and the request (see
        :func:`git_gpte.prompts.messages.problems_retry_message`); for a failing check, see
        _on_failing_check. None for any other retry (refused edits, a problem outside every
        definition), for models asked in diffs, which answer the usual retry well, and for
        files under FOCUS_MIN_LINES in all, which the retry shows whole at little cost."""
        from ..edit.definitions import definitions_at

        plan, edited = self.plan, self.edited
        if plan.edit_format != DEFINITIONS and not plan.definitions_system:
            return None
        failures = edited.failures
        if not failures or edited.refused or edited.notes or self.outstanding:
            return None
        if all(problem.kind == "check" for problem in failures):
            return self._on_failing_check(messages)
        lines: dict[str, set[int]] = {}
        for problem in failures:
            if problem.kind in ("check", "syntax") or problem.related or not problem.line:
                return None
            if not problem.path.endswith(".py"):
                return None
            lines.setdefault(problem.path, set()).add(problem.line)
        blocks, said = [], []
        texts = {path: self._read(path) for path in lines}
        if sum(text.count("\n") for text in texts.values() if text) < FOCUS_MIN_LINES:
            return None
        homes = self._homes_of_undefined(failures, texts, lines)
        for path in sorted(lines):
            text = texts[path]
            around = definitions_at(text, lines[path]) if text is not None else None
            if text is None or around is None:
                return None
            blocks.append((path, around.block))
            source = text.split("\n")
            for problem in failures:
                if problem.path == path and problem.line:
                    written = source[problem.line - 1].strip()
                    where = f"{path}, in {around.names[problem.line]}, at `{written}`"
                    said.append(f"{where}: {problem.text}{homes.get(problem, '')}")
        self.console.info("asking again with only the definitions where something is left")
        return self._in_focus(messages, blocks, said)

    def _homes_of_undefined(
        self, failures: list[Problem], texts: Mapping[str, str | None], lines: dict[str, set[int]]
    ) -> dict[Problem, str]:
        """For each undefined name that the function holding it set before the edit (see
        :func:`~git_gpte.edit.definitions.assigned_before`), the problem quotes that line; for
        one that is a local of one other function of its file (``local_homes``), that
        function is shown too (its line joins ``lines``), and the problem says whose the name
        is."""
        from ..edit.definitions import assigned_before, local_homes

        said: dict[Problem, str] = {}
        originals = _originals(self.files)
        for problem in failures:
            text = texts.get(problem.path)
            match = re.match(r"undefined name '(\w+)'", problem.text)
            if problem.kind != "undefined-name" or not text or not match or not problem.line:
                continue
            before = originals.get(problem.path)
            earlier = None
            if before is not None:
                earlier = assigned_before(before, text, match.group(1), problem.line)
            if earlier is not None:
                said[problem] = f" (before the edit, {earlier[0]} set it: `{earlier[1]}`)"
                continue
            homes = local_homes(text, match.group(1), problem.line)
            if len(homes) != 1:
                continue
            (home, line), name = homes[0], match.group(1)
            lines[problem.path].add(line)
            said[problem] = f" (`{name}` is a variable of {home}, shown too)"
        return said

    def _on_failing_check(self, messages: list[dict[str, str]]) -> list[dict[str, str]] | None:
        """The retry for a result failing the check (the project's tests, the user's command)
        in long modules: the functions and methods the edits changed, as they are now, with
        the failure; None when the edits changed anything else (a file that is not Python,
        what lies outside every definition but an import), which the usual retry shows. A demo
        crashing in one of those definitions gets its own retry, whatever the files' length
        (see _on_crash)."""
        changed = self._changed_definitions()
        if changed is None:
            return None
        blocks, names = changed
        crashes = [problem.crash for problem in self.edited.failures]
        crash = crashes[0]
        if crash is not None and None not in crashes and crash.function in names:
            return self._on_crash(messages, blocks, crash)
        total = sum((self._read(path) or "").count("\n") for path, _ in blocks)
        if total < FOCUS_MIN_LINES:
            return None
        self.console.info("asking again with only the definitions the edits changed")
        said = [p.render() for p in self.edited.failures]
        return self._in_focus(messages, blocks, said, self._diff())

    def _changed_definitions(self) -> tuple[list[tuple[str, str]], set[str]] | None:
        """The definitions the edits changed, as blocks per file and as names; None when the
        edits changed anything else or nothing."""
        from ..edit.definitions import definitions_changed

        originals = _originals(self.files)
        blocks: list[tuple[str, str]] = []
        names: set[str] = set()
        for path in sorted(self.files.changes):
            before, after = originals.get(path), self.files.changes[path]
            if after == before:
                continue
            around = None
            if before is not None and after is not None and path.endswith(".py"):
                around = definitions_changed(before, after)
            if around is None:
                return None
            blocks.append((path, around.block))
            names.update(around.names.values())
        return (blocks, names) if blocks else None

    def _on_crash(
        self, messages: list[dict[str, str]], blocks: list[tuple[str, str]], crash: Crash
    ) -> list[dict[str, str]]:
        """The retry for a demo that now crashes in a definition the edits changed: those
        definitions, the request, the call that fails, and an ask for that one definition
        (see crash_retry_message), in a new short conversation, even for a short file: shown
        its whole 64-line module again with the traceback, the 1.5B model gave its answer
        back word for word in every run (invoice/value-error)."""
        from ..prompts.messages import crash_retry_message

        self.console.info(f"asking again for {crash.function}, which the demo's call now fails")
        called = self._called(blocks)
        text = crash_retry_message(blocks, crash, self.plan.instruction, called)
        return self._new_conversation(messages, blocks, text)

    def _in_focus(
        self,
        messages: list[dict[str, str]],
        blocks: list[tuple[str, str]],
        said: list[str],
        diff: str = "",
    ) -> list[dict[str, str]]:
        """``blocks`` and what is wrong with them (see problems_retry_message), in a new short
        conversation."""
        from ..prompts.messages import problems_retry_message

        called = self._called(blocks)
        text = problems_retry_message(blocks, said, self.plan.instruction, called, diff)
        return self._new_conversation(messages, blocks, text)

    def _called(self, blocks: list[tuple[str, str]]) -> list[str]:
        """What ``blocks`` call in the other Python files the model was sent (as they are
        now), one line each: a retry that shows only the blocks still says what exists."""
        from ..edit.callees import called_signatures

        shown = {p: self._read(p) for p in self.plan.selection.files if p.endswith(".py")}
        called = called_signatures(blocks, {p: t for p, t in shown.items() if t is not None})
        self.reference = {line for signature in called for line in signature.lines}
        return [signature.render() for signature in called]

    def _new_conversation(
        self, messages: list[dict[str, str]], blocks: list[tuple[str, str]], text: str
    ) -> list[dict[str, str]]:
        """A retry of two messages, the definitions format's system prompt and ``text``
        (showing ``blocks``), answered in that format from then on."""
        from ..edit.definitions import shown_names

        self.asked = frozenset(path for path, _ in blocks)
        self.shown_only = {}
        for path, block in blocks:
            self.shown_only.setdefault(path, set()).update(shown_names(block))
        system = messages[0]
        if self.plan.edit_format != DEFINITIONS:
            system = {"role": "system", "content": self.plan.definitions_system}
            self.in_focus, self.switched = True, False
        return [system, {"role": "user", "content": text}]

    def narrowed(self, messages: list[dict[str, str]]) -> list[dict[str, str]]:
        """The conversation a retry continues. An answer in whole files, when every file the
        model may change is Python, is followed by a retry in the definitions format (the
        functions and classes still to change, whole): on a slow machine the 1.5B model spent
        ~400 s rewriting two whole files to add one method it had left out, and was stopped
        while rewriting them a third time (bench/solve.py: inventory/categories-command).

        The system prompt stays as it was and the retry's own message says the switch
        (NARROWED_ASK): a new system prompt made the server read the whole conversation again
        (csvreport/number-value-error: 200 s for a retry whose new part was 1.4k tokens).

        Files under FOCUS_MIN_LINES in all are asked whole again: rewriting a 65-line module
        took 35 s, and asked for definitions instead, the model answered twice with a few
        ``+``/``-`` lines in a Python block (invoice/value-error)."""
        if self.in_focus or not self._narrows():
            return messages
        self.in_focus = self.switched = True
        self.console.info("asking for the functions that still need a change, not whole files")
        return messages

    def _narrows(self) -> bool:
        plan = self.plan
        if not plan.definitions_system or not EDIT_FORMATS[plan.edit_format].whole_files:
            return False
        changeable = [p for p in plan.selection.files if p not in plan.kept]
        if not changeable or not all(p.endswith(".py") for p in changeable):
            return False
        texts = [self._read(p) for p in changeable]
        return sum(text.count("\n") for text in texts if text) >= FOCUS_MIN_LINES

    def _rehome_definitions(self, parsed: ParsedReply) -> None:
        """A Python block under a path that does not exist, holding only definitions one file
        the model was shown has, goes to that file by its definitions (see
        :func:`git_gpte.edit.definitions.home_of_definitions`); so does a block of
        definitions under a module that only imports them (``home_of_imported``), and of
        methods written alone under a module with no class for them (``home_of_methods``);
        a block under a path that does not exist holding definitions of several files is
        split among them (``split_by_home``). Each is said as a correction."""
        from ..edit.definitions import home_of_definitions, home_of_imported, home_of_methods

        files = self.files
        texts: dict[str, str] | None = None
        for edit in list(parsed.edits):
            if edit.kind not in ("whole-file", "new") or not edit.content:
                continue
            new = edit.path not in files.entries and edit.path not in files.changes
            current = None if new or not edit.path.endswith(".py") else self._read(edit.path)
            if not new and current is None:
                continue
            if texts is None:
                shown = {p: self._read(p) for p in self.plan.selection.files if p.endswith(".py")}
                texts = {p: t for p, t in shown.items() if t is not None}
            if new:
                home = home_of_definitions(edit.path, edit.content, self.plan.instruction, texts)
                if home is None:
                    self._split_by_home(parsed, edit, texts)
                    continue
            else:
                home = home_of_imported(
                    edit.path, edit.content, current or "", texts
                ) or home_of_methods(edit.path, edit.content, current or "", texts)
            if home is None:
                continue
            detail = f"placed in {home}, which defines what the reply wrote under {edit.path}"
            edit.path, edit.kind, edit.fmt = home, "whole-file", DEFINITIONS
            self._correction(home, detail, "rehomed")

    def _drop_copied_files(self, parsed: ParsedReply) -> None:
        """Leave out a whole-file block for an existing file that is another file's text, as
        the model was shown it (see :func:`git_gpte.edit.repeated.copied_from`), unless the
        request names that file. Seen: attrs' ``src/attr/converters.py`` written as the
        one-line re-export of ``src/attrs/converters.py`` shown beside it; placed by its
        definitions, it made the module import itself. Said as a correction."""
        from ..edit.repeated import copied_from

        shown = {p: t for p in self.plan.selection.files if (t := self._read(p)) is not None}
        kept = []
        for edit in parsed.edits:
            source = None
            if edit.kind == "whole-file" and edit.content and edit.path in self.files.entries:
                source = copied_from(edit.path, edit.content, shown, self.plan.instruction)
            if source is None:
                kept.append(edit)
                continue
            self._correction(edit.path, f"left as it is: the block is {source}'s text", "kept")
        parsed.edits = kept

    def _move_stub_code(self, parsed: ParsedReply) -> None:
        """A block for a type stub (``.pyi``) whose functions hold code goes to the module the
        stub describes, placed by its definitions, and the stub stays as it is (see
        :mod:`git_gpte.edit.stubs`); when the answer also writes that module, the stub's
        block is left out. Said as a correction."""
        from ..edit.stubs import module_of_stub, stub_code

        for edit in list(parsed.edits):
            module = module_of_stub(edit.path)
            if module is None or not edit.content or edit.path not in self.files.entries:
                continue
            text = self._read(module) if module in self.files.entries else None
            found = stub_code(edit.content, text) if text is not None else None
            if found is None:
                continue
            written = " and ".join(found.names)
            if any(other.path == module for other in parsed.edits):
                parsed.edits.remove(edit)
                detail = f"left as it is: the reply wrote the code of {written} into it"
                self._correction(edit.path, detail, "kept")
                continue
            stub, edit.path, edit.kind, edit.fmt = edit.path, module, "whole-file", DEFINITIONS
            edit.content = found.block
            detail = f"placed {written} here: the reply wrote their code into the stub {stub}"
            self._correction(module, detail, "rehomed")

    def _drop_example_paths(self, parsed: ParsedReply) -> list[str]:
        """Leave out a block under the prompts' example path (``path/to/file.py``) that
        could not be placed by its definitions, unless the repository has that path or the
        request names it: the 1.5B model wrote a new class there, and it would have been
        created as a file (todo/notes-field). What to tell the model, one line each."""
        said = []
        for edit in list(parsed.edits):
            path = edit.path
            if not path.startswith(EXAMPLE_FOLDER) or path in self.files.entries:
                continue
            if path in self.files.changes or path in self.plan.instruction:
                continue
            parsed.edits.remove(edit)
            self._correction(path, "left out: it is the prompt's example path", "kept")
            said.append(
                f"{path} is the example path of the instructions, not a file of this "
                "repository: write each definition under the path of the file it belongs in, "
                'as shown after "File:".'
            )
        return said

    def _split_by_home(self, parsed: ParsedReply, edit: FileEdit, texts: dict[str, str]) -> None:
        """``edit``, a block under a path that does not exist, replaced in ``parsed`` by one
        block of definitions for each file defining some of it (see
        :func:`git_gpte.edit.definitions.split_by_home`), when it splits so."""
        from ..edit.definitions import split_by_home

        split = split_by_home(edit.path, edit.content or "", self.plan.instruction, texts)
        if split is None:
            return
        at = parsed.edits.index(edit)
        parsed.edits[at : at + 1] = [
            replace(edit, path=home, kind="whole-file", fmt=DEFINITIONS, content=block)
            for home, block in split.items()
        ]
        for home in split:
            detail = (
                f"placed in {home}, which defines part of what the reply wrote under {edit.path}"
            )
            self._correction(home, detail, "rehomed")

    def _unnamed_block(self, text: str) -> ParsedReply | None:
        """The reply's one fenced Python block, written with no path, read as definitions of
        the one file shown that defines all it holds (see
        :func:`git_gpte.edit.definitions.home_of_block`), said as a correction; None when
        there is no such block or file."""
        from ..edit import parse_reply
        from ..edit.definitions import home_of_block

        blocks = _UNNAMED_BLOCK.findall(text)
        if len(blocks) != 1:
            return None
        shown = {p: self._read(p) for p in self.plan.selection.files if p.endswith(".py")}
        home = home_of_block(blocks[0], {p: t for p, t in shown.items() if t is not None})
        if home is None:
            return None
        parsed = parse_reply(f"{home}\n```python\n{blocks[0]}```\n", "files")
        for edit in parsed.edits:
            edit.fmt = DEFINITIONS
        detail = f"placed in {home}, which defines what the reply wrote with no path"
        self._correction(home, detail, "rehomed")
        return parsed

    def _drop_kept(self, parsed: ParsedReply) -> None:
        """Leave the files that stay as they are (tests the request does not ask to change: the
        check's, and with whole-file answers every test shown) out of the answer."""
        kept = set(self.plan.kept)
        if EDIT_FORMATS[self.plan.edit_format].reader == "files":
            # ... and any existing test file, shown or not: the real model wrote settings.py's
            # functions into a test file it had not been shown (settings/bool-case).
            from .plan import unasked_tests

            existing = [e.path for e in parsed.edits if e.path in self.files.entries]
            kept |= unasked_tests(self.plan.instruction, existing)
        dropped = sorted({e.path for e in parsed.edits if e.path in kept})
        if not dropped:
            return

        parsed.edits = [e for e in parsed.edits if e.path not in kept]
        for path in dropped:
            # A correction of the reply, not a shortfall of the result: the request is done.
            detail = "left as it is: the request does not ask to change tests"
            self._correction(path, detail, "kept")

    def _drop_echoed(self, parsed: ParsedReply) -> None:
        """Leave out a block that only copies the signatures a retry showed for reference
        (a ``def`` line without a body does not parse): the 1.5B model wrote them back under
        their file after its answer (settings/env-prefix). Said as a correction."""
        if not self.reference:
            return
        kept = []
        for edit in parsed.edits:
            lines = {line.strip() for line in (edit.content or "").split("\n")} - {""}
            if lines and lines <= self.reference:
                self._correction(edit.path, "left out the signatures shown for reference", "kept")
            else:
                kept.append(edit)
        parsed.edits = kept

    def _drop_elided(self, parsed: ParsedReply) -> None:
        """Leave out a Python block for an existing file that holds only class or function
        lines and an elision line (see :func:`~git_gpte.edit.definitions.only_elided`): it
        says the file stays as it is. Said as a correction."""
        from ..edit.definitions import only_elided

        kept = []
        for edit in parsed.edits:
            elision = None
            existing = edit.path.endswith(".py") and edit.path in self.files.entries
            if edit.kind == "whole-file" and existing and edit.content:
                elision = only_elided(edit.content)
            if elision is None:
                kept.append(edit)
                continue
            detail = f"left as it is: the block holds no code, only {elision!r}"
            self._correction(edit.path, detail, "kept")
        parsed.edits = kept

    def _written_blind(self, parsed: ParsedReply) -> None:
        """Leave out of the answer what a retry in a new conversation did not show: definitions
        of the file it writes from nowhere (see
        :func:`~git_gpte.edit.definitions.written_blind`), each said as a correction."""
        from ..edit.definitions import written_blind

        for edit in parsed.edits:
            shown = self.shown_only.get(edit.path)
            if shown is None or edit.fmt != DEFINITIONS or not edit.content:
                continue
            current = self._read(edit.path)
            if current is None:
                continue
            edit.content, names = written_blind(edit.content, current, shown)
            if names:
                detail = f"left {', '.join(names)} as it is: the retry did not show it"
                self._correction(edit.path, detail, "kept")

    def _unshown_whole(self, parsed: ParsedReply) -> None:
        """A whole file written for an existing file the model was never shown is a guess at
        its text: a Python one is placed by its definitions (a function it adds or rewrites
        goes in, what it leaves out stays), anything else is left as it is, said as a
        correction. Seen (todo/notes-field): a package's 17-line ``__init__.py``, named in
        the map as not shown, written back as two imports; its exports and ``__version__``
        were gone, and nothing undefined or failing would have said so."""
        from ..edit.definitions import NotPlaceable, place_definitions

        kept = []
        for edit in parsed.edits:
            current = self._read(edit.path) if edit.path in self.files.entries else None
            if (
                edit.kind != "whole-file"
                or edit.fmt == DEFINITIONS
                or edit.path in self.plan.shown.parts
                or current is None
            ):
                kept.append(edit)
                continue
            if edit.path.endswith(".py"):
                try:
                    place_definitions(current, edit.content or "", self.plan.instruction)
                except NotPlaceable:
                    pass
                else:
                    edit.fmt = DEFINITIONS  # placed as the definitions format places it
                    kept.append(edit)
                    continue
            detail = "left as it is: it was not shown, so the block written for it is a guess"
            self._correction(edit.path, detail, "kept")
        parsed.edits = kept

    def _apply(self, parsed: ParsedReply) -> None:
        from ..edit import apply_reply

        files = self.files
        earlier = dict(files.changes)
        result = apply_reply(
            files,
            parsed,
            known_paths=self.known,
            seen_in_part=self.seen_in_part,
            request=self.plan.instruction,
        )
        self.edited.reports.extend(result.reports)
        for report in result.reports:
            self.console.detail(report.one_line())
        files.changes.update(result.files)
        rewritten = {r.path for r in result.reports if r.kind in ("whole-file", DEFINITIONS)}
        self._keep_what_was_copied(rewritten)
        self._repair_whole_files({r.path for r in result.reports if r.kind == "whole-file"})
        self._register_handlers(rewritten)
        self._treat_as_siblings({r.path for r in result.reports if r.status != "refused"})
        self._drop_new_tests(rewritten)
        self._complete_renames()
        self._complete_constant()
        self._drop_dead_imports()
        self._import_stdlib()
        for path in {r.path for r in result.reports if r.status != "refused"}:
            self.outstanding.pop(path, None)
        for path in {r.path for r in result.refused}:
            prior = earlier.get(path) if path in earlier else _original(files, path)
            self.outstanding[path] = [(r, prior or "") for r in result.refused if r.path == path]

    def _correction(self, path: str, detail: str, kind: str) -> None:
        """Record and show one correction git-gpte made to the answer."""
        from ..edit import HunkReport

        report = HunkReport(path, 0, "corrected", detail, kind=kind)
        self.edited.reports.append(report)
        self.console.detail(report.one_line())

    def _keep_what_was_copied(self, paths: set[str]) -> None:
        """What rewritten files lost in copying and nobody asked to change, given back: trailing
        white space, and the docstrings and last return values of Python definitions (see
        :func:`git_gpte.edit.wholefile.keep_trailing_space`, ``keep_docstrings``,
        ``keep_docstring_lines``, ``keep_returns`` and ``return_out_of_block``), old bodies
        and lines setting names still used, left out (see :mod:`git_gpte.edit.oldbody`), the
        wording of definitions nobody asked to change (``keep_unasked_rewording``), blank
        lines and comments changed on the way (:mod:`git_gpte.edit.layout`), code changed
        beside a check or logging asked for alone (:mod:`git_gpte.edit.additive`) and one of
        two definitions of a name the file had once (:mod:`git_gpte.edit.redefined`), each
        said as a correction."""
        from ..edit.additive import keep_unasked_code
        from ..edit.layout import keep_layout
        from ..edit.oldbody import inline_self_calls, keep_body_after_guards, keep_lost_definers
        from ..edit.redefined import keep_one_definition
        from ..edit.revert import keep_unasked_rewording
        from ..edit.wholefile import (
            keep_comment_rulers,
            keep_continuation_indent,
            keep_docstring_lines,
            keep_docstrings,
            keep_returns,
            keep_trailing_space,
            return_out_of_block,
        )

        files = self.files
        for path in sorted(paths):
            before = _original(files, path)
            if before is None or path not in files.entries:
                continue
            repairs = [keep_trailing_space]
            if path.endswith(".py"):
                repairs += [
                    keep_one_definition,
                    keep_docstrings,
                    keep_docstring_lines,
                    keep_comment_rulers,
                    keep_layout,
                    keep_unasked_code,
                    keep_continuation_indent,
                    keep_body_after_guards,
                    inline_self_calls,
                    keep_lost_definers,
                    keep_unasked_rewording,
                    keep_returns,
                    return_out_of_block,
                ]
            for repair_with in repairs:
                text = files.changes.get(path)
                repair = repair_with(before, text, self.plan.instruction) if text else None
                if repair is not None:
                    files.changes[path] = repair.text
                    self._correction(path, repair.detail, "whole-file")

    def _register_handlers(self, paths: set[str]) -> None:
        """New handlers the answer wrote and never wired in, registered where their family
        is (see :mod:`git_gpte.edit.register`), said as a correction. After the whole files
        are repaired: the table may be among what a whole-file reply left out."""
        from ..edit.register import register_new_handlers

        python = {p for p in paths if p.endswith(".py")}
        self._repair_each(python, register_new_handlers, "whole-file")

    def _treat_as_siblings(self, paths: set[str]) -> None:
        """A new method that looks a parameter up as given, where the class's other methods
        all normalize it first, given the same first line (see
        :mod:`git_gpte.edit.normalized`), said as a correction."""
        from ..edit.normalized import normalize_like_siblings

        python = {p for p in paths if p.endswith(".py")}
        self._repair_each(python, normalize_like_siblings, "whole-file")

    def _drop_new_tests(self, paths: set[str]) -> None:
        """Tests a rewritten module gained and the request does not ask for, taken out (see
        :func:`git_gpte.edit.wholefile.drop_new_tests`), said as a correction."""
        from ..context.languages import is_test
        from ..edit.intent import asks_to_change_tests
        from ..edit.wholefile import drop_new_tests

        if asks_to_change_tests(self.plan.instruction):
            return
        modules = {p for p in paths if p.endswith(".py") and not is_test(p)}
        self._repair_each(modules, drop_new_tests, "kept")

    def _repair_each(
        self, paths: set[str], repair_with: Callable[[str, str], Repair | None], kind: str
    ) -> None:
        """``repair_with`` (the file as it was, as it is now) on each of ``paths`` the
        answers changed, each repair said as a correction of ``kind``."""
        files = self.files
        for path in sorted(paths):
            before, text = _original(files, path), files.changes.get(path)
            if before is None or text is None:
                continue
            repair = repair_with(before, text)
            if repair is not None:
                files.changes[path] = repair.text
                self._correction(path, repair.detail, kind)

    def _repair_whole_files(self, paths: set[str]) -> None:
        """Put back what whole-file replies lost in copying (see
        :mod:`git_gpte.edit.wholefile`), and take off the diff markers they copied
        (:mod:`git_gpte.edit.diffmarks`): each repair is reported as a correction."""
        from ..edit.diffmarks import unmark_diff
        from ..edit.wholefile import (
            defined_names,
            restore_dropped,
            restore_imports,
            restore_members,
            undo_damage,
        )

        files = self.files
        for path in sorted(p for p in paths if p.endswith(".py")):
            before, text = _original(files, path), files.changes.get(path)
            if before is None or text is None or path not in files.entries:
                continue
            elsewhere = {
                name
                for other, other_text in files.changes.items()
                if other != path and other_text is not None and other.endswith(".py")
                for name in defined_names(other_text)
            }
            request = self.plan.instruction
            unmarked = unmark_diff(before, text)
            if unmarked is not None:
                text = unmarked.text
            damage = undo_damage(before, text, request)
            if damage is not None:
                text = damage.text
            dropped = restore_dropped(before, text, request, elsewhere)
            members = restore_members(before, dropped.text if dropped else text, request)
            text = members.text if members else dropped.text if dropped else text
            imports = restore_imports(before, text, request)
            for repair in (unmarked, damage, dropped, members, imports):
                if repair is not None:
                    files.changes[path] = repair.text
                    self._correction(path, repair.detail, "whole-file")
            self._methods_home(path, before)

    def _methods_home(self, path: str, before: str) -> None:
        """A new function taking ``self`` written at module level goes into its class (see
        :func:`git_gpte.edit.definitions.methods_home`), said as a correction."""
        from ..edit.definitions import methods_home

        text = self.files.changes.get(path)
        found = methods_home(before, text) if text is not None else None
        if found is not None:
            self.files.changes[path] = found[0]
            detail = "moved into its class, as it takes self: " + ", ".join(found[1])
            self._correction(path, detail, "whole-file")

    def _import_stdlib(self) -> None:
        """Define the module logger the edits use and never define, make the root-logger
        calls they add on the module's logger (defining it when the request asks for one and
        the module has none), and import the standard-library modules they
        use and never import, and the names of them such as ``Union`` and ``Path`` (see
        :func:`git_gpte.edit.wholefile.define_logger`, ``use_module_logger``,
        ``import_stdlib`` and ``import_stdlib_names``), and spell a name as the module defines it
        when only a leading underscore is wrong (:func:`git_gpte.edit.slips.underscore_slips`),
        each said as a correction."""
        from ..edit.slips import underscore_slips
        from ..edit.wholefile import (
            define_logger,
            import_stdlib,
            import_stdlib_names,
            logger_asked_for,
            use_module_logger,
        )

        files = self.files
        local: set[str] | None = None
        fixes = (
            underscore_slips,
            define_logger,
            use_module_logger,
            functools.partial(logger_asked_for, request=self.plan.instruction),
            import_stdlib,
            import_stdlib_names,
        )
        for path in sorted(files.changes):
            for fix in fixes:
                text = files.changes[path]
                if text is None or not path.endswith(".py"):
                    break
                before = _original(files, path)
                if fix(before, text) is None:
                    continue
                if local is None:
                    # Any file or folder of the repository named like the module may be what
                    # a script's ``import NAME`` finds first (listed only when one is missing).
                    local = {
                        part.removesuffix(".py") for p in self._paths() for part in p.split("/")
                    }
                repair = fix(before, text, local)
                if repair is not None:
                    files.changes[path] = repair.text
                    self._correction(path, repair.detail, "import")

    def _complete_renames(self) -> None:
        """Where the edit renamed a definition but left uses of the old name (in the module or
        in modules importing it), rename those too (see :mod:`git_gpte.edit.rename`): each
        file so changed is reported as a correction."""
        from ..edit.rename import complete_renames, rename_definitions, renames, use_renames

        files = self.files
        originals = _originals(files)
        self._rename_to_requested_names(originals)
        self._take_old_places(originals)
        for path, text in list(files.changes.items()):
            if text is not None and path in originals and path.endswith(".py"):
                # Only to a name the request gives: a name the model made up at its call
                # sites may be a helper it forgot to write, not a rename.
                at_uses = {
                    old: new
                    for old, new in use_renames(originals[path], text).items()
                    if re.search(rf"\b{re.escape(new)}\b", self.plan.instruction)
                }
                if at_uses:
                    files.changes[path] = rename_definitions(text, at_uses)
                    for old, new in at_uses.items():
                        detail = f"renamed the definition of {old} to {new}, as its uses were"
                        self._correction(path, detail, "rename")
        if self._rename_imported_definitions(originals):
            originals = _originals(files)
        olds = {
            old
            for path, text in files.changes.items()
            if text is not None and path in originals
            for old in renames(originals[path], text, self.plan.instruction)
        }
        if not olds:
            return
        users = self._users(olds)
        for done in complete_renames(originals, files.changes, users, self.plan.instruction):
            files.changes[done.path] = done.text
            said = f"completed the rename of {done.old} to {done.new} ({done.places} place(s))"
            self._correction(done.path, said, "rename")

    def _complete_constant(self) -> None:
        """Where the edit assigned the constant the request puts at module level inside a
        function, the assignment goes to module level (see
        :func:`git_gpte.edit.hoist.hoist_constant`); where it assigned the constant the
        request names and left its literal written out elsewhere in that file, the name
        replaces it (:func:`git_gpte.edit.intent.complete_constant`). Each is a correction."""
        from ..edit.hoist import hoist_constant
        from ..edit.intent import complete_constant

        for path, text in list(self.files.changes.items()):
            if text is None or not path.endswith(".py"):
                continue
            hoisted = hoist_constant(self.plan.instruction, text)
            if hoisted is not None:
                text = self.files.changes[path] = hoisted[0]
                self._correction(path, f"moved {hoisted[1]} to module level, as asked", "constant")
            done, places = complete_constant(self.plan.instruction, path, text)
            if places:
                self.files.changes[path] = done
                detail = f"the constant used for the literal in {places} more place(s), as asked"
                self._correction(path, detail, "constant")

    def _drop_dead_imports(self) -> None:
        """Take out the imports the edit added that nothing uses and the request does not name,
        those whose names the file's own functions or classes define again, and the star
        imports it added (see :func:`~git_gpte.edit.pycheck.added_unused_imports`). Seen: ``from
        slugify import slugify`` beside a right fix, in a module defining ``slugify`` (the
        module then failed to import); ``import logging`` copied from the prompt's example
        into a request about booleans. In an ``__init__.py`` an unused import is a re-export:
        there only a module known nowhere (see :meth:`_foreign`) is taken out. Each is a
        correction."""
        from ..edit.pycheck import added_unused_imports

        files = self.files
        for path, text in sorted(files.changes.items()):
            before = _original(files, path) if path in files.entries else None
            if text is None or before is None or not path.endswith(".py"):
                continue
            package = posixpath.basename(path) == "__init__.py"
            dead = [
                found
                for found in added_unused_imports(before, text)
                if found.shadowed
                or (self._foreign(found.module) if package else not self._named(found.module))
            ]
            if not dead:
                continue
            lines = text.split("\n")
            for found in sorted(dead, key=lambda found: found.first, reverse=True):
                _cut_lines(lines, found.first - 1, found.last)
            files.changes[path] = "\n".join(lines)
            for found in dead:
                self._correction(path, _import_taken_out(found), "import")

    def _named(self, module: str) -> bool:
        """Whether the request names ``module`` (an import it asks for is kept, used or not)."""
        return not module or _mentions(self.plan.instruction.lower(), {module.lower()})

    def _foreign(self, module: str) -> bool:
        """Whether ``module`` is known nowhere: not Python's, not the repository's, in none of
        its files (sources, requirements) and not in the request."""
        import sys

        files = self.files
        if self._named(module) or module in sys.stdlib_module_names:
            return False
        if any(module in module_names(p) for p in files.entries if p.endswith(".py")):
            return False
        return not files.repo.files_mentioning(files.rev, [module], ())

    def _take_old_places(self, originals: Mapping[str, str]) -> None:
        """Where the reply wrote the renamed definition as a new one beside the old, which it
        left as it was, the new one takes the old one's place (see
        :func:`~git_gpte.edit.rename.renamed_beside`)."""
        from ..edit.rename import renamed_beside

        files = self.files
        for path, text in sorted(files.changes.items()):
            if text is None or path not in originals or not path.endswith(".py"):
                continue
            found = renamed_beside(originals[path], text, self.plan.instruction)
            if found is not None:
                files.changes[path], old, new = found
                detail = f"{new} replaces {old}, which the request renames to it"
                self._correction(path, detail, "rename")
                # Now in the old one's place, what the copy changed on the way can be seen
                # (boltons' rename: blank lines written as spaces, a comment dropped).
                self._keep_what_was_copied({path})

    def _rename_to_requested_names(self, originals: Mapping[str, str]) -> None:
        """Where the reply renamed what the request renames but to a name of its own, give it
        the requested name (see :func:`~git_gpte.edit.rename.misnamed_renames`)."""
        from ..edit.rename import misnamed_renames, rename_everywhere

        files = self.files
        names = misnamed_renames(originals, files.changes, self.plan.instruction)
        if not names:
            return
        said = ", ".join(f"{given} to {wanted}" for given, wanted in names.items())
        for path, text in sorted(files.changes.items()):
            if text is None:
                continue
            renamed, places = rename_everywhere(text, names)
            if places:
                files.changes[path] = renamed
                detail = f"renamed {said}, the name the request gives ({places} place(s))"
                self._correction(path, detail, "rename")

    def _rename_imported_definitions(self, originals: Mapping[str, str]) -> bool:
        """Where an edited module now imports a new name from a module still defining the old
        one, and the request names both (``rename get_cols to numeric_cols``), rename the
        definition (see :func:`~git_gpte.edit.rename.requested_rename`); the other uses follow
        as for any rename. Returns whether it renamed any."""
        from ..edit.pycheck import unresolved_imports
        from ..edit.rename import (
            imported_names,
            rename_definitions,
            requested_rename,
            top_level_names,
        )

        files = self.files
        renamed = False
        for path, text in sorted(files.changes.items()):
            if text is None or path not in originals or not path.endswith(".py"):
                continue
            before = imported_names(originals[path])
            for module, new, _ in unresolved_imports(path, text, self._paths(), self._read):
                module_text = self._read(module)
                if module_text is None:
                    continue
                defined = top_level_names(module_text)
                old = requested_rename(self.plan.instruction, new, defined, before)
                if old is None:
                    continue
                files.changes[module] = rename_definitions(module_text, {old: new})
                renamed = True
                detail = f"renamed the definition of {old} to {new}, as {path} imports it"
                self._correction(module, detail, "rename")
        return renamed

    def _no_edits(self) -> str:
        how = EDIT_FORMATS[self.plan.edit_format].write_as
        return f"Your reply contained no edits in the requested format. Write them as {how}."

    def _check(self) -> list[Problem]:
        """Broken Python first (cheap, and the user's check would only fail on it), what the
        request names left undone (see edit/intent.py); then the user's check, on a result
        that changes something."""
        from ..edit.intent import (
            annotations_only,
            code_unchanged,
            default_problems,
            listed_unchanged,
            missing_definitions,
            prints_kept,
            request_problems,
        )
        from ..edit.subject import subject_unchanged

        files = self.files
        problems = python_problems(
            _originals(files), files.changes, self._users, (self._paths(), self._read)
        )
        if not problems and files.file_changes():
            instruction = self.plan.instruction
            problems = code_unchanged(instruction, _originals(files), files.changes)
            texts = self._python_texts()
            problems = problems or request_problems(instruction, texts)
            problems = problems or prints_kept(instruction, self._as_was(texts), texts)
            problems = problems or unused_new_loggers(_originals(files), files.changes)
            problems = problems or listed_unchanged(instruction, self._as_was(texts), texts)
            problems = problems or subject_unchanged(instruction, self._as_was(texts), texts)
            problems = problems or annotations_only(instruction, self._as_was(texts), texts)
            problems = problems or default_problems(instruction, self._as_was(texts), texts)
            problems = problems or missing_definitions(instruction, self._defining(texts))
        self.edited.checked = False
        if problems or self.verify is None or not files.file_changes():
            return problems
        if self.outstanding:
            return problems  # the result is not complete yet: check it once it is
        self.edited.checked = True
        return self._with_attributes(self.verify(files.file_changes()))

    def _undo_off_subject(self) -> None:
        """Put every file back as it was when the edits left the function the request is
        about as it was and changed only code it does not use (see
        :mod:`git_gpte.edit.subject`): none of it is what was asked, and a retry that builds
        on it would commit it beside the fix. Said as a correction."""
        from ..edit.subject import OFF_SUBJECT

        if not any(problem.kind == OFF_SUBJECT for problem in self.edited.failures):
            return
        changes, base = self.files.changes, self.base_changes
        edited = sorted(p for p in changes if p not in base or changes[p] != base[p])
        changes.clear()
        changes.update(base)  # what the loop started from
        for path in edited:
            detail = "put back as it was: the edits here are not to what the request is about"
            self._correction(path, detail, "kept")

    def _with_attributes(self, problems: list[Problem]) -> list[Problem]:
        """``problems``, each failing run's text followed by what the classes it found
        lacking an attribute have (see :mod:`git_gpte.edit.attributes`)."""
        from ..edit.attributes import lacking, missing_attribute_hints

        out = []
        for problem in problems:
            named = lacking(problem.text)
            hints = missing_attribute_hints(problem.text, self._users(named)) if named else []
            if hints:
                problem = replace(problem, text="\n".join([problem.text.rstrip(), *hints]))
            out.append(problem)
        return out

    def trim_collateral(self) -> None:
        """When the result fails the tests, try it with the changed definitions the request
        does not name put back as they were, one at a time and then all together (at most
        TRIM_TRIALS runs), and keep the first that no check fails, said as a correction.
        The definitions the request names stay as the answer wrote them, so what is kept
        still does what the model made of the request; without one of them named nothing is
        tried (which change is the request's would be a guess). Seen: asked for a positive
        ``Polygon.area``, the 1.5B model fixed ``area`` and made ``centroid`` a property in
        the same block, and the retries, told ``centroid()`` failed, lost the fix."""
        from ..edit.revert import changed_definitions, with_definition_as_was

        files = self.files
        named = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", self.plan.instruction))
        trials: list[tuple[str, str]] = []  # (path, qualified name)
        asked = False
        for path, text in sorted(files.changes.items()):
            before = _original(files, path) if path.endswith(".py") else None
            if text is None or before is None:
                continue
            for name in changed_definitions(before, text):
                if name.rsplit(".", 1)[-1] in named:
                    asked = True
                else:
                    trials.append((path, name))
        if not asked or not trials:
            return
        saved = dict(files.changes)
        failures, checked = self.edited.failures, self.edited.checked
        sets = [[t] for t in trials[: TRIM_TRIALS - 1]] + ([trials] if len(trials) > 1 else [])
        for chosen in sets:
            for path, name in chosen:
                reverted = with_definition_as_was(
                    _original(files, path) or "", files.changes[path] or "", name
                )
                files.changes[path] = reverted if reverted is not None else files.changes[path]
            problems = self._check()
            if not any(not p.advisory for p in problems):
                self.edited.failures = problems
                for path, name in chosen:
                    detail = f"put {name} back as it was: the change to it broke tests"
                    self._correction(path, detail, "collateral")
                return
            files.changes.clear()
            files.changes.update(saved)
        self.edited.failures, self.edited.checked = failures, checked

    def note_sound(self) -> None:
        """Remember the first result that passed every check but the probe (an advisory one:
        the model's own reading of the request), for keep_sound."""
        edited = self.edited
        advisory = bool(edited.failures) and not edited.broken and edited.checked
        if self.sound is None and advisory and not (edited.refused or self.outstanding):
            kept = {name: copy(getattr(edited, name)) for name in _SOUND_FIELDS}
            self.sound = (dict(self.files.changes), kept)

    def remember(self, retry: list[dict[str, str]]) -> None:
        """Keep this result and ``retry``, the retry asked from it, when a later answer may
        go back to it (see :func:`~git_gpte.pipeline.standing.may_fall_back_to`)."""
        edited = self.edited
        if edited.refused or self.outstanding or not may_fall_back_to(edited.failures):
            return
        self.fallback = _Fallback(
            dict(self.files.changes),
            {name: copy(getattr(edited, name)) for name in _SOUND_FIELDS},
            {name: copy(getattr(self, name)) for name in _RETRY_FIELDS},
            retry,
        )

    def broke_check(self) -> bool:
        """The last answer made the result fail a check that the remembered result (the
        last one a retry was asked from that ran and failed no check) did not fail."""
        return self.fallback is not None and fails_check(self.edited.failures)

    def go_back(self) -> list[dict[str, str]]:
        """Drop the last answer (see broke_check) and return to the result before it: the
        retry asked then, asked again with what the dropped answer broke."""
        assert self.fallback is not None
        note = dropped_note(self.edited.failures)
        self.console.info("the answer broke tests the result before it passed: asking again")
        self._restore(self.fallback)
        retry = [dict(message) for message in self.fallback.retry]
        retry[-1]["content"] = f"{retry[-1]['content'].rstrip()}\n\n{note}\n"
        return retry

    def fall_back(self) -> None:
        """When no attempt is left, keep the result before an answer that broke a check: a
        request not done is said as such rather than as the tests the last answer broke."""
        if self.broke_check():
            assert self.fallback is not None
            self.console.info("the last answer broke tests: keeping the result before it")
            self._restore(self.fallback)

    def _restore(self, fallback: _Fallback) -> None:
        edited = self.edited
        kept = {id(report) for report in fallback.record["reports"]}
        dropped = [r for r in edited.reports if id(r) not in kept]
        edited.discarded += [f"{r.one_line()} (answer dropped: it broke tests)" for r in dropped]
        self.files.changes.clear()
        self.files.changes.update(fallback.changes)
        self.outstanding = {}
        for name, value in fallback.record.items():
            setattr(edited, name, copy(value))
        for name, value in fallback.state.items():
            setattr(self, name, copy(value))

    def keep_sound(self) -> None:
        """Go back to the first result that failed only the probe when the retries it asked
        for did not end in one that passes it: the probe may be what is wrong (seen: one that
        replaced the function it checked with a lambda failed a right result, and the retries
        used a name never defined; one asserting nonsense about word counts had the retries
        turn a right result into a wrong one that still failed it). It must never turn a
        result the checks pass into a refusal, and retries it did not confirm are no better
        than the model's first reading of the request."""
        edited = self.edited
        if self.sound is None or not (edited.failures or edited.refused or self.outstanding):
            return
        changes, kept = self.sound
        self.console.info("the retries did not pass the probe: keeping the first result")
        self.files.changes.clear()
        self.files.changes.update(changes)
        self.outstanding = {}
        for name, value in kept.items():
            setattr(edited, name, value)

    def rename_itself(self) -> bool:
        """When an answer to a request that asks for a rename and nothing else (see
        :func:`git_gpte.edit.rename.plain_rename`) left broken code, rename the way an editor
        does, from the base: the one top-level definition of the old name among the files
        shown, then every use (see :func:`git_gpte.edit.rename.complete_renames`), checked
        like any result and said as a correction; whether that result stands. A rename has
        one right result, and retries rarely reach it: seen, two renames of the 1.5B model
        across several files failing after three whole-file answers each (a definition
        dropped, a call left on the old name), taking 10 and 12 minutes."""
        from ..edit.rename import complete_renames, plain_rename, rename_definitions

        edited, files = self.edited, self.files
        if not (edited.broken or edited.refused or self.outstanding or not files.file_changes()):
            return False
        pair = plain_rename(self.plan.instruction)
        home = self._renamed_home(pair) if pair is not None else None
        if pair is None or home is None:
            return False
        old, new = pair
        saved, checked = dict(files.changes), edited.checked
        files.changes.clear()
        files.changes.update(self.base_changes)
        files.changes[home] = rename_definitions(self._read(home) or "", {old: new})
        done = complete_renames(_originals(files), files.changes, self._users([old]))
        files.changes.update({d.path: d.text for d in done})
        failures = self._check()
        if any(not problem.advisory for problem in failures):
            files.changes.clear()
            files.changes.update(saved)
            edited.checked = checked
            return False
        places = sum(d.places for d in done)
        self.console.info(f"the answers left broken code: renamed {old} to {new} as an editor does")
        edited.discarded += [
            f"{r.one_line()} (then renamed as an editor does)" for r in edited.reports
        ]
        edited.reports, edited.refused, edited.notes = [], [], []
        edited.failures, self.outstanding = failures, {}
        for path in sorted({home, *(d.path for d in done)}):
            detail = f"renamed {old} to {new} as an editor does ({places + 1} place(s) in all)"
            self._correction(path, detail, "rename")
        return True

    def _renamed_home(self, pair: tuple[str, str]) -> str | None:
        """The one Python file shown that defines ``pair``'s old name at its top level, none of
        them defining the new one (None otherwise)."""
        from ..edit.rename import top_level_names

        old, new = pair
        homes = []
        for path in self.plan.selection.files:
            text = _original(self.files, path) if path.endswith(".py") else None
            names = top_level_names(text or "")
            if new in names:
                return None
            if old in names:
                homes.append(path)
        return homes[0] if len(homes) == 1 else None

    def check_what_is_kept(self) -> None:
        """Run the check on a result left with refused edits once no attempt is left. It was
        put off while the refused edits could still come (see _check); what is committed now
        is this result, and it must not go out as a partial success when it fails the check
        (seen: ratelimit/decorator-no-raise committed with exit 1, failing the project's
        tests, the two answers after the failing one not Python that parses)."""
        files, edited = self.files, self.edited
        if not self.outstanding or self.verify is None or edited.failures or edited.checked:
            return
        if files.file_changes():
            edited.checked = True
            edited.failures = self.verify(files.file_changes())

    def _as_was(self, texts: Mapping[str, str]) -> dict[str, str]:
        """The base text of each of ``texts``' files that had one."""
        originals = _originals(self.files)
        changed = self.files.changes
        return {
            p: originals.get(p, t) for p, t in texts.items() if p not in changed or p in originals
        }

    def _python_texts(self) -> dict[str, str]:
        """The Python files sent or edited, as they are now (deleted ones left out)."""
        paths = {p for p in (*self.plan.selection.files, *self.files.changes) if p.endswith(".py")}
        texts = {path: self._read(path) for path in sorted(paths)}
        return {path: text for path, text in texts.items() if text is not None}

    def _defining(self, texts: dict[str, str]) -> dict[str, str]:
        """``texts`` and the other Python files (as edited) that mention a definition the
        request asks for: where it may already be, or have been written."""
        from ..edit.intent import added_definitions

        named = {part for pair in added_definitions(self.plan.instruction) for part in pair if part}
        return {**self._users(sorted(named)), **texts} if named else texts

    def _paths(self) -> frozenset[str]:
        """Every path of the result: the base's, with the edits' new and deleted files."""
        files = self.files
        deleted = {p for p, t in files.changes.items() if t is None}
        return frozenset((set(files.entries) | set(files.changes)) - deleted)

    def _read(self, path: str) -> str | None:
        try:
            return self.files.get(path)
        except UnreadableFile:
            return None

    def _users(self, names: Iterable[str]) -> dict[str, str]:
        """The Python files (as edited) that mention any of ``names``: where a name a module
        no longer defines may still be imported."""
        files = self.files
        found = set(files.repo.files_mentioning(files.rev, names, ("*.py",)))
        found |= {p for p, t in files.changes.items() if t is not None and p.endswith(".py")}
        out = {}
        for path in sorted(found):
            try:
                text = files.get(path)
            except UnreadableFile:
                continue
            if text is not None:
                out[path] = text
        return out

    def drop_broken_new_files(self, *, unasked_only: bool = False) -> None:
        """Refuse the new files the result's problems are in, when nothing uses them, and keep
        the rest if it is sound without them.

        Small models add files nobody asked for (a ``logging.py`` beside the module that was to
        log): broken, and needed by nothing. Not creating them is a refusal like a refused hunk
        (the commit says so, exit 1), not a guess: the edits that remain pass every check on
        their own, or nothing changes. With ``unasked_only`` (after each answer, so that a
        retry is not spent on them: seen, the model rewrote the module it had right to fit
        the broken file) only files the request does not name are refused."""
        files = self.files
        failing = {p.path for p in self.edited.failures}
        if not failing or "" in failing:
            return
        new = {p for p in failing if p not in files.entries and files.changes.get(p) is not None}
        if new != failing:
            return
        if unasked_only and any(_names_file(self.plan.instruction, path) for path in new):
            return
        # A file hiding a standard module is "used" by every import of that module: dropping it
        # gives those imports back what they meant.
        hiding = {p.path for p in self.edited.failures if p.kind == "shadows-stdlib"}
        modules = {name.split(".")[-1] for path in new - hiding for name in module_names(path)}
        others = {p: t for p, t in files.changes.items() if p not in new and t is not None}
        if not others:
            return
        if modules and (
            files.repo.files_mentioning(files.rev, modules, ())
            or any(_mentions(text, modules) for text in others.values())
        ):
            return
        dropped = {p: files.changes.pop(p) for p in sorted(new)}
        reasons = {p.path: p.render() for p in self.edited.failures}
        left = self._check()
        if left:
            files.changes.update(dropped)
            return
        self.edited.failures = []
        for path in dropped:
            why = reasons[path]
            line = f"{path}: not created: a new file nothing uses, failing its checks ({why})"
            self.edited.refused.append(line)
            self.console.detail(line)

    # ------------------------------------------------------------------ the retry
    def retry_message(self, feedback: list[str], attempt: int) -> str:
        files = self.files
        broken = {p.path for p in self.edited.failures}
        broken |= {p.related for p in self.edited.failures if p.related}
        failed = sorted(
            p for p in set(self.outstanding) | broken if p in files and files.readable(p)
        )
        self.asked, self.shown_only = frozenset(failed), {}
        parts = retry_parts(
            [p for p in failed if _may_show(p, files, self.sent)],
            files,
            self.plan.shown,
            self.outstanding,
            [p.render() for p in self.edited.failures],
        )
        fmt = DEFINITIONS if self.in_focus else self.plan.edit_format
        ask = NARROWED_ASK if self.switched else ""
        return retry_user_message(
            parts, self.plan.instruction, "\n\n".join(feedback), attempt, fmt, self._diff(), ask
        )

    def _diff(self) -> str:
        """The edits so far as a diff, when a check that runs code failed on them (see
        :func:`git_gpte.prompts.messages.edits_diff`): the other problems name their line."""
        from ..prompts.messages import edits_diff

        if not any(p.kind == "check" for p in self.edited.failures):
            return ""
        before = _originals(self.files)
        after = {path: text for path in before if (text := self._read(path)) is not None}
        return edits_diff(before, after)


def _import_taken_out(found: AddedImport) -> str:
    """The correction's words for an added import taken out (see _Loop._drop_dead_imports)."""
    if found.shadowed:
        return f"took out an import of {found.module} whose names the file defines itself"
    if found.star:
        return (
            f"took out `from {found.module} import *`, which the request does not ask for "
            "(it hides the names a file uses and never defines)"
        )
    return f"took out an unused import of {found.module}, which the request does not ask for"


def _cut_lines(lines: list[str], start: int, end: int) -> None:
    """Delete ``lines[start:end]``, and the blank lines after them when nothing or a blank line
    comes before (no file left starting with blank lines, no blank lines doubled)."""
    del lines[start:end]
    if start == 0 or not lines[start - 1].strip():
        while start < len(lines) - 1 and not lines[start].strip():
            del lines[start]


def _as_said(text: str, cut: str) -> str:
    """The answer as the retry's conversation carries it: whole, unless it was cut off, when
    its first lines stand for it. A reply cut at the output cap is thousands of tokens the
    model wrote in vain; sent back whole it doubled the retry's reading time and pushed the
    next one over the window, and a small model took it as the pattern to follow (ledger)."""
    lines = text.split("\n")
    if not cut or len(lines) <= CUT_REPLY_LINES:
        return text
    rest = len(lines) - CUT_REPLY_LINES
    return "\n".join(
        [*lines[:CUT_REPLY_LINES], f"[... {rest:,} more lines, then the reply was cut off]"]
    )


def _cut_note(exc: ReplyTruncated) -> str:
    if exc.looped:
        return (
            "Your reply was stopped because it kept repeating the same lines. Answer again, "
            "once, without repeating yourself, and stop after the last edit."
        )
    return (
        f"Your reply was cut off at the output limit ({exc.tokens_out:,} tokens); the edit it "
        "was writing was not used. Write only what must change, briefly."
    )


def _mentions(text: str, words: set[str]) -> bool:
    import re

    return any(re.search(rf"\b{re.escape(word)}\b", text) for word in words)


def _names_file(instruction: str, path: str) -> bool:
    """Whether the request names the file, by its path or its file name (``logging.py``)."""
    name = path.rsplit("/", 1)[-1]
    return path in instruction or _mentions(instruction, {name})


def _has_code(text: str) -> bool:
    """Whether a reply holds any attempt at code: a fence, a diff or a SEARCH marker."""
    return any(
        line.lstrip().startswith(("```", "~~~", "--- ", "+++ ", "@@", "<<<<<<<"))
        for line in text.splitlines()
    )


def _sole_file(plan: Plan) -> tuple[str, str] | None:
    """(path, text) when the model was shown exactly one file, whole (or in part, when it is
    asked for definitions: a block of them is placed, never written as the file)."""
    parts = list(plan.shown.parts.values())
    if len(parts) == 1 and (parts[0].whole or plan.edit_format == DEFINITIONS):
        return parts[0].path, parts[0].text
    return None


def _seen_in_part(plan: Plan) -> dict[str, str]:
    """The files the model saw only in part, with what it saw ("lines 10-40")."""
    return {
        part.path: "lines " + ", ".join(f"{a}-{b}" for a, b in part.ranges)
        for part in plan.shown.parts.values()
        if not part.whole
    }


def _original(files: CommitFiles, path: str) -> str | None:
    try:
        return files.original(path)
    except (KeyError, UnreadableFile):
        return None


def _code_unchanged(failures: list[Problem]) -> bool:
    """Whether every problem left is an answer that changed no code (see code_unchanged)."""
    from ..edit.intent import CODE_UNCHANGED

    return bool(failures) and all(problem.text == CODE_UNCHANGED for problem in failures)


def _originals(files: CommitFiles) -> dict[str, str]:
    """The base text of every edited file that had one (what "compiled before" is checked on)."""
    out = {}
    for path in files.changes:
        text = _original(files, path) if path in files.entries else None
        if text is not None:
            out[path] = text
    return out


class _Asking:
    """The rounds in which the model asks for more context instead of editing."""

    def __init__(self, llm: LLM, plan: Plan, files: CommitFiles, console: Console) -> None:
        self.llm = llm
        self.plan = plan
        self.console = console
        self.used = 0
        self.more = None if plan.shown.everything else MoreContext(plan, plan.shown, files)
        self.log: dict[str, Any] = context_record(plan)
        self._note()

    def _note(self) -> None:
        if self.llm.run is not None:
            self.llm.run.note("context", self.log)

    def answer_needs(
        self, messages: list[dict[str, str]], reply: Reply
    ) -> tuple[list[dict[str, str]], Reply]:
        """Answer need blocks while rounds are left; returns the conversation and last reply."""
        from ..edit import parse_reply
        from ..llm import estimate_tokens

        while self.more is not None and self.used < self.plan.rounds:
            items = parse_need(reply.text)
            if items is None or parse_reply(reply.text, "auto").edits:
                break
            # Only the items stay in the conversation: a need block with thousands of lines
            # around it would be sent again with every later request.
            kept = need_block(items[:MAX_NEED_ITEMS])
            asked = [*messages, {"role": "assistant", "content": kept}]
            used, _ = estimate_tokens(asked, self.plan.model.name)
            if not _room_for_more(self.plan, used):
                self.console.info(
                    "the conversation is as long as the model can read: not asking again"
                )
                break
            self.used += 1
            text, record = self.more.answer(items, used, self.used, self.plan.rounds - self.used)
            missing = "; ".join(f"{what} ({why})" for what, why in record.not_given[:6])
            self.console.info(
                f"round {self.used}/{self.plan.rounds}: the model asked for "
                f"{', '.join(record.asked) or 'more (nothing readable)'}; given "
                f"{', '.join(record.given) or 'nothing'}"
                + (f"; not given: {missing}" if missing else "")
            )
            self.log["rounds"].append(record.to_json())
            self._note()
            messages = [*asked, {"role": "user", "content": text}]
            reply = self.llm.ask(messages)
        return messages, reply


# Tokens an answer to a need block needs at the least to be worth sending.
MIN_ANSWER_TOKENS = 512


def _room_for_more(plan: Plan, used: int) -> bool:
    """Whether a request of ``used`` tokens leaves room to answer a need block."""
    return plan.token_cap is None or used + MIN_ANSWER_TOKENS <= plan.token_cap


def _ask_in_window(loop: _Loop, messages: list[dict[str, str]], *, first: bool) -> tuple[str, str]:
    """``loop.ask``; when the server says a retry is over its window, the retry once more in
    its short form (the system prompt, the first request, the last message), as ``fit`` sends
    it when the window is known."""
    try:
        return loop.ask(messages, first=first)
    except WindowExceeded:
        short = _short_form(messages)
        if first or short is messages:
            raise
        loop.console.info(
            "the retry is longer than the model's window: sending it without the earlier answers"
        )
        return loop.ask(short, first=first)


def _short_form(messages: list[dict[str, str]]) -> list[dict[str, str]]:
    """The system prompt, the first request and the last message (``messages`` itself when it
    is no longer than that)."""
    return [*messages[:2], messages[-1]] if len(messages) > 3 else messages


def fit(plan: Plan, messages: list[dict[str, str]]) -> list[dict[str, str]] | None:
    """``messages`` within the model's window: the conversation as it is, else the system
    prompt, the first request and the last message (what the retry needs), else None."""
    from ..llm import estimate_tokens

    if plan.token_cap is None:
        return messages
    if estimate_tokens(messages, plan.model.name)[0] <= plan.token_cap:
        return messages
    short = _short_form(messages)
    if estimate_tokens(short, plan.model.name)[0] <= plan.token_cap:
        return short
    return None


def context_record(plan: Plan) -> dict[str, Any]:
    """What the run log keeps about the context sent: the mode, budget, parts and the map."""
    if plan.shown.everything:
        return {
            "mode": "all",
            "files": sorted(plan.selection.files),
            "rounds": [],
            "edit_format": plan.edit_format,
        }
    selection = plan.shown.selection
    return {
        "mode": "selected",
        "budget": plan.context_budget,
        "sent": plan.shown.summary(),
        "map": [entry.path for entry in selection.map] if selection else [],
        "rounds_allowed": plan.rounds,
        "rounds": [],
        "edit_format": plan.edit_format,
    }


def _report_line(report: HunkReport) -> str:
    where = f"{report.path} hunk {report.hunk}"
    return f"{where}: {report.detail}" if report.detail else where
