"""What a request says, as the ranking reads it: its terms, and the identifiers and paths it
names. Pure functions of the request's text."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .locales import locale_codes
from .terms import STOPWORDS, query_terms, request_words
from .weights import WEIGHTS, Weights

# Each alternative starts only where a run of its characters starts: tried inside the run too,
# a 100,000-character word pasted as a request took minutes (each start scanned to its end).
_PATHLIKE = re.compile(r"(?<![\w./\\-])[\w./\\-]*\w\.\w{1,5}\b|(?<![\w-])[\w-]+(?:/[\w.-]+)+")
# A request naming more files than this (a pasted listing, a log) names its first ones: each
# is tried against every path (50,000 names took 12 s on a repository of 60 files), and a path
# or module name longer than MAX_MENTION_CHARS is no file's (its dotted parts are each tried as
# a module: a 20,000-character "a.a.a..." took minutes).
MAX_MENTIONS = 64
MAX_MENTION_CHARS = 256
_DOTTED = re.compile(r"\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\b")
_CODEISH = re.compile(r"[a-z][A-Z]|_|\d|^[A-Z][a-z]+[A-Z]")
_BACKTICK = re.compile(r"`([^`]+)`")
# A scheme is short: unbounded, each word of a long run ("a-a-a-...") was a start scanned to
# the run's end for a "://".
_URL_START = r"\b(?:[a-z][a-z0-9+.-]{0,31}://|www\.)"
_URL = re.compile(_URL_START + r"[^\s<>`'\")\]]+", re.IGNORECASE)
_URL_HOST = re.compile(_URL_START + r"[^\s<>`'\")\]/]*", re.IGNORECASE)  # up to its path
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\()?")


@dataclass(frozen=True)
class Query:
    """A request as the ranking reads it."""

    terms: tuple[str, ...]
    weights: dict[str, float]  # the title's words count fully, the body's less
    strong_idents: frozenset[str]
    weak_idents: frozenset[str]
    path_mentions: tuple[str, ...]
    # How much the request asks for tests, prose, configuration: 1 when its first line
    # does; when only the lines below do (a squashed commit's "* add tests"), as much as
    # the words there count (``Weights.body_term``); else 0.
    wants_tests: float
    wants_prose: float
    wants_config: float = 0.0
    wants_types: float = 0.0  # ... for type stubs and declarations
    words: dict[str, str] = field(default_factory=dict)  # term -> the request's own word
    names_version: bool = False  # its first line names a version number ("prep for 0.8")


# Words of a request about configuration, build or CI rather than code (terms as query_terms
# gives them: singular, lower case).
_CONFIG_WORDS = frozenset(
    {
        "config", "configuration", "configure", "setting", "ci", "workflow", "dependency",
        "docker", "dockerfile", "makefile", "lint", "linter", "pyproject", "toml", "yaml", "yml",
        "tox", "eslint", "tsconfig", "gomod", "build",
    }
)  # fmt: skip

# Words of a request about types, which stubs and declarations state.
_TYPE_WORDS = frozenset(
    {
        "type", "typing", "typed", "typings", "stub", "annotation", "declaration", "dts", "pyi",
        "tsd", "mypy", "pyright", "typescript",
    }
)  # fmt: skip

# A version number ("prep for 0.8", "Release 2.4.2", "This is 4.0-dev").
# Its pre-release or development suffix may follow a dot or a dash (PEP 440's "1.9.10.dev0").
_VERSION = re.compile(
    r"(?<![\w.])v?\d+\.\d+(?:\.\d+)*(?:[.-]?(?:dev|post)\d*|\.?(?:a|b|rc)\d+)?(?![\w.])"
)

# Words of a request about tests, and about documentation.
_TEST_WORDS = frozenset({"test", "tests", "pytest", "unittest", "spec"})
_PROSE_WORDS = frozenset({"doc", "docs", "readme", "changelog", "documentation"})
# ... said as words of their own: "JSDoc", "GoDocs", "tsdocs" and `doc_id` hold "doc" when
# split as identifiers are, but are comments of the code and a name in it, not prose files
# ("Fix typo in JSDoc" sent `HISTORY.md` and `README.md` whole before `index.js`).
_WORD = re.compile(r"[A-Za-z0-9_]+")


# A release or a bump said without a number: "Bump dev version", "bump revision number",
# "- bump version num", "bump for development", "Start new development cycle" at the start of
# the line (not "bump mypy version": a dependency's); anywhere in it, a change of the version
# or a release's preparation: "Blacken and update version time", "fix: updated version in
# the fastify.js", "version bump for pypi release", "Prep for release", "bumping for release"
# (not "Update go version" or "update version of ruff": another program's).
_RELEASE_PHRASE = re.compile(
    r"^\W*(?:bump(?:ed)?\s+(?:(?:the\s+)?(?:dev(?:elopment)?\s+)?(?:version|revision)\b"
    r"|for\s+dev(?:elopment)?\b)|start\s+(?:a\s+)?new\s+(?:release|dev(?:elopment)?)\s+cycle\b)",
    re.IGNORECASE,
)
_RELEASE_WORDS = re.compile(
    r"\b(?:(?:bump|update|increment|increase|set)(?:s|d|ed|ing)?\s+(?:the\s+)?"
    r"(?:docs?\s+|dev(?:elopment)?\s+|package\s+)?version\b(?!\s+of\b)"
    r"|version\s+bump"
    r"|(?:prep(?:are[ds]?|aring)?|bump(?:ed|ing)?)\s+for\s+(?:the\s+|a\s+)?(?:next\s+|new\s+)?"
    r"release\b)",
    re.IGNORECASE,
)


def names_version(text: str) -> bool:
    """The text's first line names a version number or a release: a release, a bump, a
    version's compatibility ("prep for 0.8", "Version 1.3.3 placeholder", "Bump x from 2.1 to
    2.2", "Bump dev version", "Start new development cycle")."""
    lines = text.strip().splitlines()
    if not lines:
        return False
    return (
        _VERSION.search(lines[0]) is not None
        or _RELEASE_PHRASE.match(lines[0]) is not None
        or _RELEASE_WORDS.search(lines[0]) is not None
    )


def _words(text: str) -> set[str]:
    """The text's words as written (lower case), not split at case changes or underscores."""
    return {word.lower() for word in _WORD.findall(text)}


def _asks(title: set[str], terms: set[str], words: frozenset[str], weights: Weights) -> float:
    """How much the request asks for a kind of file named by ``words``."""
    if title & words:
        return 1.0
    return weights.body_term if terms & words else 0.0


def without_hosts(request: str) -> str:
    """The request with each link's scheme and host left out, its path kept: a link's host
    names a site ("https://developer.chrome.com/blog/private-network-access-preflight"): in
    rs/cors "https", "github" and "com" matched every ``go.mod``, which went whole ahead of the
    excerpts of ``cors.go``. The path says what the link is about, and stays."""
    return _URL_HOST.sub(" ", request)


def analyse_request(request: str, weights: Weights = WEIGHTS) -> Query:
    """What the request says: its terms, the identifiers and paths it names."""
    worded = without_hosts(request)
    strong, weak = _named_identifiers(worded)
    terms = query_terms(worded)
    lowered = set(terms)
    lines = [line for line in worded.strip().splitlines() if line.strip()]
    first = lines[0] if lines else ""
    title = set(query_terms(first)) if len(lines) > 1 else lowered
    term_weights = {t: 1.0 if t in title else weights.body_term for t in terms}
    for code, weight in _locale_terms(lines, weights).items():
        if code not in term_weights:
            terms.append(code)
            term_weights[code] = weight
    version = names_version(request)
    if weights.version_term and "version" not in term_weights and version:
        terms.append("version")
        term_weights["version"] = weights.version_term
    return Query(
        terms=tuple(terms),
        weights=term_weights,
        strong_idents=frozenset(strong),
        weak_idents=frozenset(weak - strong),
        path_mentions=_path_mentions(request),
        wants_tests=_asks(title, lowered, _TEST_WORDS, weights),
        wants_prose=_asks(_words(first), _words(worded), _PROSE_WORDS, weights),
        wants_config=_asks(title, lowered, _CONFIG_WORDS, weights),
        wants_types=_asks(title, lowered, _TYPE_WORDS, weights),
        words=request_words(worded),
        names_version=version,
    )


def _locale_terms(lines: list[str], weights: Weights) -> dict[str, float]:
    """The locale codes of the languages the request names, each weighing as the word naming
    it does (the first line's fully, the body's less), times ``weights.locale``."""
    found: dict[str, float] = {}
    if not weights.locale:
        return found
    for n, line in enumerate(lines):
        weight = weights.locale * (1.0 if n == 0 else weights.body_term)
        for code in locale_codes(line):
            found[code] = max(found.get(code, 0.0), weight)
    return found


def _named_identifiers(request: str) -> tuple[set[str], set[str]]:
    """The identifiers the request names: strong when spelled as code (a call, snake_case,
    camelCase, a digit, inside backticks), weak when they could be plain words."""
    strong: set[str] = set()
    weak: set[str] = set()
    quoted = {m.group(1).strip("()") for m in _BACKTICK.finditer(request)}
    for match in _IDENTIFIER.finditer(request):
        ident = match.group(0).rstrip("(")
        if len(ident) < 3 or ident.lower() in STOPWORDS:
            continue
        if match.group(1) or _CODEISH.search(ident) or any(ident in q for q in quoted):
            strong.add(ident)
        else:
            weak.add(ident)
    return strong, weak


def _path_mentions(request: str) -> tuple[str, ...]:
    """Paths, file names and dotted modules the request names (``mod.`` for a single word in
    backticks, which names a module when a file has that stem: `exceptions`)."""
    # A link's host and path name pages, not files or modules (docs.python.org is no ``docs``);
    # its words still count as terms (a link to shutil.get_terminal_size says what it is about).
    linkless = _URL.sub(" ", request)
    paths = [m.group(0).strip("./\\") for m in _PATHLIKE.finditer(linkless)]
    paths += [m.group(0) for m in _DOTTED.finditer(linkless)]
    quoted = {m.group(1).strip("()") for m in _BACKTICK.finditer(request)}
    paths += [q + "." for q in quoted if re.fullmatch(r"[A-Za-z_]\w*", q)]
    named = dict.fromkeys(p for p in paths if 4 <= len(p) <= MAX_MENTION_CHARS)
    return tuple(named)[:MAX_MENTIONS]
