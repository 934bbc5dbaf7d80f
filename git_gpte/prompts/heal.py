"""The request heal sends for one attempt. Pure text; the loop that sends it is in pipeline/."""

from __future__ import annotations

from collections.abc import Sequence


def heal_instruction(
    spec: str | None,
    feedback: str,
    earlier: Sequence[tuple[int, Sequence[str], str]],
    attempt: int,
    total: int,
) -> str:
    """The spec, the failed run, and the earlier fixes (attempt, files changed, what happened)."""
    parts = [
        "The program fails when it is run. Change the files so that the command below succeeds "
        "(exits with code 0) and the program does what the specification asks.",
        "",
        "Specification the program was written from:",
        spec.strip()
        if spec and spec.strip()
        else "(not available: keep what the program does, fix the failure)",
        "",
        f"The failed run (attempt {attempt} of {total}), on the files exactly as shown above:",
        feedback.rstrip(),
    ]
    if earlier:
        parts += ["", "Earlier fixes on this branch, already in the files shown, did not work:"]
        for number, files, summary in earlier:
            changed = ", ".join(list(files)[:6]) or "no files"
            parts.append(f"- attempt {number} changed {changed}; then: {summary}")
    return "\n".join(parts) + "\n"
