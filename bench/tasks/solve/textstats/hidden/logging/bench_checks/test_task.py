import logging

import textstats
from bench_checks.behaviour import check_behaviour


def test_fallback_is_logged_not_printed(tmp_path, caplog, capsys):
    path = tmp_path / "legacy.txt"
    path.write_bytes("Caf\u00e9 ol\u00e9".encode("latin-1"))
    caplog.set_level(logging.DEBUG)
    assert textstats.load_text(str(path)) == "Caf\u00e9 ol\u00e9"
    records = [r for r in caplog.records if r.name == "textstats"]
    assert records, "nothing was logged on the module's logger"
    assert any(r.levelno == logging.WARNING for r in records)
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == "", "load_text still prints"


def test_no_warning_for_valid_file(tmp_path, caplog):
    path = tmp_path / "plain.txt"
    path.write_text("Hello there.", encoding="utf-8")
    caplog.set_level(logging.DEBUG)
    assert textstats.load_text(str(path)) == "Hello there."
    assert not [r for r in caplog.records if r.name == "textstats" and r.levelno >= logging.WARNING]


def test_behaviour_unchanged():
    check_behaviour()
