"""Application settings from an INI file, environment variables and defaults.

Where a setting is given in more than one place, the first of these wins:

1. overrides passed to :func:`load_settings` (for example from command-line options)
2. environment variables named ``APP_<SECTION>__<OPTION>``, e.g. ``APP_DATABASE__POOL_SIZE``
3. the INI file
4. the defaults

Keys are written ``"section.option"`` (``"database.pool_size"``) and are case-insensitive.
Values are kept as strings; the typed getters (:meth:`Settings.get_int` and friends) convert
them and raise :class:`InvalidSetting` naming the key and where its value came from.
"""

import configparser
import os
import re
from pathlib import Path

ENV_PREFIX = "APP_"
ENV_SEPARATOR = "__"

TRUE_WORDS = ("1", "true", "yes", "on")
FALSE_WORDS = ("0", "false", "no", "off")

DURATION_UNITS = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400}
SIZE_UNITS = {"b": 1, "kb": 1024, "mb": 1024 ** 2, "gb": 1024 ** 3}

SECRET_WORDS = ("password", "secret", "token", "key")

DEFAULTS = {
    "app.name": "myapp",
    "app.debug": "false",
    "server.host": "127.0.0.1",
    "server.port": "8080",
    "server.timeout": "30s",
    "server.max_upload": "10mb",
    "database.url": "sqlite:///app.db",
    "database.pool_size": "5",
    "logging.level": "INFO",
}

_MISSING = object()
_NUMBER_WITH_UNIT = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$")


class SettingsError(Exception):
    """Base class of the errors raised here."""


class MissingSetting(SettingsError, KeyError):
    def __init__(self, *keys):
        super().__init__(*keys)
        self.keys = keys

    def __str__(self):
        return "missing setting(s): " + ", ".join(self.keys)


class InvalidSetting(SettingsError, ValueError):
    def __init__(self, key, value, expected, source=None):
        where = f" (from {source})" if source else ""
        super().__init__(f"{key} = {value!r}{where}: expected {expected}")
        self.key = key
        self.value = value
        self.source = source


# --- keys and parsing helpers -----------------------------------------------


def normalize_key(key):
    """``" Server.Port "`` -> ``"server.port"``. Raises ValueError if there is no section."""
    key = key.strip().lower()
    section, dot, option = key.partition(".")
    if not dot or not section or not option:
        raise ValueError(f"setting keys look like 'section.option', got {key!r}")
    return key


def key_from_env(name, prefix=ENV_PREFIX):
    """``APP_DATABASE__POOL_SIZE`` -> ``database.pool_size``; None if it is not a setting."""
    if not name.upper().startswith(prefix.upper()):
        return None
    rest = name[len(prefix):]
    section, sep, option = rest.partition(ENV_SEPARATOR)
    if not sep or not section or not option:
        return None
    return f"{section}.{option}".lower()


def env_name(key, prefix=ENV_PREFIX):
    """The environment variable that sets ``key``."""
    section, _, option = normalize_key(key).partition(".")
    return f"{prefix}{section}{ENV_SEPARATOR}{option}".upper()


def parse_bool(text):
    text = text.strip()
    if text in TRUE_WORDS:
        return True
    if text in FALSE_WORDS:
        return False
    raise ValueError(f"not a yes/no value: {text!r}")


def parse_duration(text):
    """``"90"``, ``"90s"``, ``"1.5m"``, ``"250ms"``, ``"2h"``, ``"1d"`` -> seconds (float).

    A bare number means seconds.
    """
    match = _NUMBER_WITH_UNIT.match(text)
    if not match:
        raise ValueError(f"not a duration: {text!r}")
    number, unit = match.groups()
    unit = unit.lower() or "s"
    if unit not in DURATION_UNITS:
        raise ValueError(f"unknown duration unit {unit!r} in {text!r}")
    return float(number) * DURATION_UNITS[unit]


def parse_size(text):
    """``"512"``, ``"64kb"``, ``"10MB"``, ``"1.5gb"`` -> bytes (int). A bare number means bytes."""
    match = _NUMBER_WITH_UNIT.match(text)
    if not match:
        raise ValueError(f"not a size: {text!r}")
    number, unit = match.groups()
    unit = unit.lower() or "b"
    if unit not in SIZE_UNITS:
        raise ValueError(f"unknown size unit {unit!r} in {text!r}")
    return int(float(number) * SIZE_UNITS[unit])


# --- the settings object ----------------------------------------------------


class Settings:
    """A read-only view of the merged settings, with typed getters."""

    def __init__(self, values=None, sources=None):
        self._values = {normalize_key(k): str(v) for k, v in (values or {}).items()}
        self._sources = {normalize_key(k): s for k, s in (sources or {}).items()}

    def __contains__(self, key):
        return normalize_key(key) in self._values

    def __getitem__(self, key):
        key = normalize_key(key)
        try:
            return self._values[key]
        except KeyError:
            raise MissingSetting(key) from None

    def __len__(self):
        return len(self._values)

    def __iter__(self):
        return iter(sorted(self._values))

    def get(self, key, default=None):
        key = normalize_key(key)
        return self._values.get(key, default)

    def source_of(self, key):
        """Where the value of ``key`` came from: "default", "file:PATH", "env:NAME" or
        "override"; None if it is not set."""
        return self._sources.get(normalize_key(key))

    def _convert(self, key, default, convert, expected):
        key = normalize_key(key)
        if key not in self._values:
            if default is _MISSING:
                raise MissingSetting(key)
            return default
        value = self._values[key]
        try:
            return convert(value)
        except ValueError:
            raise InvalidSetting(key, value, expected, self._sources.get(key)) from None

    def get_str(self, key, default=_MISSING):
        return self._convert(key, default, str.strip, "text")

    def get_int(self, key, default=_MISSING, minimum=None, maximum=None):
        number = self._convert(key, default, int, "a whole number")
        if key not in self:
            return number
        if (minimum is not None and number < minimum) or (maximum is not None and number > maximum):
            bounds = f"between {minimum} and {maximum}"
            if maximum is None:
                bounds = f"at least {minimum}"
            elif minimum is None:
                bounds = f"at most {maximum}"
            raise InvalidSetting(key, self[key], f"a whole number {bounds}", self.source_of(key))
        return number

    def get_float(self, key, default=_MISSING):
        return self._convert(key, default, float, "a number")

    def get_bool(self, key, default=_MISSING):
        return self._convert(key, default, parse_bool, "one of " + "/".join(TRUE_WORDS + FALSE_WORDS))

    def get_duration(self, key, default=_MISSING):
        """The value in seconds (see :func:`parse_duration`)."""
        return self._convert(key, default, parse_duration, "a duration such as 30s or 5m")

    def get_size(self, key, default=_MISSING):
        """The value in bytes (see :func:`parse_size`)."""
        return self._convert(key, default, parse_size, "a size such as 512kb or 10mb")

    def get_path(self, key, default=_MISSING):
        """The value as a Path, with ``~`` expanded."""
        return self._convert(key, default, lambda value: Path(value.strip()).expanduser(), "a path")

    def get_choice(self, key, choices, default=_MISSING):
        """The value, which must be one of ``choices`` (compared without regard to case)."""
        lookup = {choice.lower(): choice for choice in choices}

        def convert(value):
            try:
                return lookup[value.strip().lower()]
            except KeyError:
                raise ValueError(value) from None

        return self._convert(key, default, convert, "one of " + ", ".join(choices))

    def sections(self):
        return sorted({key.partition(".")[0] for key in self._values})

    def section(self, name):
        """The options of one section as ``{option: value}``."""
        prefix = name.strip().lower() + "."
        return {key[len(prefix):]: value for key, value in sorted(self._values.items())
                if key.startswith(prefix)}

    def as_dict(self):
        return dict(sorted(self._values.items()))

    def with_overrides(self, overrides):
        """A copy with some values replaced (their source becomes "override")."""
        values = dict(self._values)
        sources = dict(self._sources)
        for key, value in overrides.items():
            values[normalize_key(key)] = str(value)
            sources[normalize_key(key)] = "override"
        return Settings(values, sources)

    def require(self, *keys):
        """Raise MissingSetting naming every one of ``keys`` that is not set."""
        missing = [normalize_key(key) for key in keys if normalize_key(key) not in self._values]
        if missing:
            raise MissingSetting(*missing)


# --- loading ----------------------------------------------------------------


def read_ini(path):
    """The settings in an INI file as ``{"section.option": value}``.

    A file that does not exist gives no settings.
    """
    path = Path(path)
    if not path.exists():
        print(f"settings: {path} not found, using defaults")
        return {}
    parser = configparser.ConfigParser(interpolation=None)
    try:
        with open(path, encoding="utf-8") as handle:
            parser.read_file(handle)
    except configparser.Error as exc:
        raise SettingsError(f"{path}: {exc}") from None
    values = {}
    for section in parser.sections():
        for option, value in parser.items(section):
            values[f"{section}.{option}".lower()] = value
    return values


def read_environ(environ=None):
    """The settings given as environment variables, as ``{key: (value, variable name)}``."""
    environ = os.environ if environ is None else environ
    found = {}
    for name, value in environ.items():
        key = key_from_env(name)
        if key is not None:
            found[key] = (value, name)
    return found


def load_settings(path=None, defaults=None, environ=None, overrides=None):
    """Merge defaults, the INI file at ``path``, the environment and ``overrides``.

    ``defaults`` falls back to :data:`DEFAULTS`; ``environ`` to ``os.environ``.
    """
    values = {}
    sources = {}
    for key, value in (DEFAULTS if defaults is None else defaults).items():
        values[normalize_key(key)] = str(value)
        sources[normalize_key(key)] = "default"
    if path is not None:
        for key, value in read_ini(path).items():
            values[key] = value
            sources[key] = f"file:{path}"
    for key, (value, name) in read_environ(environ).items():
        values[key] = value
        sources[key] = f"env:{name}"
    for key, value in (overrides or {}).items():
        if value is None:
            continue
        values[normalize_key(key)] = str(value)
        sources[normalize_key(key)] = "override"
    return Settings(values, sources)


# --- checking and showing ---------------------------------------------------

_CHECKERS = {
    "str": lambda value: value,
    "int": int,
    "float": float,
    "bool": parse_bool,
    "duration": parse_duration,
    "size": parse_size,
}


def validate(settings, schema):
    """Check ``settings`` against ``schema``: ``{key: type}``, where type is one of
    "str", "int", "float", "bool", "duration", "size", or a function that raises
    ValueError for a bad value. A type name ending in "?" marks the setting optional.

    Raises SettingsError listing every problem found.
    """
    problems = []
    for key, kind in schema.items():
        optional = isinstance(kind, str) and kind.endswith("?")
        if optional:
            kind = kind[:-1]
        if key not in settings:
            if not optional:
                problems.append(f"{normalize_key(key)}: missing")
            continue
        check = _CHECKERS[kind] if isinstance(kind, str) else kind
        value = settings[key]
        try:
            check(value)
        except ValueError:
            label = kind if isinstance(kind, str) else getattr(kind, "__name__", "valid")
            source = settings.source_of(key)
            where = f" (from {source})" if source else ""
            problems.append(f"{normalize_key(key)}: {value!r} is not {label}{where}")
    if problems:
        raise SettingsError("invalid settings:\n  " + "\n  ".join(problems))


def is_secret(key):
    option = normalize_key(key).partition(".")[2]
    return any(word in option for word in SECRET_WORDS)


def describe(settings):
    """One line per setting, ``key = value  [source]``, with secrets masked."""
    lines = []
    width = max((len(key) for key in settings), default=0)
    for key in settings:
        value = "********" if is_secret(key) else settings[key]
        lines.append(f"{key:<{width}} = {value}  [{settings.source_of(key)}]")
    return "\n".join(lines)
