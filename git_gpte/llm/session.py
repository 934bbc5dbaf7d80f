"""A session: one command's run-log row, its model clients and what they spent.

Every command that calls a model runs inside one::

    with Session(repo.state_dir(), "improve", settings=settings, console=console,
                 prompt=text, base=sha) as session:
        llm = session.client(model)          # the LLM, recording into this run
        reply = llm.ask(messages)
        ...
        session.finish("ok", branch=..., commit=...)
    session.usage                            # Usage: this run's calls plus its children's

The row is opened when the block starts and closed on *every* way out of it: a normal end
(``ok`` unless the command said otherwise), a :class:`~git_gpte.errors.GpteError` (its outcome:
``llm-error``, ``config-error``, ``no-edits``, ...), any other exception (``error``), Ctrl-C,
SIGTERM or SIGHUP (``interrupted``). Closing happens with those signals blocked, so a second
Ctrl-C cannot cut it short. Building a client inside the block means a bad setting
(``GPTE_TEMPERATURE=hot``) closes the row as ``config-error`` instead of leaving it ``running``.

A session can have child sessions (heal's attempts): each is a run of its own, linked to the
parent through ``meta.parent_run``, and its usage counts in the parent's :attr:`usage`. That is
how a caller learns what was spent, even when the child failed: nothing reads the log back.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

from ..config import Settings
from ..errors import GpteError, Interrupted
from ..signals import blocked
from ..ui import Console
from .client import LLM
from .models import ModelInfo
from .runlog import Run, RunLog, ending
from .usage import ZERO, Usage


class Session:
    """One command's run: see the module docstring."""

    def __init__(
        self,
        state_dir: Path | str,
        command: str,
        *,
        settings: Settings,
        console: Console | None = None,
        prompt: str = "",
        base: str | None = None,
        model: ModelInfo | None = None,
        meta: Mapping[str, Any] | None = None,
        cache: bool = False,
        parent: Session | None = None,
    ) -> None:
        self.state_dir = Path(state_dir)
        self.command = command
        self.settings = settings
        self.console = console or Console(quiet=True)
        self.prompt = prompt
        self.base = base
        self.model = model
        self.meta = dict(meta or {})
        self.cache = cache
        self.parent = parent
        self.outcome: str | None = None
        self._log: RunLog | None = parent._log if parent is not None else None
        self._run: Run | None = None
        self._clients: list[LLM] = []
        self._children: list[Session] = []
        # What an interruption leaves behind, kept up to date by the command (see progress).
        self._left: tuple[str | None, str | None, str] = (None, None, "nothing committed")

    # ------------------------------------------------------------------ the record
    @property
    def run(self) -> Run:
        if self._run is None:
            raise RuntimeError("the session has not started (use it in a with block)")
        return self._run

    @property
    def id(self) -> str:
        return self.run.id

    def __enter__(self) -> Session:
        with blocked():
            if self._log is None:
                self._log = RunLog(self.state_dir)
            meta = dict(self.meta)
            if self.parent is not None:
                meta["parent_run"] = self.parent.id
            self._run = self._log.start(
                self.command,
                prompt=self.prompt,
                model=self.model.name if self.model else None,
                provider=self.model.provider if self.model else None,
                base=self.base,
                meta=meta,
            )
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if isinstance(exc, GpteError) and exc.run_id is None:
            exc.run_id = self.id  # the run a failure ended (`improve --json` reports it)
        with blocked():
            try:
                outcome, detail = ending(exc)
                branch, commit, said = self._left
                if isinstance(exc, KeyboardInterrupt):
                    detail = f"interrupted; {said}"
                self.finish(outcome, branch=branch, commit=commit, detail=detail)
            finally:
                if self.parent is None and self._log is not None:
                    self._log.close()
        if isinstance(exc, KeyboardInterrupt):
            # The one place a run meets Ctrl-C (SIGTERM, SIGHUP): recorded above, and said in
            # the words the command left (where its work so far is).
            raise Interrupted(f"interrupted; {self._left[2]}") from None

    def progress(
        self, *, branch: str | None = None, commit: str | None = None, left: str = ""
    ) -> None:
        """What the run has made so far, recorded and said if it is interrupted now:
        ``left`` ("attempts so far are on gpte/heal-x")."""
        old_branch, old_commit, old_left = self._left
        self._left = (branch or old_branch, commit or old_commit, left or old_left)

    def finish(
        self,
        outcome: str,
        *,
        branch: str | None = None,
        commit: str | None = None,
        detail: str | None = None,
    ) -> None:
        """Record how the run ended; the first call wins (the block's end records the rest).

        A record that cannot be written (the disk went away) is a warning, never an error
        that would hide what the command itself did or why it failed.
        """
        if self._run is None or self._run.finished:
            return
        try:
            self._run.finish(outcome, branch=branch, commit=commit, detail=detail)
        except Exception as exc:  # sqlite3.Error, OSError
            self._run.finished = True
            print(
                f"git-gpte: warning: could not record run {self._run.id} as {outcome}: {exc}",
                file=sys.stderr,
            )
        self.outcome = outcome

    def update(self, **fields: Any) -> None:
        """Fill in what was learnt after the start (``prompt``, ``model``, ``base``, ``meta``)."""
        if "meta" in fields:
            self.meta = {**self.meta, **fields["meta"]}
            fields["meta"] = (
                {**self.meta, "parent_run": self.parent.id} if self.parent else self.meta
            )
        self.run.update(**fields)

    # ------------------------------------------------------------------ models
    def client(self, model: ModelInfo, *, cache: bool | None = None, **options: Any) -> LLM:
        """An LLM for ``model`` that records its calls in this run. Its settings are read here,
        inside the session, so a bad one closes the run as ``config-error``."""
        if self.model is None or self.model.name != model.name:
            self.model = model
            self.run.update(model=model.name, provider=model.provider)
        llm = LLM(
            model,
            self.settings,
            console=self.console,
            cache=self.cache if cache is None else cache,
            state_dir=self.state_dir,
            run=self.run,
            **options,
        )
        self._clients.append(llm)
        return llm

    def child(
        self,
        command: str,
        *,
        prompt: str = "",
        base: str | None = None,
        model: ModelInfo | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> Session:
        """A run of its own inside this one (heal's attempts); enter it with ``with``."""
        session = Session(
            self.state_dir,
            command,
            settings=self.settings,
            console=self.console,
            prompt=prompt,
            base=base,
            model=model or self.model,
            meta=meta,
            cache=self.cache,
            parent=self,
        )
        if self._log is None:
            raise RuntimeError("the session has not started (use it in a with block)")
        self._children.append(session)
        return session

    @property
    def own_usage(self) -> Usage:
        """What this run's own calls spent (what its row in the log says)."""
        result = ZERO
        for llm in self._clients:
            result = result + llm.usage
        return result

    @property
    def usage(self) -> Usage:
        """What this run and its children spent."""
        result = self.own_usage
        for child in self._children:
            result = result + child.usage
        return result
