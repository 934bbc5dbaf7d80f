import minimark
from bench_checks.behaviour import check_behaviour


def test_start_attribute():
    assert minimark.convert("3. c\n4. d") == '<ol start="3">\n<li>c</li>\n<li>d</li>\n</ol>\n'
    assert minimark.convert("10) ten").startswith('<ol start="10">\n')


def test_lists_starting_at_one_unchanged():
    assert minimark.convert("1. a\n2. b") == "<ol>\n<li>a</li>\n<li>b</li>\n</ol>\n"
    assert minimark.convert("- a") == "<ul>\n<li>a</li>\n</ul>\n"


def test_behaviour_unchanged():
    check_behaviour()
