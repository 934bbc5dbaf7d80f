"""Who may make the action spend LLM money and push code.

Two independent checks, both required, both before any LLM request: the author association
GitHub puts in the payload must be in the allowed list, and the collaborator-permission API must
say the person has write access (or more) now — the payload can be stale, and associations such as
``CONTRIBUTOR`` say nothing about access. Bots pass only when allow-listed by login; closed and
locked issues are left alone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .event import Actor

WRITE_PERMISSIONS = frozenset({"admin", "maintain", "write"})


@dataclass(frozen=True)
class Decision:
    allowed: bool
    reason: str


def check_state(state: str, locked: bool, what: str) -> Decision:
    if state != "open":
        return Decision(False, f"{what} is {state}")
    if locked:
        return Decision(False, f"{what} is locked")
    return Decision(True, "open")


def check_actor(
    actor: Actor,
    *,
    allowed_associations: tuple[str, ...],
    allowed_bots: tuple[str, ...],
    permission: Callable[[str], str],
) -> Decision:
    """Allowed when (association allowed or unknown) and the API grants write; bots by list.

    ``permission`` is the collaborator-permission lookup; it is called last, so a stranger's
    comment costs no API call beyond the one that says no.
    """
    if not actor.login:
        return Decision(False, "the event does not say who triggered it")
    if actor.is_bot:
        if actor.login.lower() in allowed_bots:
            return Decision(True, f"{actor.login} is an allowed bot")
        return Decision(False, f"{actor.login} is a bot and not in allowed-bots")
    if actor.association is not None and actor.association.upper() not in allowed_associations:
        return Decision(
            False,
            f"@{actor.login}'s association {actor.association} is not one of "
            f"{', '.join(allowed_associations)}",
        )
    level = permission(actor.login)
    if level not in WRITE_PERMISSIONS:
        return Decision(
            False, f"@{actor.login} has {level or 'no'} access to the repository; write is needed"
        )
    return Decision(True, f"@{actor.login} has {level} access")
