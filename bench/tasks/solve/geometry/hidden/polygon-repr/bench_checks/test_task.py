from geometry import Point, Polygon, Rectangle
from bench_checks.behaviour import check_behaviour


def test_repr():
    triangle = Polygon([(0, 0), (4, 0), (0, 3)])
    assert repr(triangle) == "Polygon([Point(x=0, y=0), Point(x=4, y=0), Point(x=0, y=3)])"
    square = Rectangle(0, 0, 1.5, 1).to_polygon()
    assert repr(square) == f"Polygon({square.points!r})"


def test_repr_round_trips():
    triangle = Polygon([Point(0, 0), Point(4, 0), Point(0, 3)])
    again = eval(repr(triangle), {"Polygon": Polygon, "Point": Point})
    assert again.points == triangle.points


def test_behaviour_unchanged():
    check_behaviour()
