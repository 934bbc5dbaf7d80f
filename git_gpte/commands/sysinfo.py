"""``git gpte sysinfo``: what a bug report needs, and never a secret.

Reports which providers have keys configured by naming the variables that are set, never their
values.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from importlib import metadata

import click

from .. import __version__

PACKAGES = ("click", "gitpython", "openai", "anthropic", "tiktoken", "pygithub", "rapidfuzz")
KEY_VARIABLES = (
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "AZURE_OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_API_BASE",
    "ANTHROPIC_BASE_URL",
    "AZURE_OPENAI_ENDPOINT",
    "LOCAL_MODEL",
    "MODEL_NAME",
    "GITHUB_TOKEN",
)


def _git_version() -> str:
    try:
        out = subprocess.run(["git", "--version"], capture_output=True, text=True, check=False)
    except OSError:
        return "not found"
    return out.stdout.strip().removeprefix("git version ") or "unknown"


def _package_version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def collect() -> dict[str, object]:
    """The report as data; values of secret variables are never read into it."""
    return {
        "git-gpte": __version__,
        "os": f"{platform.system()} {platform.release()}",
        "machine": platform.machine(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "executable": sys.executable,
        "git": _git_version(),
        "packages": {name: _package_version(name) for name in PACKAGES},
        "configured": sorted(name for name in KEY_VARIABLES if os.environ.get(name)),
    }


@click.command("sysinfo")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def command(as_json: bool) -> int:
    """Print OS, Python, git and package versions, and which keys are set (never their values)."""
    info = collect()
    if as_json:
        click.echo(json.dumps(info, indent=2))
        return 0
    for key, value in info.items():
        if isinstance(value, dict):
            click.echo(f"{key}:")
            for sub, version in value.items():
                click.echo(f"  {sub}: {version}")
        elif isinstance(value, list):
            click.echo(f"{key}: {', '.join(value) if value else 'none'}")
        else:
            click.echo(f"{key}: {value}")
    return 0
