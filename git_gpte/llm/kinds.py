"""The kinds of model provider: one table that every consumer reads.

Which model names belong to a provider, where its key and its address are read, how errors
name it, which wire protocol talks to it, and what ``sysinfo`` lists to set it up: a new
provider is one row here (and, for the GitHub Action, one input in ``action.yml``). The key
variables of every row are masked in the Action's log and removed from the environment of the
programs git-gpte runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

OPENAI = "openai"
AZURE = "azure"
ANTHROPIC = "anthropic"
COMPATIBLE = "openai-compatible"


@dataclass(frozen=True)
class ProviderKind:
    name: str
    label: str  # how messages name it ("OpenAI")
    protocol: str  # the wire protocol (a key of ``providers.PROTOCOLS``)
    key_variables: tuple[str, ...]  # where its key is read, the usual one first
    needs_key: bool = True
    # Model names it serves (a name no table lists but that starts like this is still its).
    models: re.Pattern[str] | None = None
    # Its address when not the SDK's default, and the variables that override it.
    base_url: str | None = None
    base_url_variables: tuple[str, ...] = ()
    # What `git gpte sysinfo` lists to set it up: (what, variables, git config key).
    setup: tuple[tuple[str, tuple[str, ...], str | None], ...] = ()


PROVIDER_KINDS: dict[str, ProviderKind] = {
    kind.name: kind
    for kind in (
        ProviderKind(
            OPENAI,
            "OpenAI",
            "chat-completions",
            ("OPENAI_API_KEY",),
            models=re.compile(r"^(gpt-|chatgpt-|o\d)"),
            setup=(("key", ("OPENAI_API_KEY",), None),),
        ),
        ProviderKind(
            ANTHROPIC,
            "Anthropic",
            "anthropic",
            ("ANTHROPIC_API_KEY",),
            models=re.compile(r"^claude-"),
            base_url_variables=("ANTHROPIC_BASE_URL",),
            setup=(
                ("key", ("ANTHROPIC_API_KEY",), None),
                ("base URL", ("ANTHROPIC_BASE_URL",), None),
            ),
        ),
        ProviderKind(
            AZURE,
            "Azure OpenAI",
            "azure-openai",
            ("AZURE_OPENAI_API_KEY", "OPENAI_API_KEY"),
            setup=(
                ("endpoint", ("AZURE_OPENAI_ENDPOINT",), "gpte.azureEndpoint"),
                ("key", ("AZURE_OPENAI_API_KEY",), None),
            ),
        ),
        ProviderKind(
            COMPATIBLE,
            "the model server",
            "chat-completions",
            ("OPENAI_API_KEY",),
            needs_key=False,
            setup=(
                ("base URL", ("OPENAI_BASE_URL", "OPENAI_API_BASE"), "gpte.baseUrl"),
                ("local model", ("LOCAL_MODEL",), "gpte.localModel"),
            ),
        ),
    )
}


def kind_of(provider: str) -> ProviderKind:
    return PROVIDER_KINDS.get(provider, PROVIDER_KINDS[COMPATIBLE])


def provider_for_name(model: str) -> str | None:
    """The provider whose model names ``model`` looks like, or None."""
    for kind in PROVIDER_KINDS.values():
        if kind.models is not None and kind.models.match(model):
            return kind.name
    return None


def all_key_variables() -> tuple[str, ...]:
    """Every variable any provider's key is read from (masked, never passed on)."""
    names: dict[str, None] = {}
    for kind in PROVIDER_KINDS.values():
        names.update(dict.fromkeys(kind.key_variables))
    return tuple(names)
