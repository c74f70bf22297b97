"""Geometry of the diagrams' pieces (Chapter 2 onward): boxes and circles with their borders and
ports, rounded polylines and arcs for arrows, points along a route for labels. Distances are in
inches on the page.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Literal

from matplotlib.path import Path as CurvePath

Point = tuple[float, float]
Side = Literal["left", "right", "top", "bottom"]


@dataclass(frozen=True)
class Box:
    """A rectangle centred on ``center``, ``width`` by ``height`` inches."""

    center: Point
    width: float
    height: float

    def port(self, side: Side, fraction: float = 0.5) -> Point:
        """The point ``fraction`` of the way along ``side`` (from its left or bottom end)."""
        x, y = self.center
        left, bottom = x - self.width / 2, y - self.height / 2
        along_x, along_y = left + fraction * self.width, bottom + fraction * self.height
        ports = {
            "left": (left, along_y),
            "right": (left + self.width, along_y),
            "bottom": (along_x, bottom),
            "top": (along_x, bottom + self.height),
        }
        return ports[side]

    def border_toward(self, target: Point) -> Point:
        """Where the ray from the centre toward ``target`` leaves the rectangle."""
        dx, dy = target[0] - self.center[0], target[1] - self.center[1]
        scale_x = self.width / 2 / abs(dx) if dx else math.inf
        scale_y = self.height / 2 / abs(dy) if dy else math.inf
        scale = min(scale_x, scale_y)
        return (float(self.center[0] + scale * dx), float(self.center[1] + scale * dy))


@dataclass(frozen=True)
class Operation:
    """A circle of ``radius`` inches centred on ``center``: a pointwise operation."""

    center: Point
    radius: float

    def port(self, side: Side) -> Point:
        """The point of the circle on ``side``: its leftmost, rightmost, lowest or highest."""
        x, y = self.center
        offsets = {"left": (-1, 0), "right": (1, 0), "bottom": (0, -1), "top": (0, 1)}
        dx, dy = offsets[side]
        return (x + dx * self.radius, y + dy * self.radius)

    def border_toward(self, target: Point) -> Point:
        """Where the ray from the centre toward ``target`` leaves the circle."""
        dx, dy = target[0] - self.center[0], target[1] - self.center[1]
        length = math.hypot(dx, dy)
        x, y = self.center
        return (float(x + self.radius * dx / length), float(y + self.radius * dy / length))


Endpoint = Box | Operation | tuple[float, float]


def center_of(endpoint: Endpoint) -> Point:
    """The centre of a node, or the point itself."""
    return endpoint.center if isinstance(endpoint, Box | Operation) else endpoint


def attach(endpoint: Endpoint, toward: Point) -> Point:
    """Where a line toward ``toward`` meets ``endpoint``: the node's border, or the point."""
    if isinstance(endpoint, Box | Operation):
        return endpoint.border_toward(toward)
    return endpoint


def rounded_polyline(points: Sequence[Point], radius: float) -> CurvePath:
    """The polyline through ``points`` with each corner rounded by a quadratic arc."""
    vertices: list[Point] = [points[0]]
    codes = [CurvePath.MOVETO]
    for index in range(1, len(points) - 1):
        before, corner, after = points[index - 1], points[index], points[index + 1]
        into = math.dist(before, corner)
        out_of = math.dist(corner, after)
        cut = min(radius, into / 2, out_of / 2)
        enter = _toward(corner, before, cut)
        leave = _toward(corner, after, cut)
        vertices += [enter, corner, leave]
        codes += [CurvePath.LINETO, CurvePath.CURVE3, CurvePath.CURVE3]
    vertices.append(points[-1])
    codes.append(CurvePath.LINETO)
    return CurvePath(vertices, codes)


def _toward(origin: Point, target: Point, distance: float) -> Point:
    """The point ``distance`` inches from ``origin`` toward ``target``."""
    length = math.dist(origin, target)
    return (
        origin[0] + distance * (target[0] - origin[0]) / length,
        origin[1] + distance * (target[1] - origin[1]) / length,
    )


def point_along(points: Sequence[Point], fraction: float) -> Point:
    """The point ``fraction`` of the way along the polyline through ``points``."""
    segments = list(pairwise(points))
    remaining = fraction * sum(math.dist(a, b) for a, b in segments)
    for a, b in segments:
        length = math.dist(a, b)
        if length > 0 and remaining <= length:
            return _toward(a, b, remaining)
        remaining -= length
    return points[-1]


def arc_control_point(start: Point, end: Point, bend: float) -> Point:
    """Control point of matplotlib's ``arc3,rad=bend``: the chord's midpoint moved by
    ``bend`` times the chord's length, to the right of the direction of travel."""
    dx, dy = end[0] - start[0], end[1] - start[1]
    return ((start[0] + end[0]) / 2 + bend * dy, (start[1] + end[1]) / 2 - bend * dx)


def quadratic_curve_points(
    start: Point, control: Point, end: Point, count: int = 33
) -> list[Point]:
    """Points along the quadratic Bezier curve start-control-end, to place a label on an arc."""
    samples = []
    for step in range(count):
        t = step / (count - 1)
        a, b, c = (1 - t) ** 2, 2 * t * (1 - t), t**2
        samples.append(
            (a * start[0] + b * control[0] + c * end[0], a * start[1] + b * control[1] + c * end[1])
        )
    return samples
