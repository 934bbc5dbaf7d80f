import math

import geometry
from geometry import BoundingBox, Circle, Point, Polygon, Rectangle, Vector


def close(a, b):
    return abs(a - b) < 1e-9


def check_behaviour():
    assert Point(0, 0).distance_to(Point(3, 4)) == 5
    assert Point(1, 1) + Vector(2, 3) == Point(3, 4)
    assert Vector(3, 4).length == 5
    assert Vector(3, 4).normalized() == Vector(0.6, 0.8)

    circle = Circle(Point(1, 1), 2)
    assert close(circle.area, 4 * math.pi)
    assert close(circle.perimeter, 4 * math.pi)
    assert circle.contains(Point(3, 1)) and not circle.contains(Point(3, 3))
    assert circle.bounding_box() == BoundingBox(-1, -1, 3, 3)

    rect = Rectangle(0, 0, 4, 2)
    assert rect.area == 8 and rect.perimeter == 12
    assert rect.contains(Point(4, 2)) and not rect.contains(Point(4.5, 1))

    triangle = Polygon([(0, 0), (4, 0), (0, 3)])
    assert triangle.area == 6 and triangle.perimeter == 12
    square = Polygon([(0, 0), (2, 0), (2, 2), (0, 2)])
    assert square.contains(Point(1, 1)) and square.contains(Point(2, 1))
    assert not square.contains(Point(3, 1))
    assert square.centroid() == Point(1, 1)
    clockwise = Polygon([(0, 0), (0, 2), (2, 2), (2, 0)])
    assert clockwise.centroid() == Point(1, 1)
    assert clockwise.contains(Point(1, 1)) and not clockwise.contains(Point(3, 1))

    box = geometry.bounding_box([Circle(geometry.ORIGIN, 1), Rectangle(2, 2, 1, 3)])
    assert box == BoundingBox(-1, -1, 3, 5)
    assert geometry.total_area([Rectangle(0, 0, 2, 3), triangle]) == 12
    assert geometry.parse_point("(1.5, -2)") == Point(1.5, -2)
    assert close(geometry.regular_polygon(4, 1).area, 2)
