"""Simple statistics for plain-text files.

Counts words, sentences and paragraphs, lists the most common words (leaving
out the usual English stop words), estimates the reading time and computes
the Flesch reading-ease score.  Run it as a script to print a report:

    python textstats.py notes.txt
"""

import argparse
import re
import sys
from collections import Counter

STOP_WORDS = frozenset(
    """
    a about above after again against all am an and any are as at be because
    been before being below between both but by can could did do does doing
    down during each few for from further had has have having he her here hers
    herself him himself his how i if in into is it its itself just me more most
    my myself no nor not now of off on once only or other our ours ourselves
    out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up
    very was we were what when where which while who whom why will with would
    you your yours yourself
    """.split()
)

WORD_RE = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)*")
SENTENCE_END_RE = re.compile(r"(?<=[.!?])\s+")
PARAGRAPH_BREAK_RE = re.compile(r"\n\s*\n")
VOWEL_GROUPS_RE = re.compile(r"[aeiouy]+")

# Score thresholds for reading_level(), from the easiest band down.
READING_LEVELS = [
    (90, "very easy"),
    (80, "easy"),
    (70, "fairly easy"),
    (60, "standard"),
    (50, "fairly difficult"),
    (30, "difficult"),
]


def words(text):
    """Return the words of ``text`` in order, with their case kept."""
    return WORD_RE.findall(text)


def word_count(text):
    return len(words(text))


def sentences(text):
    """Split ``text`` into sentences.

    A sentence ends at '.', '!' or '?' followed by whitespace, or at the end
    of the text.  Pieces without any word in them are dropped.
    """
    pieces = SENTENCE_END_RE.split(text.strip())
    return [piece.strip() for piece in pieces if WORD_RE.search(piece)]


def sentence_count(text):
    return len(sentences(text))


def character_count(text, include_spaces=True):
    if include_spaces:
        return len(text)
    return sum(1 for ch in text if not ch.isspace())


def unique_words(text):
    """The distinct words of ``text``, lower-cased, in order of first use."""
    return list(dict.fromkeys(w.lower() for w in words(text)))


def paragraphs(text):
    blocks = PARAGRAPH_BREAK_RE.split(text)
    return [block.strip() for block in blocks if block.strip()]


def paragraph_count(text):
    return len(paragraphs(text))


def count_syllables(word):
    """A rough syllable count: groups of vowels, minus a silent final 'e'."""
    word = word.lower().strip("'")
    if not word:
        return 0
    count = len(VOWEL_GROUPS_RE.findall(word))
    if word.endswith("e") and not word.endswith(("le", "ee")) and count > 1:
        count -= 1
    return max(count, 1)


def average_word_length(text):
    ws = words(text)
    return sum(len(w) for w in ws) / len(ws)


def average_sentence_length(text):
    """Mean number of words per sentence."""
    return word_count(text) / sentence_count(text)


def lexical_diversity(text):
    """Share of distinct words (case-insensitive) among all the words."""
    total = word_count(text)
    if not total:
        return 0.0
    return len(unique_words(text)) / total


def longest_words(text, n=5):
    seen = []
    for word in words(text):
        if word.lower() not in (w.lower() for w in seen):
            seen.append(word)
    return sorted(seen, key=len, reverse=True)[:n]


def most_common_words(text, n=10, skip_stop_words=True):
    """The ``n`` most frequent words as (word, count) pairs, most frequent first."""
    counts = Counter()
    for word in words(text):
        if skip_stop_words and word.lower() in STOP_WORDS:
            continue
        counts[word] += 1
    return counts.most_common(n)


def reading_time(text):
    """Estimated reading time in minutes, at an average adult reading speed."""
    return word_count(text) / 200


def flesch_reading_ease(text):
    """The Flesch reading-ease score: higher is easier, 60-70 is plain English."""
    ws = words(text)
    syllables = sum(count_syllables(w) for w in ws)
    score = 206.835 - 1.015 * average_sentence_length(text) - 84.6 * (syllables / len(ws))
    return round(score, 1)


def reading_level(score):
    for threshold, label in READING_LEVELS:
        if score >= threshold:
            return label
    return "very difficult"


def load_text(path, encoding="utf-8"):
    """Read a whole file, falling back to latin-1 when it is not valid in ``encoding``."""
    try:
        with open(path, encoding=encoding) as handle:
            return handle.read()
    except UnicodeDecodeError:
        print(f"warning: {path} is not valid {encoding}, reading it as latin-1", file=sys.stderr)
        with open(path, encoding="latin-1") as handle:
            return handle.read()


def build_report(text, top=10, skip_stop_words=True):
    """Collect every statistic for ``text`` into a dict."""
    score = flesch_reading_ease(text)
    return {
        "words": word_count(text),
        "sentences": sentence_count(text),
        "paragraphs": paragraph_count(text),
        "characters": character_count(text),
        "unique_words": len(unique_words(text)),
        "average_word_length": average_word_length(text),
        "average_sentence_length": average_sentence_length(text),
        "lexical_diversity": lexical_diversity(text),
        "reading_time": reading_time(text),
        "reading_ease": score,
        "reading_level": reading_level(score),
        "longest_words": longest_words(text),
        "most_common": most_common_words(text, top, skip_stop_words),
    }


def format_report(stats, title=None):
    lines = []
    if title:
        lines.append(f"Report for {title}")
        lines.append("=" * len(lines[0]))
    rows = [
        ("Words", stats["words"]),
        ("Sentences", stats["sentences"]),
        ("Paragraphs", stats["paragraphs"]),
        ("Characters", stats["characters"]),
        ("Distinct words", stats["unique_words"]),
        ("Average word length", f"{stats['average_word_length']:.1f}"),
        ("Words per sentence", f"{stats['average_sentence_length']:.1f}"),
        ("Lexical diversity", f"{stats['lexical_diversity']:.2f}"),
        ("Reading time", f"{stats['reading_time']:.1f} min"),
        ("Reading ease", f"{stats['reading_ease']} ({stats['reading_level']})"),
    ]
    width = max(len(label) for label, _ in rows)
    for label, value in rows:
        lines.append(f"{label + ':':<{width + 2}}{value}")
    if stats["longest_words"]:
        lines.append(f"{'Longest words:':<{width + 2}}{', '.join(stats['longest_words'])}")
    lines.append("")
    lines.append("Most common words:")
    if not stats["most_common"]:
        lines.append("  (none)")
    for word, count in stats["most_common"]:
        lines.append(f"  {word:<20}{count:>5}")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description="Print statistics for a text file.")
    parser.add_argument("path", help="the text file to read")
    parser.add_argument("--encoding", default="utf-8", help="file encoding (default: utf-8)")
    parser.add_argument(
        "--all-words",
        action="store_true",
        help="count stop words such as 'the' and 'and' among the common words",
    )
    args = parser.parse_args(argv)

    text = load_text(args.path, args.encoding)
    stats = build_report(text, skip_stop_words=not args.all_words)
    print(format_report(stats, title=args.path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
