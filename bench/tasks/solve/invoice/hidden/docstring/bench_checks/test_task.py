import invoice
from bench_checks.behaviour import check_behaviour


def test_docstring():
    doc = invoice.summarize.__doc__
    assert doc and len(doc.strip()) > 10


def test_behaviour_unchanged():
    check_behaviour()
