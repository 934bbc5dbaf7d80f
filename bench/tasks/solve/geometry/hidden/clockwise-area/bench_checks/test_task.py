import geometry
from geometry import Polygon, Rectangle
from bench_checks.behaviour import check_behaviour


def test_clockwise_area_is_positive():
    assert Polygon([(0, 0), (0, 3), (4, 0)]).area == 6
    assert Polygon([(0, 0), (0, 2), (3, 2), (3, 0)]).area == 6
    reversed_rect = Polygon(list(reversed(Rectangle(1, 1, 3, 2).corners())))
    assert reversed_rect.area == 6


def test_counter_clockwise_unchanged():
    assert Polygon([(0, 0), (4, 0), (0, 3)]).area == 6


def test_total_area_with_clockwise_polygon():
    shapes = [Rectangle(0, 0, 2, 3), Polygon([(0, 0), (0, 3), (4, 0)])]
    assert geometry.total_area(shapes) == 12


def test_behaviour_unchanged():
    check_behaviour()
