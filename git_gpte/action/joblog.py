"""The check's output in the job log: one collapsed group per run of it.

Without this the output of the program under test reached only the status comment (its tail),
and a reader of the job log could not see what each heal attempt ran into. Each run (the check
of the edit, then every heal attempt) gets a ``::group::`` the log shows collapsed; the output
inside is streamed as it comes, and stays inside the action's ``::stop-commands::`` block: the
group commands themselves are ours and are emitted between a resume and a new stop (see
:meth:`WorkflowCommands.command`), so nothing the program prints is ever obeyed.
"""

from __future__ import annotations

from ..run.streaming import Streamer
from .commands import WorkflowCommands


class CheckGroups:
    def __init__(self, cmds: WorkflowCommands, command: str, attempts: int) -> None:
        self.cmds = cmds
        self.command = command
        self.attempts = attempts
        self._streamer: Streamer | None = None

    def start(self, attempt: int) -> None:
        """Close the previous run's group and open run ``attempt``'s (0: the check itself)."""
        self.close()
        what = "check" if attempt == 0 else f"heal attempt {attempt}/{self.attempts}"
        self.cmds.group(f"git-gpte {what}: {self.command}")
        self._streamer = Streamer(self.cmds.stream)

    def output(self, chunk: bytes) -> None:
        if self._streamer is not None:
            self._streamer(chunk)

    def close(self) -> None:
        if self._streamer is None:
            return
        if not self._streamer.at_line_start:
            self.cmds.stream.write("\n")
        self._streamer = None
        self.cmds.endgroup()
