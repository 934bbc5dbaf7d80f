"""System prompts: the shipped preprompts, per-repository overrides, and their assembly."""

from __future__ import annotations

from .preprompts import (
    FORMAT_FILES,
    NAMES,
    OVERRIDE_DIR,
    Preprompt,
    default_dir,
    export,
    find,
    load,
    system_prompt,
)

__all__ = [
    "FORMAT_FILES",
    "NAMES",
    "OVERRIDE_DIR",
    "Preprompt",
    "default_dir",
    "export",
    "find",
    "load",
    "system_prompt",
]
