"""The layers hold by check, not by memory: git is started only from ``git_gpte/git/``.

An AST scan of every module of the package: outside ``git_gpte/git/`` no call that starts a
process may name ``git`` as its program, nothing may import GitPython or the git layer's
private runner, and nothing may call a repository's private ``_git``/``_git_ok``. The import
contracts themselves (``lint-imports``) run in .ci/run and here.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "git_gpte"
GIT_LAYER = PACKAGE / "git"

# Callables that start a process, by the last part of their dotted name.
_SPAWNERS = {
    "run",
    "Popen",
    "call",
    "check_call",
    "check_output",
    "getoutput",
    "getstatusoutput",
    "system",
    "popen",
    "spawnlp",
    "spawnvp",
    "execvp",
    "execlp",
    "create_subprocess_exec",
    "create_subprocess_shell",
}


def _names_git(node: ast.expr) -> bool:
    """True when ``node`` (a call's program argument) is ``"git"``, ``"git ..."`` or a list
    or tuple whose first element is ``"git"``."""
    if isinstance(node, (ast.List, ast.Tuple)) and node.elts:
        node = node.elts[0]
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value == "git" or node.value.startswith("git ")
    if isinstance(node, ast.JoinedStr) and node.values:
        first = node.values[0]
        return (
            isinstance(first, ast.Constant)
            and isinstance(first.value, str)
            and (first.value == "git" or first.value.startswith("git "))
        )
    return False


def git_process_calls(source: str, filename: str) -> list[str]:
    """``file:line: what`` for each way ``source`` reaches git other than the git layer's API."""
    found = []
    tree = ast.parse(source, filename)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in _SPAWNERS and node.args and _names_git(node.args[0]):
                found.append(f"{filename}:{node.lineno}: starts git with {name}()")
            if name in ("_git", "_git_ok") and isinstance(func, ast.Attribute):
                found.append(f"{filename}:{node.lineno}: calls the git layer's private {name}()")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "git" or alias.name.startswith(("git.", "gitdb")):
                    found.append(f"{filename}:{node.lineno}: imports {alias.name}")
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level == 0 and (module == "git" or module.startswith(("git.", "gitdb"))):
                found.append(f"{filename}:{node.lineno}: imports from {module}")
            if module.endswith("_process") and "git" in module:
                found.append(f"{filename}:{node.lineno}: imports the git runner")
            if any(alias.name == "_process" for alias in node.names) and module.endswith("git"):
                found.append(f"{filename}:{node.lineno}: imports the git runner")
    return found


def test_no_module_outside_the_git_layer_starts_git() -> None:
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if GIT_LAYER in path.parents:
            continue
        rel = str(path.relative_to(PACKAGE.parent))
        offenders += git_process_calls(path.read_text(encoding="utf-8"), rel)
    assert offenders == [], "git reached outside git_gpte/git/:\n" + "\n".join(offenders)


def test_the_git_layer_itself_is_what_the_scan_finds() -> None:
    """The scan is not blind: the runner inside the git layer is exactly what it would flag."""
    runner = GIT_LAYER / "_process.py"
    assert git_process_calls(runner.read_text(encoding="utf-8"), "git/_process.py")


@pytest.mark.parametrize(
    "source",
    [
        "import subprocess\nsubprocess.run(['git', 'status'])\n",
        "from subprocess import Popen\nPopen(('git', 'log'), stdout=None)\n",
        "import os\nos.system('git push')\n",
        "import os\nos.system(f'git push {x}')\n",
        "import git\n",
        "from git import Repo\n",
        "from ..git._process import run\n",
        "from ..git import _process\n",
        "repo._git('status')\n",
    ],
)
def test_the_scan_flags_each_way_to_git(source: str) -> None:
    assert git_process_calls(source, "x.py")


def test_the_scan_leaves_other_programs_alone() -> None:
    source = (
        "import subprocess\nsubprocess.run(['docker', 'ps'])\n"
        "subprocess.run([sys.executable, '-c', 'pass'])\nfrom ..git import Repository\n"
    )
    assert git_process_calls(source, "x.py") == []


def test_import_contracts_are_kept() -> None:
    """The layer contracts in pyproject.toml (also run by .ci/run)."""
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    if exe is None:
        pytest.skip("import-linter is not installed (pip install -e '.[test]')")
    proc = subprocess.run(
        [exe, "--no-cache"],
        cwd=PACKAGE.parent,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]


def test_no_test_module_imports_another() -> None:
    """What tests share lives in tests/helpers/ (or conftest): a test module is never a library
    for another, so moving or deleting one breaks nothing else."""
    tests = Path(__file__).resolve().parent
    offenders = []
    for path in sorted(tests.rglob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            offenders += [
                f"{path.relative_to(tests)}: imports {name}"
                for name in names
                if name.split(".")[-1].startswith("test_")
            ]
    assert offenders == []
