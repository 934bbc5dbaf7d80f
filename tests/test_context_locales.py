"""A request naming a human language finds the files of that language's locale."""

from __future__ import annotations

from pathlib import Path

import pytest

from git_gpte.context.locales import locale_codes
from git_gpte.context.request import analyse_request
from tests.helpers.context_cli import holds, sent
from tests.helpers.gitrepo import make_repo
from tests.helpers.tables import LANGUAGES, line_of, translations


@pytest.mark.parametrize(
    ("request_text", "codes"),
    [
        ("fix russian E.164 error message", ["ru"]),
        ("Add translation in English/Chinese/Chinese Taiwan", ["en", "zh", "cn", "tw"]),
        ("Fix Polish plural forms", ["pl"]),
        ("polish locale: add months", ["pl"]),
        ("Promote stable, polish docs", []),
        ("Add Italian locale", []),  # "it" is a stopword: never an index term
        ("Add a retry option", []),
    ],
)
def test_a_language_named_brings_its_locale_codes(request_text: str, codes: list[str]) -> None:
    assert locale_codes(request_text) == codes


def test_the_locale_codes_weigh_as_the_words_naming_them() -> None:
    query = analyse_request("Fix the error messages\n\n* fix russian E.164 message")
    assert "ru" in query.terms and query.weights["ru"] == query.weights["russian"] < 1.0
    assert analyse_request("fix russian message").weights["ru"] == 1.0


def test_fix_a_languages_message_sends_that_locales_entry(tmp_path: Path) -> None:
    files = {f"translations/{lang}/{lang}.go": translations(lang, 120) for lang in LANGUAGES}
    files["translations/translations.go"] = (
        "package translations\n\n// Register is what every locale's registration looks like.\n"
        "type Register func(tag, text string)\n"
    )
    repo = make_repo(tmp_path / "r", files)
    text = files["translations/ru/ru.go"]
    line = line_of(text, '\t\t\ttranslation: "{0} must be an E.164 number",')
    entries = sent(repo, "fix russian E.164 error message", 600)
    assert holds(entries, "translations/ru/ru.go", line), entries
