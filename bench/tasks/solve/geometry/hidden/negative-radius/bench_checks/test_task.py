import pytest

from geometry import Circle, Point
from bench_checks.behaviour import check_behaviour


@pytest.mark.parametrize("radius", [-1, -0.5, -1e-6])
def test_negative_radius(radius):
    with pytest.raises(ValueError):
        Circle(Point(0, 0), radius)


def test_zero_and_positive_radius():
    assert Circle(Point(0, 0), 0).area == 0
    assert Circle(Point(1, 2), 3).radius == 3


def test_behaviour_unchanged():
    check_behaviour()
