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


def test_cli_help_loads_no_sdk_and_no_context_engine() -> None:
    """``git gpte -h`` stays fast by loading nothing heavy; its time is measured in
    bench/startup.py (a timed assertion here would only measure how busy the machine is)."""
    loaded = _imported_after(
        "from click.testing import CliRunner; from git_gpte.cli import cli; "
        "CliRunner().invoke(cli, ['-h'])"
    )
    heavy = set(HEAVY) | {"github", "tree_sitter", "tree_sitter_language_pack", "bm25s", "networkx"}
    assert not loaded & heavy, loaded & heavy
