"""Code-aware terms: how identifiers and requests are split into words."""

from __future__ import annotations

import pytest

from git_gpte.context.terms import query_terms, split_identifier


@pytest.mark.parametrize(
    ("ident", "words"),
    [
        ("parse_header_links", ["parse", "header", "links"]),
        ("parseHeaderLinks", ["parse", "header", "links"]),
        ("HTTPServer", ["http", "server"]),
        ("XMLHttpRequest", ["xml", "http", "request"]),
        ("URLs", ["urls"]),
        ("getURLs", ["get", "urls"]),
        ("APIsFor", ["apis", "for"]),
        ("OSError", ["os", "error"]),
        ("CONSTANTS", ["constants"]),
        ("utf8", ["utf", "8"]),
    ],
)
def test_identifiers_split_as_programmers_read_them(ident: str, words: list[str]) -> None:
    assert split_identifier(ident) == words


def test_a_request_about_urls_matches_code_about_url() -> None:
    # an acronym's plural must not fall apart into "ur" + "ls"
    assert query_terms("Add project URLs") == ["add", "project", "url"]
    assert "url" in query_terms("def build_url(self, urls): ...")
