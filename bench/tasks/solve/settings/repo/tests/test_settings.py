from pathlib import Path

import pytest

import settings
from settings import InvalidSetting, MissingSetting, Settings, SettingsError, load_settings

INI = """\
[server]
port = 9000
timeout = 2m

[database]
url = postgres://db/app
password = hunter2
"""


@pytest.fixture
def ini_file(tmp_path):
    path = tmp_path / "app.ini"
    path.write_text(INI, encoding="utf-8")
    return path


def test_defaults_only():
    config = load_settings(environ={})
    assert config.get_int("server.port") == 8080
    assert config.get_bool("app.debug") is False
    assert config.source_of("server.port") == "default"


def test_precedence(ini_file):
    environ = {"APP_SERVER__PORT": "9100", "APP_DATABASE__POOL_SIZE": "20", "HOME": "/home/ann"}
    config = load_settings(ini_file, environ=environ, overrides={"server.port": 7000})
    assert config["server.port"] == "7000"
    assert config.source_of("server.port") == "override"
    assert config.get_int("database.pool_size") == 20
    assert config.source_of("database.pool_size") == "env:APP_DATABASE__POOL_SIZE"
    assert config["database.url"] == "postgres://db/app"
    assert config.source_of("database.url") == f"file:{ini_file}"
    assert config["server.host"] == "127.0.0.1"


def test_missing_file_uses_defaults(tmp_path):
    config = load_settings(tmp_path / "nowhere.ini", environ={})
    assert config.as_dict() == {key: value for key, value in sorted(settings.DEFAULTS.items())}


def test_broken_file(tmp_path):
    path = tmp_path / "broken.ini"
    path.write_text("port = 1\n", encoding="utf-8")
    with pytest.raises(SettingsError):
        load_settings(path, environ={})


def test_env_names():
    assert settings.key_from_env("APP_DATABASE__POOL_SIZE") == "database.pool_size"
    assert settings.key_from_env("APP_DEBUG") is None
    assert settings.key_from_env("PATH") is None
    assert settings.env_name("Server.Port") == "APP_SERVER__PORT"


def test_typed_getters(ini_file):
    config = load_settings(ini_file, environ={})
    assert config.get_duration("server.timeout") == 120.0
    assert config.get_size("server.max_upload") == 10 * 1024 * 1024
    assert config.get_float("server.port") == 9000.0
    assert config.get_choice("logging.level", ["DEBUG", "INFO", "WARNING"]) == "INFO"
    assert config.get_path("mail.spool", Path("/tmp")) == Path("/tmp")


@pytest.mark.parametrize("text, expected", [("yes", True), ("0", False), (" on ", True)])
def test_parse_bool(text, expected):
    assert settings.parse_bool(text) is expected


def test_invalid_values_name_their_source():
    config = Settings({"server.port": "eighty"}, {"server.port": "env:APP_SERVER__PORT"})
    with pytest.raises(InvalidSetting) as info:
        config.get_int("server.port")
    assert "env:APP_SERVER__PORT" in str(info.value)
    with pytest.raises(ValueError):
        Settings({"server.port": "70000"}).get_int("server.port", maximum=65535)


def test_missing_settings():
    config = Settings({"app.name": "x"})
    with pytest.raises(MissingSetting):
        config.get_int("server.port")
    assert config.get_int("server.port", 1) == 1
    with pytest.raises(MissingSetting) as info:
        config.require("app.name", "a.b", "c.d")
    assert info.value.keys == ("a.b", "c.d")


def test_sections():
    config = Settings({"server.port": "1", "server.host": "h", "app.name": "x"})
    assert config.sections() == ["app", "server"]
    assert config.section("Server") == {"host": "h", "port": "1"}


def test_validate():
    config = Settings({"server.port": "x", "app.debug": "yes"}, {"server.port": "default"})
    with pytest.raises(SettingsError) as info:
        settings.validate(config, {"server.port": "int", "app.debug": "bool",
                                   "mail.host": "str", "mail.port": "int?"})
    message = str(info.value)
    assert "server.port" in message and "mail.host: missing" in message
    assert "app.debug" not in message and "mail.port" not in message


def test_describe_masks_secrets(ini_file):
    text = settings.describe(load_settings(ini_file, environ={}))
    assert "hunter2" not in text
    assert "database.url" in text and "[default]" in text
