import minimark
from bench_checks.behaviour import check_behaviour


def test_renamed():
    assert hasattr(minimark, "render_spans")
    assert not hasattr(minimark, "render_inline")
    assert minimark.render_spans("*a* & `b`") == "<em>a</em> &amp; <code>b</code>"


def test_behaviour_unchanged():
    check_behaviour()
