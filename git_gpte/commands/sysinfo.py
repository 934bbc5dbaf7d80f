"""``git gpte sysinfo``: what a bug report needs, and never a secret.

Which providers are configured is reported by provider, naming the variables or git config
keys that are set; their values are only tested for being non-empty, never printed, and base
URLs are not shown either (they can carry credentials).
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
from collections.abc import Mapping
from importlib import metadata
from typing import Any

import click

from .. import __version__
from ..cli import AppContext
from ..llm.kinds import PROVIDER_KINDS

PACKAGES = (
    "click",
    "openai",
    "anthropic",
    "tiktoken",
    "pygithub",
    "rapidfuzz",
)

GITHUB = [("token", ("GITHUB_TOKEN", "GH_TOKEN"), None)]


def _needs() -> dict[str, list[tuple[str, tuple[str, ...], str | None]]]:
    """provider -> [(what it needs, environment variables, git config key)]: the provider
    table's rows as they are now (read at each call, not copied at import), and GitHub's.
    The first row is what makes a provider usable at all; the rest is detail."""
    return {
        **{name: list(kind.setup) for name, kind in PROVIDER_KINDS.items()},
        "github": list(GITHUB),
    }


def _docker_version() -> str:
    if shutil.which("docker") is None:
        return "not found"
    try:
        out = subprocess.run(
            ["docker", "--version"], capture_output=True, text=True, check=False, timeout=5
        )
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    text = out.stdout.strip().removeprefix("Docker version ")
    return text.split(",")[0] or "unknown"


def _package_version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def providers(environ: Mapping[str, str], git_config: Mapping[str, str]) -> dict[str, Any]:
    """Per provider: whether it is configured, and the names (never values) of what is set."""
    report: dict[str, Any] = {}
    for provider, needs in _needs().items():
        set_names: dict[str, list[str]] = {}
        for label, variables, key in needs:
            names = [name for name in variables if environ.get(name)]
            if key and git_config.get(key.lower()):
                names.append(f"git config {key}")
            if names:
                set_names[label] = names
        report[provider] = {
            "configured": bool(needs) and needs[0][0] in set_names,
            "set": sorted(name for names in set_names.values() for name in names),
        }
    # Azure also accepts OPENAI_API_KEY as its key.
    if report["azure"]["configured"] and environ.get("OPENAI_API_KEY"):
        report["azure"]["set"] = sorted({*report["azure"]["set"], "OPENAI_API_KEY"})
    return report


def collect(cwd: str | None = None) -> dict[str, Any]:
    """The report as data; values of secret variables are never read into it."""
    from ..feedback.hint import in_ci
    from ..git.config import git_version, inside_work_tree, read_gpte_config
    from ..llm.models import DEFAULT_MODEL

    where = cwd or os.getcwd()
    git_config = read_gpte_config(where)
    model = os.environ.get("MODEL_NAME") or git_config.get("gpte.model")
    feedback = git_config.get("gpte.feedback")
    return {
        "git-gpte": __version__,
        "os": f"{platform.system()} {platform.release()}",
        "machine": platform.machine(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "executable": sys.executable,
        "git": git_version(),
        "docker": _docker_version(),
        "packages": {name: _package_version(name) for name in PACKAGES},
        "providers": providers(os.environ, git_config),
        "model": model or f"{DEFAULT_MODEL} (default)",
        "ci": in_ci(),
        "in repository": inside_work_tree(where),
        "feedback": {"true": "on", "false": "off"}.get(
            (feedback or "").strip().lower(), "not asked"
        ),
    }


def _provider_line(data: dict[str, Any]) -> str:
    state = "configured" if data["configured"] else "not configured"
    return f"{state} ({', '.join(data['set'])})" if data["set"] else state


@click.command("sysinfo")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_obj
def command(app: AppContext, as_json: bool) -> int:
    """Print OS, Python, git and package versions, and which providers have keys set.

    For bug reports: keys, tokens and URLs are never printed, only the names of the
    variables (or git config keys) that are set.
    """
    info = collect(app.cwd)
    if as_json:
        click.echo(json.dumps(info, indent=2))
        return 0
    for key, value in info.items():
        if key == "providers":
            click.echo("providers:")
            for provider, data in value.items():
                click.echo(f"  {provider}: {_provider_line(data)}")
        elif isinstance(value, dict):
            click.echo(f"{key}:")
            for sub, version in value.items():
                click.echo(f"  {sub}: {version}")
        elif isinstance(value, bool):
            click.echo(f"{key}: {'yes' if value else 'no'}")
        else:
            click.echo(f"{key}: {value}")
    return 0
