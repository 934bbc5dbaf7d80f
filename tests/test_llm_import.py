"""The LLM layer must not slow down start-up: SDKs are imported only when a call is made."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.helpers.gitrepo import make_repo

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


def test_context_command_loads_neither_the_client_nor_the_edit_engine(tmp_path: Path) -> None:
    """``git gpte context`` runs on every request in an editor or a benchmark: it resolves its
    budget and the configured model without the LLM client, the run log, the prompts or the
    edit engine (a third of its start-up on mypy)."""
    root = make_repo(tmp_path / "r", {"app.py": "def greet(name):\n    return name\n"})
    code = (
        "import os, sys; from git_gpte.cli import main\n"
        f"os.chdir({str(root)!r})\n"
        "try:\n    main(['context', '--format', 'lines', 'greet loudly'])\n"
        "except SystemExit:\n    pass\n"
        "print(' '.join(sorted(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    lines = out.stdout.splitlines()
    assert lines[0] == "app.py"
    loaded = set(lines[-1].split())
    unwanted = {"git_gpte.llm.client", "git_gpte.llm.runlog", "git_gpte.edit", "git_gpte.prompts"}
    assert not loaded & unwanted, loaded & unwanted
