"""The LLM layer must not slow down start-up: SDKs are imported only when a call is made."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("openai", "anthropic", "tiktoken", "httpx", "httpx2", "git")


def _imported_after(statement: str) -> set[str]:
    code = f"import sys; {statement}; print(' '.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def test_llm_and_prompts_import_no_sdk() -> None:
    loaded = _imported_after("import git_gpte.llm, git_gpte.prompts")
    assert not loaded & set(HEAVY), loaded & set(HEAVY)


def test_log_and_preprompts_commands_import_no_sdk() -> None:
    loaded = _imported_after("import git_gpte.commands.log, git_gpte.commands.preprompts")
    assert not loaded & {"openai", "anthropic", "tiktoken"}


def test_import_time_of_the_llm_package_is_small() -> None:
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import git_gpte.llm"],
        capture_output=True,
        text=True,
        check=True,
    )
    last = [line for line in out.stderr.splitlines() if line.rstrip().endswith("git_gpte.llm")]
    cumulative_us = int(last[-1].split("|")[1])
    assert cumulative_us < 250_000, f"git_gpte.llm takes {cumulative_us / 1000:.0f} ms to import"
