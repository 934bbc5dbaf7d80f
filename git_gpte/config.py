"""One place that decides every setting.

Precedence, highest first: command-line flag > environment variable > ``git config gpte.*``
> ``gpt-engineer.toml`` / ``pyproject.toml [tool.gpte]`` in the repository root > default.
The ``gpte.*`` git config keys are read by the git layer
(:func:`git_gpte.git.config.load_settings`); this module only resolves them.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import ConfigError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib  # type: ignore[import-not-found,no-redef,unused-ignore]


def read_toml_config(root: Path | None) -> dict[str, Any]:
    """gpt-engineer.toml (as gpt-engineer users have it) merged under pyproject's [tool.gpte]."""
    merged: dict[str, Any] = {}
    if root is None:
        return merged
    for name, section in (("gpt-engineer.toml", None), ("pyproject.toml", ("tool", "gpte"))):
        path = root / name
        if not path.is_file():
            continue
        try:
            data: Any = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"cannot read {path}: {exc}") from None
        for part in section or ():
            data = data.get(part, {}) if isinstance(data, dict) else {}
        if isinstance(data, dict):
            _deep_merge(merged, data)
    return merged


def _deep_merge(into: dict[str, Any], other: Mapping[str, Any]) -> None:
    for key, value in other.items():
        if isinstance(value, Mapping) and isinstance(into.get(key), dict):
            _deep_merge(into[key], value)
        else:
            into[key] = value


@dataclass
class Settings:
    """Resolved configuration for one invocation.

    ``get`` walks the precedence chain for one setting; callers name the flag value, the
    environment variables (first set wins), the git config key and the TOML path.
    """

    root: Path | None = None
    git: dict[str, str] = field(default_factory=dict)
    toml: dict[str, Any] = field(default_factory=dict)
    environ: Mapping[str, str] = field(default_factory=lambda: os.environ)

    def get(
        self,
        *,
        flag: Any = None,
        env: Iterable[str] = (),
        git: str | None = None,
        toml: tuple[str, ...] = (),
        default: Any = None,
    ) -> Any:
        if flag is not None:
            return flag
        for name in env:
            value = self.environ.get(name)
            if value:
                return value
        if git is not None:
            value = self.git.get(git.lower())
            if value:
                return value
        if toml:
            node: Any = self.toml
            for part in toml:
                node = node.get(part) if isinstance(node, dict) else None
            if node not in (None, ""):
                return node
        return default

    def get_int(self, *, default: int, what: str | None = None, **kwargs: Any) -> int:
        value = self.get(default=default, **kwargs)
        try:
            return int(value)
        except (TypeError, ValueError):
            name = what or _setting_name(kwargs)
            raise ConfigError(f"{name} must be a whole number, got {value!r}") from None

    def get_float(
        self, *, default: float, what: str, positive: bool = False, **kwargs: Any
    ) -> float:
        """A number setting; ``what`` names it in the error ("timeout", "GPTE_..."). With
        ``positive``, zero and below (and infinity, NaN) are refused too."""
        value = self.get(default=default, **kwargs)
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise ConfigError(f"{what} must be a number, got {value!r}") from None
        if positive and not 0 < number < float("inf"):
            raise ConfigError(f"{what} must be a number of seconds above 0, got {value!r}")
        return number

    def get_bool(self, *, default: bool, **kwargs: Any) -> bool:
        value = self.get(default=default, **kwargs)
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in ("1", "true", "yes", "on"):
            return True
        if text in ("0", "false", "no", "off", ""):
            return False
        raise ConfigError(f"{_setting_name(kwargs)} must be true or false, got {value!r}")


def _setting_name(kwargs: Mapping[str, Any]) -> str:
    """How an error names a setting: its first environment variable, else its git key."""
    env = list(kwargs.get("env") or ())
    if env:
        return str(env[0])
    if kwargs.get("git"):
        return str(kwargs["git"])
    return "the setting"
