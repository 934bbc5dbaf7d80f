import textstats
from bench_checks.behaviour import check_behaviour


def test_counts_ignore_case():
    common = textstats.most_common_words("Python is fun. python rocks! PYTHON, again.")
    assert common[0] == ("python", 3)
    assert dict(common) == {"python": 3, "fun": 1, "rocks": 1}


def test_stop_words_still_skipped():
    common = dict(textstats.most_common_words("The Cat and the cat. A CAT!"))
    assert common == {"cat": 3}
    everything = dict(textstats.most_common_words("The Cat and the cat.", skip_stop_words=False))
    assert everything == {"the": 2, "cat": 2, "and": 1}


def test_limit_still_applies():
    assert textstats.most_common_words("Red red blue Blue blue green", n=1) == [("blue", 3)]


def test_behaviour_unchanged():
    check_behaviour()
