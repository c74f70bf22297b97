"""Reading a drawn diagram back, so that a test can check what a reader will see (Chapter 2
onward): which labels collide (:func:`overlapping_labels`) and which arrow joins which nodes
(:func:`drawn_arrows`), found from the figure's own patches and texts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import cast

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_hex
from matplotlib.figure import Figure
from matplotlib.patches import Circle, FancyArrowPatch, FancyBboxPatch, Patch
from matplotlib.path import Path as CurvePath
from matplotlib.text import Text

from coursekit.viz.diagrams.drawing import NODE_TAG
from coursekit.viz.diagrams.shapes import Point

TOUCH_TOLERANCE = 0.03
"""How close (inches) an arrow's end must come to a node's outline to count as touching it, plus
its line width: matplotlib pulls the head of a thick arrow back so that its stroke ends there."""
POINTS_PER_INCH = 72.0
LOOP_LENGTH = 0.1
"""An arrow's end lies at least this far (inches) from its start, even for a loop."""


@dataclass(frozen=True)
class DrawnNode:
    """A box or circle as drawn: the text inside it (lines top to bottom) and its centre."""

    text: str
    center: Point
    patch: Patch

    def distance_to_outline(self, point: Point) -> float:
        """Distance in inches from ``point`` to the node's outline (a circle or a rectangle)."""
        if isinstance(self.patch, Circle):
            return abs(math.dist(point, self.center) - self.patch.radius)
        assert isinstance(self.patch, FancyBboxPatch)
        left, bottom = self.patch.get_x(), self.patch.get_y()
        right, top = left + self.patch.get_width(), bottom + self.patch.get_height()
        outside = math.hypot(
            max(left - point[0], 0.0, point[0] - right), max(bottom - point[1], 0.0, point[1] - top)
        )
        inside = min(point[0] - left, right - point[0], point[1] - bottom, top - point[1])
        return outside if outside > 0 else inside


@dataclass(frozen=True)
class DrawnArrow:
    """An arrow or line as drawn: the nodes it leaves and reaches (None for a free end), its
    colour (hex) and whether it is dashed."""

    source: DrawnNode | None
    target: DrawnNode | None
    color: str
    dashed: bool


def drawn_nodes(figure: Figure) -> list[DrawnNode]:
    """Every box and circle that :class:`~coursekit.viz.diagrams.drawing.Diagram` drew in
    ``figure``."""
    texts = [text for text in figure.findobj(Text) if text.get_text()]
    nodes = []
    for patch in figure.findobj(Patch):
        if patch.get_label() != NODE_TAG:
            continue
        inside = [text for text in texts if patch.contains_point(_display(text))]
        inside.sort(key=lambda text: -text.get_position()[1])
        box = cast(FancyBboxPatch, patch)  # the diagrams draw nodes as circles and boxes
        center = patch.center if isinstance(patch, Circle) else _box_center(box)
        nodes.append(DrawnNode("\n".join(text.get_text() for text in inside), center, patch))
    return nodes


def drawn_arrows(figure: Figure) -> list[DrawnArrow]:
    """Every arrow and line of ``figure`` with the nodes at its two ends."""
    nodes = drawn_nodes(figure)
    arrows = []
    for patch in figure.findobj(FancyArrowPatch):
        path = patch.get_path()
        drawn = np.asarray(path.vertices)[path.codes != CurvePath.CLOSEPOLY]
        start = tuple(drawn[0])
        tolerance = TOUCH_TOLERANCE + patch.get_linewidth() / POINTS_PER_INCH
        source = _touching(nodes, [start], tolerance)
        far = [tuple(vertex) for vertex in drawn if math.dist(vertex, start) > LOOP_LENGTH]
        target = _touching(nodes, far, tolerance)
        dashed = patch.get_linestyle() not in ("solid", "-")
        arrows.append(DrawnArrow(source, target, to_hex(patch.get_edgecolor()), dashed))
    return arrows


def overlapping_labels(figure: Figure) -> list[str]:
    """Every collision of text in ``figure``: two texts that overlap, a text that runs into a
    node it does not sit in, or a text that leaves the canvas. Empty for a clean figure."""
    canvas = figure.canvas
    renderer = (
        canvas if isinstance(canvas, FigureCanvasAgg) else FigureCanvasAgg(figure)
    ).get_renderer()
    texts = [text for text in figure.findobj(Text) if text.get_visible() and text.get_text()]
    extents = [text.get_window_extent(renderer) for text in texts]
    nodes = [node.patch.get_window_extent(renderer) for node in drawn_nodes(figure)]
    problems = []
    for index, (text, extent) in enumerate(zip(texts, extents, strict=True)):
        for other, other_extent in zip(texts[index + 1 :], extents[index + 1 :], strict=True):
            if extent.overlaps(other_extent):
                problems.append(f"{text.get_text()!r} overlaps {other.get_text()!r}")
        center = ((extent.x0 + extent.x1) / 2, (extent.y0 + extent.y1) / 2)
        for node in nodes:
            if extent.overlaps(node) and not node.contains(*center):
                problems.append(f"{text.get_text()!r} runs into the node at {node.bounds}")
        if not (
            figure.bbox.contains(extent.x0, extent.y0)
            and figure.bbox.contains(extent.x1, extent.y1)
        ):
            problems.append(f"{text.get_text()!r} leaves the canvas")
    return problems


def _display(text: Text) -> tuple[float, float]:
    """The anchor of ``text`` in display coordinates."""
    return tuple(text.get_transform().transform(text.get_position()))


def _box_center(patch: FancyBboxPatch) -> Point:
    """The centre of a box patch, in data coordinates (inches)."""
    return (patch.get_x() + patch.get_width() / 2, patch.get_y() + patch.get_height() / 2)


def _touching(nodes: list[DrawnNode], points: list[Point], tolerance: float) -> DrawnNode | None:
    """The node whose outline passes closest to one of ``points``, within ``tolerance``."""
    best, best_distance = None, tolerance
    for node in nodes:
        distance = float(np.min([node.distance_to_outline(point) for point in points]))
        if distance <= best_distance:
            best, best_distance = node, distance
    return best
