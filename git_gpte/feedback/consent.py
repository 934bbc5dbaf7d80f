"""Consent and the anonymous install id, both kept in git config where the user can see them.

Consent is per repository (``git config gpte.feedback true|false`` in the repository, so a
global setting still applies when the repository has none); the records live in that
repository's git data, so that is where the choice belongs. The install id is a random UUID in
``git config --global gpte.installId``: it only lets someone who is sent several exports tell
they came from one machine, and holds nothing about the person.
"""

from __future__ import annotations

import uuid
from pathlib import Path

from ..errors import GitCommandError
from ..git.repo import Repository

CONSENT_KEY = "gpte.feedback"
INSTALL_ID_KEY = "gpte.installId"
INSTALL_ID_FILE = "install-id"


def consent(repo: Repository) -> bool | None:
    """True / False when the user has answered, None when they were never asked."""
    value = repo.config_get(CONSENT_KEY)
    if value is None:
        return None
    text = value.strip().lower()
    if text in ("true", "yes", "on", "1"):
        return True
    if text in ("false", "no", "off", "0", ""):
        return False
    return None


def set_consent(repo: Repository, allowed: bool) -> None:
    repo.config_set(CONSENT_KEY, "true" if allowed else "false")


def install_id(repo: Repository) -> str:
    """The anonymous install id, created on first use.

    Kept in the global git config; when that cannot be written (read-only HOME), in
    ``.git/gpte/install-id`` instead.
    """
    existing = repo.config_get(INSTALL_ID_KEY)
    if existing and _is_uuid(existing):
        return existing.strip()
    fallback = Path(repo.state_dir()) / INSTALL_ID_FILE
    if fallback.is_file():
        text = fallback.read_text(encoding="utf-8").strip()
        if _is_uuid(text):
            return text
    new = str(uuid.uuid4())
    try:
        repo.config_set(INSTALL_ID_KEY, new, scope="global")
    except GitCommandError:
        fallback.write_text(new + "\n", encoding="utf-8")
    return new


def _is_uuid(text: str) -> bool:
    try:
        uuid.UUID(text.strip())
    except ValueError:
        return False
    return True
