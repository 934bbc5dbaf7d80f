"""``git gpte sysinfo``: versions for a bug report, providers by name, and never a secret."""

from __future__ import annotations

import json
import platform
from pathlib import Path

from git_gpte import __version__
from tests.conftest import run_gpte
from tests.helpers.gitrepo import git, make_repo

SECRET = "sk-test-secret-value-123"
URL = "https://user:hunter2@llm.internal.example/v1"


def sysinfo(cwd: Path, *args: str, env: dict[str, str] | None = None) -> tuple[str, str]:
    result = run_gpte("sysinfo", *args, cwd=cwd, env=env)
    assert result.returncode == 0, result.stderr
    return result.stdout, result.stderr


def test_versions_and_packages(tmp_path: Path) -> None:
    out, _ = sysinfo(tmp_path, "--json")
    info = json.loads(out)
    assert info["git-gpte"] == __version__
    assert info["python"].endswith(platform.python_version())
    assert info["machine"] == platform.machine()
    assert info["git"][0].isdigit()
    for name in ("click", "openai", "anthropic", "tiktoken", "pygithub"):
        assert info["packages"][name][0].isdigit(), name
    assert info["in repository"] is False and info["feedback"] == "not asked"


def test_providers_named_never_their_keys(tmp_path: Path) -> None:
    env = {
        "OPENAI_API_KEY": SECRET,
        "ANTHROPIC_API_KEY": SECRET + "-anthropic",
        "OPENAI_BASE_URL": URL,
        "GITHUB_TOKEN": SECRET + "-gh",
    }
    text, err = sysinfo(tmp_path, env=env)
    as_json, _ = sysinfo(tmp_path, "--json", env=env)
    for output in (text, err, as_json):
        assert SECRET not in output and "hunter2" not in output and "llm.internal" not in output
    assert "  openai: configured (OPENAI_API_KEY)" in text
    assert "  anthropic: configured (ANTHROPIC_API_KEY)" in text
    assert "  azure: not configured" in text
    assert "  openai-compatible: configured (OPENAI_BASE_URL)" in text
    assert "  github: configured (GITHUB_TOKEN)" in text
    providers = json.loads(as_json)["providers"]
    assert providers["openai"] == {"configured": True, "set": ["OPENAI_API_KEY"]}
    assert providers["azure"]["configured"] is False


def test_nothing_configured_and_git_config_keys(tmp_path: Path) -> None:
    text, _ = sysinfo(tmp_path)
    for provider in ("openai", "anthropic", "azure", "openai-compatible", "github"):
        assert f"  {provider}: not configured" in text
    repo = make_repo(tmp_path / "repo", {"a.txt": "a\n"})
    git(repo, "config", "gpte.azureEndpoint", URL)
    git(repo, "config", "gpte.model", "gpt-4o-mini")
    git(repo, "config", "gpte.feedback", "false")
    info = json.loads(sysinfo(repo, "--json", env={"AZURE_OPENAI_API_KEY": SECRET})[0])
    assert info["providers"]["azure"] == {
        "configured": True,
        "set": ["AZURE_OPENAI_API_KEY", "git config gpte.azureEndpoint"],
    }
    assert info["model"] == "gpt-4o-mini" and info["feedback"] == "off"
    assert info["in repository"] is True
    assert SECRET not in json.dumps(info) and "hunter2" not in json.dumps(info)


def test_sysinfo_inside_a_repository_leaves_it_untouched(tmp_path: Path) -> None:
    from tests.helpers.gitrepo import Snapshot, write_files

    repo = make_repo(tmp_path / "r", {"a.py": "x = 1\n"})
    write_files(repo, {"a.py": "x = 2\n"})
    before = Snapshot.take(repo)
    sysinfo(repo)
    sysinfo(repo, "--json")
    before.assert_unchanged(repo)
