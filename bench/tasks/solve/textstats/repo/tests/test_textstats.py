import textstats

SAMPLE = (
    "The quick brown fox jumps over the lazy dog. The dog does not mind!\n"
    "\n"
    "Foxes are clever animals. Is the fox quicker than the dog? Nobody knows.\n"
)


def test_words_and_sentences():
    assert textstats.words("It's a dog's life, isn't it?") == ["It's", "a", "dog's", "life", "isn't", "it"]
    assert textstats.word_count(SAMPLE) == 27
    assert textstats.sentence_count(SAMPLE) == 5
    assert textstats.sentence_count("No full stop at the end") == 1
    assert textstats.paragraph_count(SAMPLE) == 2


def test_count_syllables():
    assert textstats.count_syllables("dog") == 1
    assert textstats.count_syllables("make") == 1
    assert textstats.count_syllables("table") == 2
    assert textstats.count_syllables("animals") == 3


def test_most_common_words_skips_stop_words():
    common = textstats.most_common_words(SAMPLE, n=2)
    assert common == [("dog", 3), ("fox", 2)]
    with_stop_words = dict(textstats.most_common_words(SAMPLE, n=50, skip_stop_words=False))
    assert with_stop_words["dog"] == 3
    assert with_stop_words["over"] == 1


def test_averages_and_readability():
    assert textstats.average_sentence_length(SAMPLE) == 27 / 5
    assert round(textstats.average_word_length("a bb ccc"), 2) == 2.0
    assert textstats.flesch_reading_ease(SAMPLE) == 88.6
    assert textstats.reading_level(88.6) == "easy"
    assert textstats.reading_level(10) == "very difficult"
    assert textstats.lexical_diversity("") == 0.0


def test_main_prints_report(tmp_path, capsys):
    path = tmp_path / "sample.txt"
    path.write_text(SAMPLE, encoding="utf-8")
    assert textstats.main([str(path)]) == 0
    out = capsys.readouterr().out
    assert "Words:" in out and "27" in out
    assert "Most common words:" in out
    assert "dog" in out
