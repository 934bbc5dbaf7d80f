"""The shipped preprompts, per-repository overrides, and ``git gpte preprompts``."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from git_gpte.errors import ConfigError, UsageError
from git_gpte.prompts import NAMES, default_dir, find, system_prompt
from tests.conftest import run_gpte
from tests.helpers.gitrepo import Snapshot

ROOT = Path(__file__).resolve().parents[1]


def test_every_preprompt_ships_as_a_plain_text_file() -> None:
    assert sorted(p.name for p in (ROOT / "preprompts").iterdir()) == sorted(NAMES)
    for name in NAMES:
        text = (ROOT / "preprompts" / name).read_text(encoding="utf-8")
        assert text.strip() and text.endswith("\n")
    assert default_dir() == ROOT / "preprompts"


def test_improve_prompt_explains_line_numbers_and_the_diff_format() -> None:
    prompt = system_prompt("improve")
    assert "FILE_FORMAT" not in prompt
    assert "line number" in prompt and "@@ -START,COUNT +START,COUNT @@" in prompt
    assert "--- /dev/null" in prompt and "+++ /dev/null" in prompt
    assert prompt.startswith(find("roadmap").text.strip())
    # The philosophy is about writing a new project: a change to an existing one goes without.
    assert "Useful to know:" not in prompt and find("philosophy").text.strip() not in prompt
    assert "Useful to know:" in system_prompt("generate")
    assert "<<<<<<< SEARCH" in system_prompt("improve", edit_format="search-replace")
    whole = system_prompt("improve", edit_format="whole")
    assert "complete file" in whole and "@@" not in whole
    # No example path a model could take for one of the user's files.
    for fmt in ("diff", "search-replace", "whole"):
        assert "src/" not in system_prompt("improve", edit_format=fmt)
    with pytest.raises(UsageError):
        system_prompt("improve", edit_format="yaml")


def test_generate_entrypoint_clarify() -> None:
    generate = system_prompt("generate")
    assert "FILE_FORMAT" not in generate and "complete file" in generate
    assert "run.sh" in system_prompt("entrypoint")
    assert "Nothing to clarify" in system_prompt("clarify")


def test_repository_override_wins(repo: Path) -> None:
    override = repo / ".gpte" / "preprompts"
    override.mkdir(parents=True)
    (override / "philosophy").write_text("Always use tabs.\n")
    (override / "improve").write_text("Custom improve rules.\nFILE_FORMAT\nEnd.\n")
    prompt = system_prompt("improve", repo)
    assert "Custom improve rules." in prompt
    assert "Always use tabs." in system_prompt("generate", repo)
    assert "@@ -START,COUNT" in prompt  # the placeholder still takes the format
    assert find("roadmap", repo).overridden is False
    shown = run_gpte("preprompts", "show", "philosophy", cwd=repo)
    assert shown.stdout == "Always use tabs.\n" and "(override)" in shown.stderr
    listed = run_gpte("preprompts", "list", cwd=repo).stdout
    assert any(line.startswith("philosophy") and "override" in line for line in listed.splitlines())


def test_export_writes_defaults_and_keeps_edits(repo: Path) -> None:
    snap = Snapshot.take(repo)
    out = run_gpte("preprompts", "export", cwd=repo)
    assert out.returncode == 0, out.stderr
    target = repo / ".gpte" / "preprompts"
    assert sorted(p.name for p in target.iterdir()) == sorted(NAMES)
    assert (target / "improve").read_text() == (ROOT / "preprompts" / "improve").read_text()
    (target / "improve").write_text("mine\n")
    again = run_gpte("preprompts", "export", cwd=repo)
    assert again.returncode == 0 and "kept" in again.stderr
    assert (target / "improve").read_text() == "mine\n"
    forced = run_gpte("preprompts", "export", "--force", cwd=repo)
    assert forced.returncode == 0 and (target / "improve").read_text() != "mine\n"
    # Only the new, untracked .gpte/ folder appears; index, HEAD and branches are untouched.
    status = subprocess.run(
        ["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True
    ).stdout
    assert status == "?? .gpte/\n"
    (repo / ".gpte").rename(repo.parent / "gpte-moved")
    snap.assert_unchanged(repo)


def test_export_to_a_directory_outside_a_repository(tmp_path: Path) -> None:
    out = run_gpte("preprompts", "export", "prompts", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "prompts" / "roadmap").is_file()
    bare = run_gpte("preprompts", "export", cwd=tmp_path)
    assert bare.returncode == 2 and "name a directory" in bare.stderr
    unknown = run_gpte("preprompts", "show", "nope", cwd=tmp_path)
    assert unknown.returncode == 2 and "no preprompt named 'nope'" in unknown.stderr


def test_wheel_ships_the_preprompts_inside_the_package(tmp_path: Path) -> None:
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        capture_output=True,
        text=True,
        timeout=240,
    )
    if built.returncode != 0:
        pytest.skip(f"cannot build a wheel here: {built.stderr[-300:]}")
    (wheel,) = tmp_path.glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in NAMES:
        assert f"git_gpte/preprompts/{name}" in names


def test_empty_overrides(repo: Path) -> None:
    override = repo / ".gpte" / "preprompts"
    override.mkdir(parents=True)
    # An empty philosophy leaves that part out, header and all.
    (override / "philosophy").write_text("")
    prompt = system_prompt("generate", repo)
    assert "Useful to know" not in prompt and "complete file" in prompt
    # An empty edit format would silently break every reply: refused, saying how to fix it.
    (override / "file_format_diff").write_text("\n")
    with pytest.raises(ConfigError) as info:
        system_prompt("improve", repo)
    assert "file_format_diff" in info.value.render() and "delete the file" in info.value.render()
    shown = run_gpte("preprompts", "show", "file_format_diff", cwd=repo)
    assert shown.returncode == 4 and "is empty" in shown.stderr
