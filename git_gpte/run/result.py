"""What one execution of the program under test produced, in the shape heal and CI consume.

The result is plain data: ``success`` is exit code 0 and nothing else (gpt-engineer counted exit
code 2 as success), and ``feedback_text`` is the text the LLM sees on the next attempt — decoded
text, never a ``b'...'`` repr, capped so a runaway log cannot fill the prompt.
"""

from __future__ import annotations

from dataclasses import dataclass

from .pytest_output import condense

# What feedback_text shows of the output by default: enough for a traceback and its context.
FEEDBACK_CHARS = 8000


@dataclass(frozen=True)
class RunResult:
    """One run of an entrypoint or command.

    ``exit_code`` is the process's status (negative: killed by that signal, as after a
    timeout); ``output_tail`` is the end of stdout+stderr merged, ``output_bytes`` how many bytes
    were produced in all, ``truncated`` whether the start was dropped and ``omitted_lines`` how
    many lines that was.
    """

    exit_code: int
    timed_out: bool
    duration: float
    output_tail: str
    output_bytes: int
    truncated: bool
    command: str
    omitted_lines: int = 0
    timeout: float | None = None
    commit: str | None = None
    environment: str = "local"

    @property
    def success(self) -> bool:
        """Exit code 0 within the time limit; every other outcome is a failure."""
        return self.exit_code == 0 and not self.timed_out

    def status_text(self) -> str:
        """How the run ended, in a few words ("exited with code 2", "timed out after 600 s")."""
        if self.timed_out:
            limit = self.timeout if self.timeout is not None else self.duration
            return f"timed out after {_seconds(limit)} s (its process group was killed)"
        if self.exit_code < 0:
            return f"was killed by signal {-self.exit_code}"
        return f"exited with code {self.exit_code}"

    def summary(self) -> str:
        """One line for the terminal or a status comment."""
        where = f" at {self.commit[:12]}" if self.commit else ""
        return f"`{self.command}`{where} {self.status_text()} in {_seconds(self.duration)} s"

    def output_excerpt(self, max_chars: int = FEEDBACK_CHARS) -> str:
        """The captured tail, each traceback a test report repeats shown once (see
        pytest_output), cut to ``max_chars`` at a line start, noting what is left out."""
        text = condense(self.output_tail)
        cut = self.truncated
        omitted = self.omitted_lines
        if len(text) > max_chars:
            dropped = text[: len(text) - max_chars]
            text = text[len(text) - max_chars :]
            newline = text.find("\n")
            if 0 <= newline < len(text) - 1:
                dropped += text[: newline + 1]
                text = text[newline + 1 :]
            omitted += dropped.count("\n")
            cut = True
        if cut:
            return f"[... {omitted} earlier line(s) omitted ...]\n{text}"
        return text

    def feedback_text(self, max_chars: int = FEEDBACK_CHARS) -> str:
        """The failure report for the LLM: command, how it ended, and the end of its output."""
        lines = [
            f"Command: {self.command}",
            f"Exit code: {self.exit_code}",
            f"Timed out: {'yes' if self.timed_out else 'no'}",
        ]
        if self.timed_out and self.timeout is not None:
            lines.append(
                f"It did not finish within {_seconds(self.timeout)} seconds and was killed."
            )
        size = f"{self.output_bytes} bytes"
        if self.output_bytes == 0:
            lines.append("Output: (none)")
        else:
            lines.append(f"Output ({size}, stdout and stderr merged; the end is shown):")
            lines.append(self.output_excerpt(max_chars).rstrip("\n"))
        return "\n".join(lines) + "\n"


def _seconds(value: float) -> str:
    return f"{value:.0f}" if value >= 10 else f"{value:.1f}"
