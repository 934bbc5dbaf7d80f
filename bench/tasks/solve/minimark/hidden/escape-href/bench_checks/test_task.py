import minimark
from bench_checks.behaviour import check_behaviour


def test_ampersand_in_href_is_escaped():
    html = minimark.convert("[q](https://x.org/?a=1&b=2)")
    assert 'href="https://x.org/?a=1&amp;b=2"' in html
    assert ">q</a>" in html


def test_quote_in_href_is_escaped():
    html = minimark.convert('[q](/search?"x")')
    assert 'href="/search?&quot;x&quot;"' in html


def test_link_with_title_and_plain_url():
    html = minimark.convert('[docs](/a?x=1&y=2 "Docs & more")')
    assert 'href="/a?x=1&amp;y=2"' in html
    assert 'title="Docs &amp; more"' in html
    assert "&amp;amp;" not in html
    assert minimark.convert("[a](/b)") == '<p><a href="/b">a</a></p>\n'


def test_behaviour_unchanged():
    check_behaviour()
