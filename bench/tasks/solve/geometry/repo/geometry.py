"""Plane geometry: points, vectors and a few shapes with area, perimeter and hit tests.

Coordinates are plain floats in a y-up system. Shapes can report an axis-aligned
bounding box, which is what the layout code uses to place them.
"""

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Point:
    x: float
    y: float

    def distance_to(self, other):
        return math.hypot(other.x - self.x, other.y - self.y)

    def translate(self, dx, dy):
        return Point(self.x + dx, self.y + dy)

    def __add__(self, vector):
        if not isinstance(vector, Vector):
            return NotImplemented
        return Point(self.x + vector.dx, self.y + vector.dy)

    def __sub__(self, other):
        if isinstance(other, Point):
            return Vector(self.x - other.x, self.y - other.y)
        if isinstance(other, Vector):
            return Point(self.x - other.dx, self.y - other.dy)
        return NotImplemented


ORIGIN = Point(0.0, 0.0)


@dataclass(frozen=True)
class Vector:
    dx: float
    dy: float

    @classmethod
    def between(cls, start, end):
        return cls(end.x - start.x, end.y - start.y)

    def __add__(self, other):
        return Vector(self.dx + other.dx, self.dy + other.dy)

    def __sub__(self, other):
        return Vector(self.dx - other.dx, self.dy - other.dy)

    def __mul__(self, factor):
        return Vector(self.dx * factor, self.dy * factor)

    __rmul__ = __mul__

    @property
    def length(self):
        return math.hypot(self.dx, self.dy)

    def dot(self, other):
        return self.dx * other.dx + self.dy * other.dy

    def cross(self, other):
        """The z component of the 3D cross product; positive when other turns left."""
        return self.dx * other.dy - self.dy * other.dx

    def normalized(self):
        length = self.length
        if length < 1e-9:
            raise ValueError("cannot normalize a zero-length vector")
        return Vector(self.dx / length, self.dy / length)

    def angle(self):
        """Direction in radians, counter-clockwise from the x axis."""
        return math.atan2(self.dy, self.dx)

    def rotated(self, radians):
        cos, sin = math.cos(radians), math.sin(radians)
        return Vector(self.dx * cos - self.dy * sin, self.dx * sin + self.dy * cos)


@dataclass(frozen=True)
class BoundingBox:
    min_x: float
    min_y: float
    max_x: float
    max_y: float

    @property
    def width(self):
        return self.max_x - self.min_x

    @property
    def height(self):
        return self.max_y - self.min_y

    @property
    def center(self):
        return Point((self.min_x + self.max_x) / 2, (self.min_y + self.max_y) / 2)

    def contains(self, point):
        return (self.min_x - 1e-9 <= point.x <= self.max_x + 1e-9
                and self.min_y - 1e-9 <= point.y <= self.max_y + 1e-9)

    def union(self, other):
        return BoundingBox(min(self.min_x, other.min_x), min(self.min_y, other.min_y),
                           max(self.max_x, other.max_x), max(self.max_y, other.max_y))


class Circle:
    def __init__(self, center, radius):
        self.center = center
        self.radius = radius

    def __repr__(self):
        return f"Circle({self.center!r}, {self.radius!r})"

    def __eq__(self, other):
        if not isinstance(other, Circle):
            return NotImplemented
        return self.center == other.center and self.radius == other.radius

    @property
    def area(self):
        return math.pi * self.radius ** 2

    @property
    def perimeter(self):
        return 2 * math.pi * self.radius

    def contains(self, point):
        """True for points inside the circle or on its edge."""
        return self.center.distance_to(point) <= self.radius + 1e-9

    def bounding_box(self):
        c, r = self.center, self.radius
        return BoundingBox(c.x - r, c.y - r, c.x + r, c.y + r)


class Rectangle:
    """An axis-aligned rectangle given by its lower-left corner, width and height."""

    def __init__(self, x, y, width, height):
        if width < 0 or height < 0:
            raise ValueError("width and height must not be negative")
        self.x = x
        self.y = y
        self.width = width
        self.height = height

    @classmethod
    def from_corners(cls, a, b):
        return cls(min(a.x, b.x), min(a.y, b.y), abs(a.x - b.x), abs(a.y - b.y))

    def __repr__(self):
        return f"Rectangle(x={self.x}, y={self.y}, width={self.width}, height={self.height})"

    @property
    def area(self):
        return self.width * self.height

    @property
    def perimeter(self):
        return 2 * (self.width + self.height)

    def corners(self):
        """The four corners, counter-clockwise from the lower left."""
        x, y, w, h = self.x, self.y, self.width, self.height
        return [Point(x, y), Point(x + w, y), Point(x + w, y + h), Point(x, y + h)]

    def contains(self, point):
        return (self.x - 1e-9 <= point.x <= self.x + self.width + 1e-9
                and self.y - 1e-9 <= point.y <= self.y + self.height + 1e-9)

    def intersects(self, other):
        return not (other.x > self.x + self.width or other.x + other.width < self.x
                    or other.y > self.y + self.height or other.y + other.height < self.y)

    def bounding_box(self):
        return BoundingBox(self.x, self.y, self.x + self.width, self.y + self.height)

    def to_polygon(self):
        return Polygon(self.corners())


def _distance_to_segment(point, a, b):
    edge = Vector.between(a, b)
    length_sq = edge.dot(edge)
    if length_sq == 0:
        return point.distance_to(a)
    t = max(0.0, min(1.0, Vector.between(a, point).dot(edge) / length_sq))
    return point.distance_to(a + edge * t)


class Polygon:
    def __init__(self, points):
        points = [p if isinstance(p, Point) else Point(*p) for p in points]
        if len(points) < 3:
            raise ValueError("a polygon needs at least three points")
        self.points = points

    def edges(self):
        return list(zip(self.points, self.points[1:] + self.points[:1]))

    @property
    def area(self):
        # shoelace formula
        return sum(a.x * b.y - b.x * a.y for a, b in self.edges()) / 2

    @property
    def perimeter(self):
        return sum(a.distance_to(b) for a, b in self.edges())

    def centroid(self):
        signed = 0.0
        cx = cy = 0.0
        for a, b in self.edges():
            step = a.x * b.y - b.x * a.y
            signed += step
            cx += (a.x + b.x) * step
            cy += (a.y + b.y) * step
        signed /= 2
        return Point(cx / (6 * signed), cy / (6 * signed))

    def contains(self, point):
        """Ray casting; points on an edge count as inside."""
        inside = False
        for a, b in self.edges():
            if _distance_to_segment(point, a, b) <= 1e-9:
                return True
            if (a.y > point.y) != (b.y > point.y):
                x_cross = a.x + (point.y - a.y) * (b.x - a.x) / (b.y - a.y)
                if point.x < x_cross:
                    inside = not inside
        return inside

    def bounding_box(self):
        xs = [p.x for p in self.points]
        ys = [p.y for p in self.points]
        return BoundingBox(min(xs), min(ys), max(xs), max(ys))

    def translate(self, dx, dy):
        return Polygon([p.translate(dx, dy) for p in self.points])


def regular_polygon(sides, radius, center=ORIGIN):
    """A regular polygon with its first corner straight right of the center."""
    if sides < 3:
        raise ValueError("a polygon needs at least three sides")
    step = 2 * math.pi / sides
    return Polygon([
        Point(center.x + radius * math.cos(i * step), center.y + radius * math.sin(i * step))
        for i in range(sides)
    ])


def bounding_box(shapes):
    """The box around all the given shapes."""
    shapes = list(shapes)
    if not shapes:
        raise ValueError("no shapes given")
    box = shapes[0].bounding_box()
    for shape in shapes[1:]:
        box = box.union(shape.bounding_box())
    return box


def total_area(shapes):
    return sum(shape.area for shape in shapes)


def parse_point(text):
    """Read "3, 4" or "(3, 4)" as a Point."""
    cleaned = text.strip().strip("()")
    parts = [part.strip() for part in cleaned.split(",")]
    if len(parts) != 2:
        raise ValueError(f"expected two coordinates, got {text!r}")
    return Point(float(parts[0]), float(parts[1]))
