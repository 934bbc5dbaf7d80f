from inventory import models, store
from bench_checks.behaviour import check_behaviour


def test_renamed():
    assert hasattr(models, "clean_sku")
    assert not hasattr(models, "normalize_sku")
    assert not hasattr(store, "normalize_sku")
    assert models.clean_sku(" ab-0012 ") == "AB-0012"


def test_bad_sku_still_rejected():
    try:
        models.clean_sku("nonsense")
    except ValueError:
        pass
    else:
        raise AssertionError("clean_sku should still raise ValueError")


def test_behaviour_unchanged():
    check_behaviour()
