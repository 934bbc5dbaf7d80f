import settings


def check_behaviour(tmp_path):
    path = tmp_path / "check.ini"
    path.write_text("[server]\nport = 9000\ntimeout = 90s\n[database]\nurl = pg://db\n",
                    encoding="utf-8")
    environ = {"APP_DATABASE__POOL_SIZE": "12", "APP_APP__DEBUG": "yes", "OTHER": "1"}
    config = settings.load_settings(path, environ=environ, overrides={"logging.level": "DEBUG"})
    assert config.get_int("server.port") == 9000
    assert config.get_duration("server.timeout") == 90.0
    assert config.get_int("database.pool_size") == 12
    assert config.source_of("database.pool_size") == "env:APP_DATABASE__POOL_SIZE"
    assert config.get_bool("app.debug") is True
    assert config["database.url"] == "pg://db"
    assert config["logging.level"] == "DEBUG"
    assert config["server.host"] == "127.0.0.1"
    try:
        config.get_int("database.url")
    except settings.InvalidSetting:
        pass
    else:
        raise AssertionError("get_int accepted a URL")
