"""The environment the program under test sees: the user's, minus anything that grants access.

Code written by an LLM runs here, so credentials must not reach it: LLM keys, GitHub tokens,
the Actions runtime tokens (which can mint OIDC tokens or write to the cache), generic
``*_TOKEN``/``*_SECRET``/``*PASSWORD*``/``*_KEY``/``*_DSN`` variables, URLs that carry a
password (``DATABASE_URL=postgres://u:pw@host``), the SSH agent socket, and the
``GIT_*`` variables that would point git inside the script at the user's repository or index.
The Actions command files (``GITHUB_ENV``, ``GITHUB_OUTPUT``, ...) are removed too.
Users add their own names (or ``fnmatch`` patterns) with ``git config gpte.scrubEnv``.
"""

from __future__ import annotations

import fnmatch
import itertools
import re
from collections.abc import Iterable, Mapping

# Whole families: every variable with one of these prefixes.
SCRUBBED_PREFIXES = ("OPENAI_", "ANTHROPIC_", "AZURE_OPENAI_", "ACTIONS_", "GPTE_")

# Exact names that are secrets or hand out access without looking like it.
SCRUBBED_NAMES = frozenset(
    {
        "GITHUB_TOKEN",
        "GH_TOKEN",
        "GH_ENTERPRISE_TOKEN",
        "GITHUB_ENTERPRISE_TOKEN",
        "SSH_AUTH_SOCK",
        # Files a GitHub Actions step writes to change later steps (GITHUB_ENV can set
        # LD_PRELOAD or NODE_OPTIONS for them): untrusted code must not be pointed at them.
        "GITHUB_ENV",
        "GITHUB_PATH",
        "GITHUB_OUTPUT",
        "GITHUB_STATE",
        "GITHUB_STEP_SUMMARY",
        "GIT_ASKPASS",
        "SSH_ASKPASS",
        # Would redirect git commands in the script to the user's repository or index.
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "GIT_COMMON_DIR",
        "GIT_OBJECT_DIRECTORY",
        "GIT_ALTERNATE_OBJECT_DIRECTORIES",
        "GIT_NAMESPACE",
        "GIT_PREFIX",
    }
)

# Words that mark a secret when they are a whole ``_``-separated part of the name
# (GITHUB_TOKEN, NODE_AUTH_TOKEN, STRIPE_SECRET) but not inside one (TOKENIZERS_PARALLELISM).
_SECRET_PARTS = frozenset(
    {"TOKEN", "TOKENS", "SECRET", "SECRETS", "CREDENTIAL", "CREDENTIALS", "APIKEY"}
)
# Pairs of adjacent parts: SOME_API_KEY, AWS_SECRET_ACCESS_KEY, SIGNING_PRIVATE_KEY.
_SECRET_PAIRS = frozenset(
    {("API", "KEY"), ("ACCESS", "KEY"), ("PRIVATE", "KEY"), ("SECRET", "KEY")}
)
# Substrings that are secret wherever they appear (DBPASSWORD, MYSQL_ROOT_PASSWORD, ...).
_SECRET_SUBSTRINGS = ("PASSWORD", "PASSWD", "SECRET")
# A last part that names a key or a connection string: STRIPE_KEY, SENTRY_DSN, SLACK_WEBHOOK.
_SECRET_LAST = frozenset({"KEY", "DSN", "WEBHOOK"})
# A URL that carries a password: postgres://user:pw@host/db (DATABASE_URL, REDIS_URL, ...).
_URL_WITH_PASSWORD = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]*:[^/\s@]+@")


def is_secret_name(name: str) -> bool:
    """True for variable names the built-in rules remove."""
    upper = name.upper()
    if upper in SCRUBBED_NAMES or upper.startswith(SCRUBBED_PREFIXES):
        return True
    if any(word in upper for word in _SECRET_SUBSTRINGS):
        return True
    parts = [part for part in upper.split("_") if part]
    if any(part in _SECRET_PARTS for part in parts):
        return True
    if (parts and parts[-1] in _SECRET_LAST) or "WEBHOOK" in parts:
        return True
    return any(pair in _SECRET_PAIRS for pair in itertools.pairwise(parts))


def is_secret_value(value: str) -> bool:
    """True for values that carry credentials whatever the variable is called."""
    return bool(_URL_WITH_PASSWORD.match(value.strip()))


def parse_name_list(text: str | None) -> tuple[str, ...]:
    """``"FOO, BAR BAZ_*"`` -> ``("FOO", "BAR", "BAZ_*")`` (commas and/or whitespace)."""
    if not text:
        return ()
    return tuple(name for name in re.split(r"[\s,]+", text) if name)


def scrub_environment(
    environ: Mapping[str, str], extra: Iterable[str] = ()
) -> tuple[dict[str, str], list[str]]:
    """(the environment to give the program, the sorted names that were removed).

    ``extra`` holds names or ``fnmatch`` patterns (``MYCORP_*``), matched case-sensitively
    as the environment itself is on POSIX.
    """
    patterns = tuple(extra)
    kept: dict[str, str] = {}
    removed: list[str] = []
    for name, value in environ.items():
        if (
            is_secret_name(name)
            or is_secret_value(value)
            or any(fnmatch.fnmatchcase(name, p) for p in patterns)
        ):
            removed.append(name)
        else:
            kept[name] = value
    return kept, sorted(removed)
