"""The command group as a user meets it: git subcommand, help, version, -C, errors, man page."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from git_gpte import __version__
from tests.conftest import run_gpte

MAN_PAGE = Path(__file__).resolve().parents[1] / "git_gpte" / "man" / "git-gpte.1"


def test_git_finds_the_subcommand(tmp_path: Path) -> None:
    result = run_gpte("-h", cwd=tmp_path, process=True)
    assert result.returncode == 0, result.stderr
    assert "Usage:" in result.stdout and "sysinfo" in result.stdout


def test_version(tmp_path: Path) -> None:
    result = run_gpte("--version", cwd=tmp_path)
    assert result.returncode == 0
    assert result.stdout.strip() == f"git-gpte, version {__version__}"


def test_help_does_not_import_sdks() -> None:
    code = (
        "import sys; from git_gpte.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "heavy = [m for m in ('openai', 'anthropic', 'github', 'git', 'tiktoken', 'rapidfuzz')"
        " if m in sys.modules]\n"
        "print('HEAVY=' + ','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "HEAVY="


def test_dash_c_changes_directory(repo: Path, tmp_path: Path) -> None:
    ok = run_gpte("-C", str(repo), "sysinfo", cwd=tmp_path)
    assert ok.returncode == 0
    bad = run_gpte("-C", "no/such/dir", "sysinfo", cwd=tmp_path)
    assert bad.returncode == 2
    assert "no such directory" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_unknown_command_is_a_usage_error(tmp_path: Path) -> None:
    result = run_gpte("frobnicate", cwd=tmp_path)
    assert result.returncode == 2
    assert "No such command" in result.stderr


def test_bad_options_are_one_line_naming_where_help_is(repo: Path) -> None:
    for args, words in (
        (("improve", "--bogus", "x"), "No such option '--bogus'"),
        (("improve", "--max-retries", "99", "x"), "'--max-retries'"),
        (("improve", "--edit-format", "xml", "x"), "'--edit-format'"),
        (("-C", "no/such/dir", "improve", "x"), "no such directory"),
        (("frobnicate",), "No such command 'frobnicate'"),
        # A request starting with a dash, as commit subjects from lists are written.
        (("context", "- new year"), "put -- before it: git gpte context -- '- new year'"),
    ):
        result = run_gpte(*args, cwd=repo)
        assert result.returncode == 2, result.stderr
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("git-gpte: error: "), result.stderr
        assert words in lines[0] and "-h')" in lines[0]
    assert "(see 'git gpte improve -h')" in run_gpte("improve", "--bogus", cwd=repo).stderr
    after = run_gpte("context", "--format", "lines", "--", "- happy new year", cwd=repo)
    assert after.returncode == 0, after.stderr


def test_man_page_matches_the_click_help() -> None:
    # A fresh interpreter, as the README's regeneration command runs it: click objects used by
    # in-process CLI tests carry state (the help option) that a render here would pick up.
    fresh = subprocess.run(
        [sys.executable, "-m", "git_gpte.manpage"], capture_output=True, text=True, check=True
    ).stdout
    assert MAN_PAGE.read_text() == fresh, (
        "git_gpte/man/git-gpte.1 is stale: python -m git_gpte.manpage > git_gpte/man/git-gpte.1"
    )


def test_man_page_is_installed_beside_the_script() -> None:
    installed = Path(sys.prefix) / "share" / "man" / "man1" / "git-gpte.1"
    assert installed.exists(), "share/man/man1/git-gpte.1 missing from the install"


@pytest.mark.skipif(shutil.which("man") is None, reason="man is not installed")
def test_git_help_opens_the_man_page(tmp_path: Path) -> None:
    result = run_gpte(
        "--help",
        cwd=tmp_path,
        env={"MANPAGER": "cat", "PAGER": "cat", "MANWIDTH": "80"},
        process=True,
    )
    assert result.returncode == 0, result.stderr
    assert "LLM edits, validated and committed" in result.stdout


def test_sysinfo_never_prints_secrets(tmp_path: Path) -> None:
    secret = "sk-test-secret-value-123"
    result = run_gpte(
        "sysinfo", cwd=tmp_path, env={"OPENAI_API_KEY": secret, "GITHUB_TOKEN": secret}
    )
    assert result.returncode == 0
    assert secret not in result.stdout + result.stderr
    assert "OPENAI_API_KEY" in result.stdout and "GITHUB_TOKEN" in result.stdout
    assert "python:" in result.stdout and "git:" in result.stdout


def test_typos_get_a_suggestion(tmp_path: Path) -> None:
    from tests.helpers.gitrepo import make_repo

    repo = make_repo(tmp_path / "r", {"a.py": "x = 1\n"})
    command = run_gpte("imporve", "x", cwd=repo)
    assert command.returncode == 2 and "Did you mean 'improve'?" in command.stderr
    model = run_gpte("improve", "-n", "x", "--model", "gtp-4o", cwd=repo)
    assert model.returncode == 4 and "did you mean 'gpt-4o'?" in model.stderr
    dated = run_gpte(
        "improve", "-n", "x", "--model", "gpt-4o-2099-01-01", cwd=repo,
        env={"OPENAI_API_KEY": "k"},
    )  # fmt: skip
    assert dated.returncode == 0, dated.stderr
    assert "priced and limited as gpt-4o" in dated.stdout
