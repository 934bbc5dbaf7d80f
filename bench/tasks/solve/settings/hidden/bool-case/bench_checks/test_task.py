import pytest

import settings
from bench_checks.behaviour import check_behaviour


@pytest.mark.parametrize("text, expected", [
    ("True", True), ("YES", True), ("On", True), ("Off", False), (" FALSE ", False),
    ("no", False), ("1", True),
])
def test_any_case(text, expected):
    assert settings.Settings({"app.debug": text}).get_bool("app.debug") is expected


def test_from_environment():
    config = settings.load_settings(environ={"APP_APP__DEBUG": "True"})
    assert config.get_bool("app.debug") is True


def test_still_rejects_other_words():
    with pytest.raises(settings.InvalidSetting):
        settings.Settings({"app.debug": "Maybe"}).get_bool("app.debug")


def test_behaviour_unchanged(tmp_path):
    check_behaviour(tmp_path)
