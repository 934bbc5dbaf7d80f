import math

from geometry import Circle, Point
from bench_checks.behaviour import check_behaviour


def test_scale():
    circle = Circle(Point(1, 2), 3)
    bigger = circle.scale(2)
    assert isinstance(bigger, Circle)
    assert bigger is not circle
    assert bigger.center == Point(1, 2)
    assert bigger.radius == 6
    assert abs(bigger.area - 36 * math.pi) < 1e-9
    smaller = circle.scale(0.5)
    assert smaller.radius == 1.5 and smaller.center == Point(1, 2)


def test_original_unchanged():
    circle = Circle(Point(1, 2), 3)
    circle.scale(4)
    assert circle.radius == 3
    assert circle.center == Point(1, 2)


def test_behaviour_unchanged():
    check_behaviour()
