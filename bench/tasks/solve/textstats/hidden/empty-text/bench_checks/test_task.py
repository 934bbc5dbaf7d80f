import pytest

import textstats
from bench_checks.behaviour import check_behaviour


@pytest.mark.parametrize("text", ["", "   \n\n  ", "... !?"])
def test_no_words_gives_zero(text):
    assert textstats.average_word_length(text) == 0.0
    assert textstats.average_sentence_length(text) == 0.0
    assert textstats.flesch_reading_ease(text) == 0.0


def test_report_on_empty_file(tmp_path, capsys):
    path = tmp_path / "empty.txt"
    path.write_text("", encoding="utf-8")
    assert textstats.main([str(path)]) == 0
    out = capsys.readouterr().out
    assert "Words:" in out


def test_behaviour_unchanged():
    check_behaviour()
