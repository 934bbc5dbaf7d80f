import math

import pytest

from geometry import (
    ORIGIN,
    BoundingBox,
    Circle,
    Point,
    Polygon,
    Rectangle,
    Vector,
    bounding_box,
    parse_point,
    regular_polygon,
    total_area,
)


def test_point_distance_and_translate():
    assert Point(0, 0).distance_to(Point(3, 4)) == 5
    assert Point(1, 2).translate(2, -1) == Point(3, 1)


def test_point_vector_arithmetic():
    assert Point(1, 1) + Vector(2, 3) == Point(3, 4)
    assert Point(5, 5) - Point(2, 1) == Vector(3, 4)
    assert Point(5, 5) - Vector(1, 1) == Point(4, 4)


def test_vector_basics():
    v = Vector(3, 4)
    assert v.length == 5
    assert v * 2 == Vector(6, 8) == 2 * v
    assert v.dot(Vector(1, 0)) == 3
    assert Vector(1, 0).cross(Vector(0, 1)) == 1
    assert Vector.between(Point(1, 1), Point(4, 5)) == v
    assert v.normalized() == Vector(0.6, 0.8)
    with pytest.raises(ValueError):
        Vector(0, 0).normalized()


def test_vector_rotation():
    turned = Vector(1, 0).rotated(math.pi / 2)
    assert turned.dx == pytest.approx(0, abs=1e-12)
    assert turned.dy == pytest.approx(1)
    assert Vector(0, 2).angle() == pytest.approx(math.pi / 2)


def test_circle():
    c = Circle(Point(1, 1), 2)
    assert c.area == pytest.approx(4 * math.pi)
    assert c.perimeter == pytest.approx(4 * math.pi)
    assert c.contains(Point(3, 1))
    assert c.contains(Point(1, 1))
    assert not c.contains(Point(3, 3))
    assert c.bounding_box() == BoundingBox(-1, -1, 3, 3)
    assert repr(c) == "Circle(Point(x=1, y=1), 2)"


def test_rectangle():
    r = Rectangle(0, 0, 4, 2)
    assert r.area == 8
    assert r.perimeter == 12
    assert r.contains(Point(4, 2))
    assert not r.contains(Point(4.5, 1))
    assert r.corners()[2] == Point(4, 2)
    assert r.bounding_box().width == 4
    assert Rectangle.from_corners(Point(4, 2), Point(0, 0)).area == 8
    with pytest.raises(ValueError):
        Rectangle(0, 0, -1, 2)


def test_rectangle_intersects():
    r = Rectangle(0, 0, 4, 2)
    assert r.intersects(Rectangle(3, 1, 5, 5))
    assert r.intersects(Rectangle(4, 2, 1, 1))
    assert not r.intersects(Rectangle(5, 0, 1, 1))


def test_polygon_area_and_perimeter():
    triangle = Polygon([(0, 0), (4, 0), (0, 3)])
    assert triangle.area == 6
    assert triangle.perimeter == 12
    assert Rectangle(1, 1, 3, 2).to_polygon().area == 6


def test_polygon_contains():
    square = Polygon([Point(0, 0), Point(2, 0), Point(2, 2), Point(0, 2)])
    assert square.contains(Point(1, 1))
    assert square.contains(Point(2, 1))
    assert not square.contains(Point(3, 1))
    assert not square.contains(Point(-0.1, 1))


def test_polygon_centroid_and_box():
    square = Polygon([(0, 0), (2, 0), (2, 2), (0, 2)])
    assert square.centroid() == Point(1, 1)
    assert square.bounding_box() == BoundingBox(0, 0, 2, 2)
    assert square.translate(1, 1).bounding_box() == BoundingBox(1, 1, 3, 3)


def test_polygon_needs_three_points():
    with pytest.raises(ValueError):
        Polygon([(0, 0), (1, 1)])


def test_regular_polygon():
    hexagon = regular_polygon(6, 1)
    assert len(hexagon.points) == 6
    assert hexagon.points[0] == Point(1, 0)
    assert hexagon.area == pytest.approx(3 * math.sqrt(3) / 2)
    assert hexagon.perimeter == pytest.approx(6)
    with pytest.raises(ValueError):
        regular_polygon(2, 1)


def test_bounding_box_of_shapes():
    box = bounding_box([Circle(ORIGIN, 1), Rectangle(2, 2, 1, 3)])
    assert box == BoundingBox(-1, -1, 3, 5)
    assert box.center == Point(1, 2)
    assert box.contains(Point(3, 5))
    with pytest.raises(ValueError):
        bounding_box([])


def test_total_area():
    shapes = [Rectangle(0, 0, 2, 3), Polygon([(0, 0), (4, 0), (0, 3)])]
    assert total_area(shapes) == 12
    assert total_area([]) == 0


def test_parse_point():
    assert parse_point("3, 4") == Point(3, 4)
    assert parse_point(" (1.5,-2) ") == Point(1.5, -2)
    with pytest.raises(ValueError):
        parse_point("1 2")
