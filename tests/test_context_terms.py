"""Code-aware terms: how identifiers and requests are split into words."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from git_gpte.context.rank_signals import name_probes
from git_gpte.context.terms import identifier_terms, query_terms, split_identifier
from tests.conftest import run_gpte
from tests.helpers.gitrepo import make_repo


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


PATHS = [
    "src/httpx/_transports/default.py",
    "pkg/Entries/ConfigLoaderTests.java",
    "lib/utils/__init__.py",
    "docs/api/Queries.md",
    "internal/mux/route_regexp_test.go",
    "a/b/c/parseHTTPHeaders.ts",
    "vendor/github.com/pkg/errors/errors.go",
    "x.py",
    "Makefile",
    "web/static/app.min.js",
]


@pytest.mark.parametrize(
    "request_text",
    ["retry the transport by default", "entries of the config loader", "parse http headers",
     "route regexp test errors", "init utils queries", "make app"],
)  # fmt: skip
def test_path_terms_found_through_heads_are_the_paths_own(request_text: str) -> None:
    # The ranking splits only paths holding a request term's first letters, with each path's
    # number of terms kept with the listing: the same counts as splitting every path.
    from collections import Counter

    from git_gpte.context.index import Candidate
    from git_gpte.context.path_facts import path_facts
    from git_gpte.context.rank_signals import _path_terms
    from git_gpte.context.terms import path_terms

    wanted = set(query_terms(request_text))
    for known in (True, False):
        files = [Candidate(p, "0" * 40, 10, known=path_facts(p) if known else None) for p in PATHS]
        counts = _path_terms(files, wanted)
        for candidate in files:
            path = candidate.path
            terms = path_terms(path)
            assert candidate.facts.length == len(terms)
            hits = Counter(t for t in terms if t in wanted)
            assert counts.get(path, {}) == dict(hits)
    if request_text.startswith("retry"):
        assert counts["src/httpx/_transports/default.py"] == {"transport": 1, "default": 1}


def test_a_file_name_in_camel_case_is_split_as_an_identifier() -> None:
    from git_gpte.context.terms import path_terms

    assert path_terms("lib/core/transformData.js") == [
        "lib", "core", "transform", "data", "transformdata",
    ]  # fmt: skip
    assert {"zod", "error"} <= set(path_terms("src/ZodError.ts"))
    assert path_terms("src/marshmallow/fields.py") == ["src", "marshmallow", "field"]


def test_a_request_finds_a_camel_case_file_by_the_words_of_its_name(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "r",
        {
            "lib/transformData.js": "module.exports = function apply(fns, value) {\n"
            "  return fns.reduce((v, f) => f(v), value);\n};\n",
            "lib/helpers.js": "function noop() {}\nmodule.exports = { noop };\n",
        },
    )
    done = run_gpte("context", "--json", "--tokens", "4000", "Let transform skip nulls", cwd=repo)
    assert done.returncode == 0, done.stderr
    picks = json.loads(done.stdout)["picks"]
    assert picks[0]["path"] == "lib/transformData.js"
    assert any("transform" in reason for reason in picks[0]["reasons"])


_WORD_PARTS = ["pars", "ing", "polic", "ies", "es", "ed", "s", "HTTP", "Server", "x", "2", "_", "y"]


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.sampled_from(_WORD_PARTS), min_size=1, max_size=6))
def test_a_name_holding_no_probe_has_none_of_the_terms(parts: list[str]) -> None:
    # Chunk names are split only when they hold a probe of a request term (rank_signals.
    # name_probes): every term an identifier splits into must hold its probe, or its chunk
    # would lose the bonus of its own name.
    ident = "".join(parts)
    terms = identifier_terms(ident)
    for term, probe in zip(terms, name_probes(terms), strict=True):
        assert probe in ident.lower(), (ident, term)


@pytest.mark.parametrize(
    ("request_text", "joined", "absent"),
    [
        ("Tighten E.164 regex", "e164", ()),
        ("Fixing response with utf-8 BOM", "utf8", ()),
        ("Parse ISO-8601 dates.", "iso8601", ()),
        ("fix russian E.164.", "e164", ()),
        # A version's parts, a path's or an address's are not a name and a number.
        ("chore(release): v1.7.0-beta.2", None, ("beta2",)),
        ("see https://example.com/issues/254", None, ("issues254", "issue254")),
    ],
)
def test_a_name_and_a_number_written_apart_are_also_one_term(
    request_text: str, joined: str | None, absent: tuple[str, ...]
) -> None:
    terms = query_terms(request_text)
    assert joined is None or joined in terms, terms
    assert not set(absent) & set(terms), terms


def test_a_request_naming_e_164_finds_the_e164_pattern(tmp_path: Path) -> None:
    # Seen on zod: "Tighten E.164 regex in regexes.ts to require a non-zero leading digit"
    # changed ``export const e164 = ...``, the 49th chunk of the file it named: "E.164" gave no
    # term at all ("E" is one letter, "164" a number).
    patterns = [
        f"/** Matches a format of kind {n}. */\nexport const kind{n} = /^[a-z]{{{n}}}$/;\n"
        for n in range(1, 60)
    ]
    e164 = "/** Phone numbers. */\nexport const e164 = /^\\+(?:[0-9]){6,14}[0-9]$/;\n"
    patterns.insert(30, e164)
    repo = make_repo(tmp_path / "r", {"src/regexes.ts": "\n".join(patterns)})
    done = run_gpte(
        "context", "--format", "lines", "--tokens", "400", "Tighten E.164 regex", cwd=repo
    )
    assert done.returncode == 0, done.stderr
    text = (repo / "src/regexes.ts").read_text()
    line = text.splitlines().index("export const e164 = /^\\+(?:[0-9]){6,14}[0-9]$/;") + 1
    spans = [e.split(":")[1].split("-") for e in done.stdout.split() if ":" in e]
    assert any(int(a) <= line <= int(b) for a, b in spans), (line, done.stdout)


def test_a_links_scheme_and_host_are_no_terms_its_path_is() -> None:
    from git_gpte.context.request import analyse_request, without_hosts

    request = (
        "support Private Network Access spec\n\nBased on [this blog]"
        "(https://developer.chrome.com/blog/private-network-access-preflight) and "
        "www.w3.org/TR/fetch-metadata, see http://localhost:8080?x=1"
    )
    assert "developer.chrome.com" not in without_hosts(request)
    terms = set(analyse_request(request).terms)
    assert {"preflight", "blog", "tr", "fetch", "metadata"} <= terms
    assert not {"https", "http", "developer", "chrome", "com", "www", "w3", "localhost"} & terms


def test_a_links_host_does_not_lift_module_files(tmp_path: Path) -> None:
    # Seen on rs/cors: "https", "github" and "com" of the links in a request's body matched
    # every go.mod, which went whole before the module the request was about.
    module = "".join(
        f"// handle{n} answers a preflight request, case {n}.\n"
        f"func handle{n}(w ResponseWriter, r *Request) {{\n\tw.WriteHeader({n})\n}}\n\n"
        for n in range(40)
    )
    mods = {
        f"wrapper/{name}/go.mod": f"module github.com/acme/cors/wrapper/{name}\n\n"
        "require (\n\tgithub.com/acme/cors v1.0.0\n\tgithub.com/other/thing v1.2.0\n)\n"
        for name in ("gin", "echo", "chi")
    }
    repo = make_repo(tmp_path / "r", {"cors.go": "package cors\n\n" + module, **mods})
    request = (
        "Support the preflight of private network access\n\n"
        "See https://github.com/whatwg/fetch and https://developer.chrome.com/blog/pna"
    )
    done = run_gpte("context", "--json", "--tokens", "4000", request, cwd=repo)
    assert done.returncode == 0, done.stderr
    picks = json.loads(done.stdout)["picks"]
    assert picks[0]["path"] == "cors.go"
    assert [p["score"] for p in picks if p["path"].endswith("go.mod")] == [0, 0, 0], picks
