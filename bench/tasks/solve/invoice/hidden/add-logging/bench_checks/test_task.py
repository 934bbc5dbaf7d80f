import logging

import invoice
from bench_checks.behaviour import check_behaviour


def test_apply_discount_logs(caplog):
    caplog.set_level(logging.DEBUG)
    assert invoice.apply_discount(200, 10) == 180
    records = [r for r in caplog.records if r.name == "invoice"]
    assert records, "apply_discount logged nothing on the module's logger"
    text = " ".join(r.getMessage() for r in records)
    assert "200" in text and "10" in text


def test_behaviour_unchanged():
    check_behaviour()
