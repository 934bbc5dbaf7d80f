"""Other forms of a request's words (``validation`` -> ``validate``) found in the index."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from git_gpte.context.index import ensure_indexed, list_candidates
from git_gpte.context.related import prefix_of, widen
from git_gpte.context.request import analyse_request
from git_gpte.context.store import IndexStore
from git_gpte.git import Repository
from tests.conftest import run_gpte
from tests.helpers.gitrepo import make_repo

VOCABULARY = sorted(
    ["valid", "validate", "validator", "value", "complet", "complete", "remov", "remove"]
)

FILES = {
    "forms/check.py": (
        '"""Checks on what a user types into the sign-up form."""\n\n'
        "import re\n\n"
        '_PATTERN = re.compile(r"^[^@\\s]+@[^@\\s]+\\.[a-z]+$")\n\n\n'
        "def validate_address(text):\n"
        '    """Whether the text looks like an address one can write to."""\n'
        "    return bool(_PATTERN.match(text))\n\n\n"
        "def validate_name(text):\n"
        "    return 0 < len(text.strip()) <= 80\n"
    ),
    "mail/send.py": (
        '"""Sending email: the email body, the email headers, the email queue."""\n\n\n'
        "def email_body(user, text):\n"
        '    return f"Hello {user},\\n\\n{text}\\n"\n\n\n'
        "def email_headers(user, subject):\n"
        '    return {"To": user, "Subject": subject}\n\n\n'
        "def queue_email(queue, user, subject, text):\n"
        "    queue.append((email_headers(user, subject), email_body(user, text)))\n"
    ),
}


def _terms_from(prefix: str) -> Iterable[str]:
    return [t for t in VOCABULARY if t.startswith(prefix)]


def test_a_word_brings_the_forms_the_repository_holds_at_a_discount() -> None:
    query = analyse_request("Email validation of the form\n\nremove the old checks")
    wide = widen(query, _terms_from, 0.2)
    added = wide.terms[len(query.terms) :]
    assert set(added) == {"valid", "validate", "validator"}  # not "value" nor "complete"
    assert wide.weights["validate"] == 0.2 * query.weights["validation"]
    assert wide.words["validate"] == "validation"  # reasons speak the request's own word
    # a word of the body brings no forms: "remove" does not bring "remov" ("removed")
    assert "remov" not in wide.weights
    assert "remov" in widen(analyse_request("remove the old checks"), _terms_from, 0.2).weights
    assert widen(query, _terms_from, 0.0) is query


def test_short_or_compound_terms_bring_nothing() -> None:
    assert prefix_of("pars") is None  # Snowball's "par": too short to be one word's forms
    assert prefix_of("parse_header") is None
    assert prefix_of("happy") == "happ"  # "happi" reaches "happy" too


def test_the_index_lists_its_terms_by_prefix(tmp_path: Path) -> None:
    repo = Repository.discover(make_repo(tmp_path / "r", FILES))
    files = list_candidates(repo, repo.resolve_commit("HEAD")).files
    store = IndexStore(repo.state_dir())
    try:
        ensure_indexed(repo, store, files)
        assert store.terms_from("valid") == ["validate", "validate_address", "validate_name"]
        assert store.terms_from("valid", limit=2) == ["validate", "validate_address"]
        assert store.terms_from("zzz") == []
    finally:
        store.close()


def test_the_cli_finds_the_code_in_another_form_of_the_requests_word(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "r", FILES)
    request = "Email validation accepts addresses with spaces"
    res = run_gpte("context", "--format", "lines", "--tokens", "150", request, cwd=root)
    assert res.returncode == 0, res.stderr
    # "email" is mail/send.py's word many times over; "validate" is the checks'
    assert res.stdout.split()[0] == "forms/check.py"
