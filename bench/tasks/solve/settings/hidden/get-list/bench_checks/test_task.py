import settings
from bench_checks.behaviour import check_behaviour


def test_get_list():
    config = settings.Settings({"server.hosts": " a, b,,c ", "app.tags": "x;y ; z"})
    assert config.get_list("server.hosts") == ["a", "b", "c"]
    assert config.get_list("app.tags", sep=";") == ["x", "y", "z"]
    assert config.get_list("Server.Hosts") == ["a", "b", "c"]


def test_get_list_missing_key():
    config = settings.Settings({"app.name": "x"})
    assert config.get_list("server.hosts") == []
    assert config.get_list("server.hosts", default=["localhost"]) == ["localhost"]


def test_get_list_single_value():
    assert settings.Settings({"app.name": "demo"}).get_list("app.name") == ["demo"]


def test_behaviour_unchanged(tmp_path):
    check_behaviour(tmp_path)
