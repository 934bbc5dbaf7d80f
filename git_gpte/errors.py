"""One exception tree for every failure a user can meet.

Each class carries the process exit code the CLI returns for it, so commands never pick
numbers themselves and the table in docs/configuration.md stays true. The message is the single
line the user sees on stderr; tracebacks are shown only with ``--verbose``.

Exit codes (documented in docs/configuration.md):

====  =====================================================================
code  meaning
====  =====================================================================
0     success
1     partial success: a result was produced but some hunks were refused, or it
      fails a check and was kept with ``--keep-failing``
2     bad usage or bad input (options, prompt, reply file, pathspecs)
3     repository problem (not a repo, bare, empty, detached HEAD, identity,
      branch exists, unsafe state)
4     configuration problem (missing API key, unknown model)
5     LLM problem (network, rate limit, truncated or refused reply)
6     edits could not be applied (no edits found, every hunk refused, the model
      answered without an edit, or the edits leave broken code)
7     unsafe path in an LLM reply (absolute, ``..``, ``.git/``, symlink)
8     the program under test failed or timed out (run / heal, improve --check)
9     GitHub problem (API error, permission, push)
10    files could not be written to the work tree (disk full, permissions):
      nothing written, or the message says what was
70    internal error: a bug in git-gpte (``-v`` shows the traceback)
130   interrupted (Ctrl-C)
====  =====================================================================
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_PARTIAL = 1
EXIT_INTERNAL = 70  # sysexits' EX_SOFTWARE: an exception no GpteError describes


class GpteError(Exception):
    """Base of every expected failure; ``str(err)`` is the one-line user message."""

    exit_code = 2

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        # The logged run it ended (set where the run is known): `--json` reports its usage.
        self.run_id: str | None = None

    def render(self) -> str:
        """The text shown to the user: the message, plus a hint on the same line."""
        text = self.message.strip().replace("\n", " ")
        if self.hint:
            text = f"{text} ({self.hint})"
        return text


class UsageError(GpteError):
    """Options or input the user gave cannot be used as given."""

    exit_code = 2


class RepoError(GpteError):
    """The repository is not in a state the command can work with."""

    exit_code = 3


class NotARepository(RepoError):
    pass


class BareRepository(RepoError):
    pass


class EmptyRepository(RepoError):
    pass


class DetachedHead(RepoError):
    pass


class MissingIdentity(RepoError):
    pass


class BranchExists(RepoError):
    pass


class GitCommandError(RepoError):
    """A git command failed; the message names the command, its exit code and its stderr."""

    def __init__(
        self, message: str, *, hint: str | None = None, returncode: int | None = None
    ) -> None:
        super().__init__(message, hint=hint)
        self.returncode = returncode


class ConfigError(GpteError):
    """Missing key, unknown model, unreadable configuration."""

    exit_code = 4


class LLMError(GpteError):
    """The model could not be reached or its reply cannot be used."""

    exit_code = 5


class ReplyTruncated(LLMError):
    """The reply stopped before its end; ``partial`` holds what arrived (cut before the loop
    when ``looped``: the model was repeating itself and was stopped)."""

    def __init__(
        self,
        message: str,
        *,
        partial: str = "",
        hint: str | None = None,
        looped: bool = False,
        tokens_out: int = 0,
    ) -> None:
        super().__init__(message, hint=hint)
        self.partial = partial
        self.looped = looped
        self.tokens_out = tokens_out


class WindowExceeded(LLMError):
    """The server said the request is longer than the model's window. The edit loop stops
    retrying on it (a longer conversation will not fit either) and reports what it has."""


class EditError(GpteError):
    """The reply held no usable edit, or none of its edits could be placed."""

    exit_code = 6


class UnsafePathError(GpteError):
    """An LLM-supplied path points outside the repository or into ``.git``."""

    exit_code = 7


class RunError(GpteError):
    """The program under test failed, timed out, or could not be started."""

    exit_code = 8


class CheckFailed(RunError):
    """The result of the edits fails the user's check command (``improve --check``)."""


class GitHubError(GpteError):
    """The GitHub API or a push to GitHub failed."""

    exit_code = 9


class WriteError(GpteError):
    """The work tree could not be written (``apply``); the message says what was written."""

    exit_code = 10


class Interrupted(GpteError):
    """The user pressed Ctrl-C; whatever was recorded so far is kept."""

    exit_code = 130
