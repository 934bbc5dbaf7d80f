"""Which files improve sends: pathspecs, binaries, secrets, size, .gpteignore, prompts text."""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from git_gpte.context.secret_files import (
    SECRET_RULES,
    SecretRule,
    looks_secret,
    secret_rule_for,
)
from git_gpte.errors import UsageError
from git_gpte.git import Repository
from git_gpte.pipeline.selection import select_files, to_top_pathspecs
from git_gpte.prompts.messages import improve_user_message, numbered, render_file
from tests.helpers.gitrepo import make_repo


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_repo(
        tmp_path / "p",
        {
            "src/app.py": "print('app')\n",
            "src/util.py": "X = 1\n",
            "docs/guide.md": "# guide\n",
            "logo.png": b"\x89PNG\r\n\x1a\n\0\0",
            ".env": "OPENAI_API_KEY=sk-secret\n",
            "deploy/server.pem": "-----BEGIN-----\n",
            "big.txt": "x" * 300_000,
            "latin1.txt": "caf\xe9\n".encode("latin-1"),
            "gen/generated.py": "# generated\n",
        },
    )


def _select(root: Path, *specs: str) -> tuple[dict[str, str], dict[str, str]]:
    repo = Repository.discover(root)
    sel = select_files(repo, repo.resolve_commit("HEAD"), specs)
    return sel.files, sel.skipped


def test_default_selection_leaves_out_what_must_not_be_sent(project: Path) -> None:
    files, skipped = _select(project)
    assert sorted(files) == ["docs/guide.md", "gen/generated.py", "src/app.py", "src/util.py"]
    assert skipped["logo.png"] == "binary or not UTF-8"
    assert skipped["latin1.txt"] == "binary or not UTF-8"
    assert "secret" in skipped[".env"] and "secret" in skipped["deploy/server.pem"]
    assert "limit" in skipped["big.txt"]


def test_pathspecs_with_globs_and_exclude(project: Path) -> None:
    files, _ = _select(project, "src/*.py")
    assert sorted(files) == ["src/app.py", "src/util.py"]
    files, _ = _select(project, ".", ":(exclude)docs")
    assert "docs/guide.md" not in files and "src/app.py" in files


def test_named_secret_and_big_files_are_sent_but_never_binaries(project: Path) -> None:
    files, _ = _select(project, ".env", "big.txt")
    assert sorted(files) == [".env", "big.txt"]
    with pytest.raises(UsageError, match=r"no file left to send \(logo.png: binary"):
        _select(project, "logo.png")


def test_unmatched_pathspec_is_an_error(project: Path) -> None:
    with pytest.raises(UsageError, match="did not match"):
        _select(project, "nope/*.rs")


def test_gpteignore_excludes_more(project: Path) -> None:
    (project / ".gpteignore").write_text("gen/\n*.md\n")
    files, skipped = _select(project)
    assert sorted(files) == ["src/app.py", "src/util.py"]
    assert skipped["gen/generated.py"] == "excluded by .gpteignore"


def test_pathspecs_relative_to_a_subdirectory(project: Path) -> None:
    repo = Repository.discover(project)
    assert to_top_pathspecs(repo, str(project / "src"), ["app.py", ":(top)docs"]) == [
        "src/app.py",
        ":(top)docs",
    ]


def test_secret_names() -> None:
    for name in (".env", ".env.local", "a/id_rsa", "id_ed25519.pub", "x/credentials.json"):
        assert looks_secret(name), name
    for name in ("environment.py", "identity.py", "keys.py", "src/env.py"):
        assert not looks_secret(name), name


def _first_rule_by_glob(path: str) -> SecretRule | None:
    """The rule table read literally: each rule in order, one glob at a time."""
    parts = path.lower().split("/")
    for rule in SECRET_RULES:
        depth = rule.pattern.count("/") + 1
        tail = "/".join(parts[-depth:])
        if len(parts) >= depth and fnmatch.fnmatchcase(tail, rule.pattern.lower()):
            return rule
    return None


_PIECES = [
    *sorted({p for r in SECRET_RULES for p in re.split(r"[*/]", r.pattern) if p}),
    "src",
    "app.py",
    "x",
    "Prod",
]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=3), min_size=1, max_size=4))
def test_secret_rules_match_as_the_table_reads(components: list[list[str]]) -> None:
    # The rules run as one compiled pattern per depth; the first rule that matches must be the
    # one a reader of the table finds going down it.
    path = "/".join("".join(c) for c in components)
    assert secret_rule_for(path) == _first_rule_by_glob(path)


def test_line_numbered_rendering() -> None:
    assert numbered("a\nb\n") == "1 a\n2 b"
    assert render_file("x.py", "") == "File: x.py (empty file)\n```\n\n```"
    body = render_file("x.md", "```py\ncode\n```\n")
    assert body.startswith("File: x.md\n````\n") and body.endswith("\n````")
    message = improve_user_message({"a.py": "x = 1\n"}, "  add logging ")
    assert message.index("File: a.py") < message.index("Request:\nadd logging")


def test_secret_rules_by_path_and_name() -> None:
    for path in (
        ".git-credentials",
        "home/.aws/credentials",
        "x/.docker/config.json",
        "vault.KDBX",
        "web/.htpasswd",
        "k/.kube/config",
        "prod.tfstate",
        "app-service-account.json",
    ):
        assert looks_secret(path), path
    for path in ("my.aws/config", "docker/config.json", "kube/config", "config.json"):
        assert not looks_secret(path), path


def test_every_secret_rule_is_in_the_docs_table() -> None:
    from git_gpte.context.secret_files import CONTENT_RULES, SECRET_RULES

    docs = Path(__file__).resolve().parents[1] / "docs" / "context.md"
    text = docs.read_text(encoding="utf-8")
    table = text[text.index("| file name or path | usually holds |") :]
    table = table[: table.index("\n\n")]
    for rule in SECRET_RULES:
        row = next(line for line in table.splitlines() if f"`{rule.pattern}`" in line)
        assert row.endswith(f"| {rule.holds} |"), rule.pattern
    for what, _ in CONTENT_RULES:
        assert f"| any file whose text holds {what} |" in table
