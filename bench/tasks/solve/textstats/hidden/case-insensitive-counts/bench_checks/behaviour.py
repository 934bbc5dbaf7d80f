import contextlib
import io
import os
import tempfile

import textstats

SAMPLE = (
    "The quick brown fox jumps over the lazy dog. The dog does not mind!\n"
    "\n"
    "Foxes are clever animals. Is the fox quicker than the dog? Nobody knows.\n"
)


def check_behaviour(module=textstats):
    assert module.word_count(SAMPLE) == 27
    assert module.sentence_count(SAMPLE) == 5
    assert module.paragraph_count(SAMPLE) == 2
    assert module.most_common_words(SAMPLE, n=2) == [("dog", 3), ("fox", 2)]
    assert module.average_sentence_length(SAMPLE) == 27 / 5
    assert module.flesch_reading_ease(SAMPLE) == 88.6
    assert module.reading_time("word " * 400) == 2.0
    text = module.format_report(module.build_report(SAMPLE), title="sample.txt")
    assert text.splitlines()[0] == "Report for sample.txt"
    assert "Most common words:" in text
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "sample.txt")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(SAMPLE)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert module.main([path]) == 0
        assert "Words:" in out.getvalue() and "dog" in out.getvalue()
