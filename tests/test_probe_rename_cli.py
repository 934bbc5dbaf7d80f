"""A plain rename is not probed: the checks of names and the tests judge it."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run_gpte
from tests.helpers.gitrepo import git, make_repo
from tests.helpers.llm_server import LLMServer, self_hosted_env

CODEC = "def bytes_to_int(data):\n    return int.from_bytes(data, 'big')\n"
USER = "from codec import bytes_to_int\n\n\ndef stamp(data):\n    return bytes_to_int(data)\n"
REQUEST = "Rename bytes_to_int in codec.py to int_from_bytes and update every use"
# Seen on itsdangerous: a guess at behaviour, which the rename leaves as it was.
PROBE = "```python\nfrom codec import int_from_bytes\n\nassert int_from_bytes(b'123') == 123\n```\n"


def test_a_rename_is_not_probed(tmp_path: Path, llm_server: LLMServer) -> None:
    root = make_repo(tmp_path / "r", {"codec.py": CODEC, "user.py": USER})
    renamed = {
        p: t.replace("bytes_to_int", "int_from_bytes")
        for p, t in (("codec.py", CODEC), ("user.py", USER))
    }
    answer = "".join(f"{p}\n```python\n{t}```\n\n" for p, t in renamed.items())
    llm_server.queue(answer, PROBE)
    done = run_gpte("improve", REQUEST, cwd=root, env=self_hosted_env(llm_server, GPTE_PROBE=""))
    assert done.returncode == 0, done.stderr
    assert "not probing a rename: the checks of names and the tests judge it" in done.stderr
    assert len(llm_server.requests) == 1
    branch = git(root, "branch", "--list", "gpte/*").strip(" *\n")
    assert git(root, "show", f"{branch}:codec.py") == renamed["codec.py"]
    # the import the answer renamed, not imported twice after the rename was completed
    assert git(root, "show", f"{branch}:user.py") == renamed["user.py"]
