import settings
from bench_checks.behaviour import check_behaviour

ENVIRON = {"MYAPP_SERVER__PORT": "9000", "APP_SERVER__PORT": "1", "MYAPP_APP__NAME": "demo"}


def test_custom_prefix():
    config = settings.load_settings(environ=ENVIRON, env_prefix="MYAPP_")
    assert config["server.port"] == "9000"
    assert config.source_of("server.port") == "env:MYAPP_SERVER__PORT"
    assert config["app.name"] == "demo"


def test_default_prefix_unchanged():
    config = settings.load_settings(environ=ENVIRON)
    assert config["server.port"] == "1"
    assert config["app.name"] == "myapp"


def test_behaviour_unchanged(tmp_path):
    check_behaviour(tmp_path)
