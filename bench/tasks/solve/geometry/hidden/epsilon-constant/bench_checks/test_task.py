import pytest

import geometry
from geometry import BoundingBox, Circle, Point, Polygon, Rectangle, Vector
from bench_checks.behaviour import check_behaviour


def test_constant_value():
    assert geometry.EPSILON == 1e-9


def test_circle_uses_constant(monkeypatch):
    circle = Circle(Point(0, 0), 1)
    assert not circle.contains(Point(1.3, 0))
    monkeypatch.setattr(geometry, "EPSILON", 0.5)
    assert circle.contains(Point(1.3, 0))


def test_rectangle_uses_constant(monkeypatch):
    rect = Rectangle(0, 0, 2, 2)
    assert not rect.contains(Point(2.3, 1))
    monkeypatch.setattr(geometry, "EPSILON", 0.5)
    assert rect.contains(Point(2.3, 1))
    assert rect.contains(Point(1, -0.3))


def test_bounding_box_uses_constant(monkeypatch):
    box = BoundingBox(0, 0, 2, 2)
    assert not box.contains(Point(-0.3, 1))
    monkeypatch.setattr(geometry, "EPSILON", 0.5)
    assert box.contains(Point(-0.3, 1))
    assert box.contains(Point(1, 2.3))


def test_polygon_edge_uses_constant(monkeypatch):
    square = Polygon([(0, 0), (2, 0), (2, 2), (0, 2)])
    assert not square.contains(Point(2.3, 1))
    monkeypatch.setattr(geometry, "EPSILON", 0.5)
    assert square.contains(Point(2.3, 1))


def test_normalized_uses_constant(monkeypatch):
    assert Vector(0.3, 0).normalized() == Vector(1, 0)
    monkeypatch.setattr(geometry, "EPSILON", 0.5)
    with pytest.raises(ValueError):
        Vector(0.3, 0).normalized()


def test_behaviour_unchanged():
    check_behaviour()
