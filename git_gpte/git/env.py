"""The one list of variables git must not inherit, and the environment every git call gets.

A user running ``git gpte`` from a hook, from ``git --git-dir=...`` or from a script may have
``GIT_DIR``, ``GIT_INDEX_FILE`` and friends set. Inherited as they are, they would point our
plumbing at the user's index or another object store (breaking the promise not to touch the
checkout) or, in the program under test, at the user's repository. The repository's location
is honoured once, when it is discovered, and then passed explicitly with absolute values.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

# Variables that choose a repository, an index or an object store.
STRIPPED = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_PREFIX",
)

# Configuration passed through the environment (``GIT_CONFIG_COUNT`` and its numbered entries,
# ``git -c`` parameters, another global file). A process given its own scoped entries (a push
# with a token) gets those and nothing inherited, so nothing else can rewrite where it goes.
CONFIG_PREFIX = "GIT_CONFIG_"


def without_git_location(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """A copy of ``environ`` (default: ours) with :data:`STRIPPED` removed."""
    source = os.environ if environ is None else environ
    return {k: v for k, v in source.items() if k not in STRIPPED}


def git_environment(
    location: Mapping[str, str] | None = None,
    extra: Mapping[str, str] | None = None,
    config: list[tuple[str, str]] | None = None,
) -> dict[str, str]:
    """The environment of one git process.

    ``location``: absolute ``GIT_DIR``/``GIT_WORK_TREE`` when the user chose the repository
    through them; ``extra``: variables for this call (a temporary index, an identity);
    ``config``: ``key=value`` entries visible to this process only (never on a command line,
    never in ``.git/config``), replacing every inherited ``GIT_CONFIG_*`` variable.
    """
    env = without_git_location()
    # No optional locks: `git status` and friends must not refresh (rewrite) the user's
    # index behind their back; the index bytes are part of what we promise not to touch.
    env["GIT_OPTIONAL_LOCKS"] = "0"
    env.update(location or {})
    env.update(extra or {})
    if config is not None:
        for name in [k for k in env if k.startswith(CONFIG_PREFIX)]:
            del env[name]
        env["GIT_CONFIG_COUNT"] = str(len(config))
        for i, (key, value) in enumerate(config):
            env[f"GIT_CONFIG_KEY_{i}"] = key
            env[f"GIT_CONFIG_VALUE_{i}"] = value
    return env
