import logging

import minimark
from bench_checks.behaviour import check_behaviour


def test_unclosed_fence_logs_warning(caplog, capsys):
    caplog.set_level(logging.DEBUG)
    html = minimark.convert("text\n\n```\ncode\n")
    assert html == "<p>text</p>\n<pre><code>code\n</code></pre>\n"
    records = [r for r in caplog.records if r.name == "minimark"]
    assert records, "nothing was logged on the module's logger"
    assert any(r.levelno == logging.WARNING for r in records)
    assert capsys.readouterr().err == ""


def test_closed_fence_logs_nothing(caplog):
    caplog.set_level(logging.DEBUG)
    minimark.convert("```\ncode\n```\n")
    assert not [r for r in caplog.records if r.name == "minimark" and r.levelno >= logging.WARNING]


def test_behaviour_unchanged():
    check_behaviour()
