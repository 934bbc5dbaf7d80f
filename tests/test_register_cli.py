"""A subcommand's handler written and never wired in: registered where its family is.

Seen with the 1.5B model on the own task inventory/categories-command: asked for a
``categories`` subcommand, it wrote ``cmd_categories`` and, in three answers running, never
put it in ``COMMANDS`` nor declared the subcommand; the result was refused each time.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import run_gpte
from tests.helpers.gitrepo import Snapshot, git, make_repo
from tests.helpers.llm_server import LLMServer, self_hosted_env

CLI = '''\
"""A tiny item list: python -m tool.cli COMMAND."""

import argparse
import sys

ITEMS = ["pen", "ink"]


def build_parser():
    parser = argparse.ArgumentParser(prog="tool")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list the items")
    sub.add_parser("first", help="print the first item")
    return parser


def cmd_list(args):
    for item in ITEMS:
        print(item)


def cmd_first(args):
    print(ITEMS[0])


COMMANDS = {
    "list": cmd_list,
    "first": cmd_first,
}


def main(argv=None):
    args = build_parser().parse_args(argv)
    COMMANDS[args.command](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
'''
TESTS = """\
from tool.cli import main


def test_list(capsys):
    assert main(["list"]) == 0
    assert capsys.readouterr().out.split() == ["pen", "ink"]
"""
REQUEST = "Add a `count` subcommand to the CLI in tool/cli.py that prints how many items there are."
# The handler alone, as the model wrote it.
ANSWER = """\
tool/cli.py
```python
def cmd_count(args):
    \"\"\"Print how many items there are.\"\"\"
    print(len(ITEMS))
```
"""


def test_a_handler_written_alone_is_registered_and_its_subcommand_declared(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    root = make_repo(
        tmp_path / "tool",
        {"tool/__init__.py": "", "tool/cli.py": CLI, "tests/test_cli.py": TESTS},
    )
    before = Snapshot.take(root)
    llm_server.queue(ANSWER)
    env = self_hosted_env(llm_server)
    done = run_gpte(
        "-v", "improve", REQUEST, "--no-probe", "--max-retries", "0", cwd=root, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr
    # The reply is taken for the whole file: what it left out is put back first, COMMANDS too
    # (read only by main, itself put back), and then the handler is registered in it.
    assert "left out: ITEMS, build_parser, cmd_list, cmd_first, main" in done.stderr
    assert "registered what was written and never wired in: cmd_count as 'count'" in done.stderr
    branch = git(root, "branch", "--list", "gpte/*").strip(" *\n")
    out = tmp_path / "out"
    subprocess.run(["git", "worktree", "add", "-q", str(out), branch], cwd=root, check=True)
    ran = subprocess.run(
        [sys.executable, "-m", "tool.cli", "count"], cwd=out, capture_output=True, text=True
    )
    assert (ran.returncode, ran.stdout) == (0, "2\n"), ran.stderr
    subprocess.run(["git", "worktree", "remove", "--force", str(out)], cwd=root, check=True)
    before.assert_unchanged(root, new_branches=(branch,))
