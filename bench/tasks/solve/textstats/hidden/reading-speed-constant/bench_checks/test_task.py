import inspect

import textstats
from bench_checks.behaviour import check_behaviour


def test_constant():
    assert textstats.WORDS_PER_MINUTE == 200
    assert "200" not in inspect.getsource(textstats.reading_time)
    assert textstats.reading_time("word " * 100) == 0.5


def test_behaviour_unchanged():
    check_behaviour()
