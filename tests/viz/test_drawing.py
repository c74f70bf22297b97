"""The diagram toolkit (coursekit.viz.diagrams.drawing, .shapes, .inspection): borders, arrows
from border to border, labels beside their lines, errors that name the fix, and SVG that repeats byte for byte.
"""

from __future__ import annotations

import io
import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from matplotlib.colors import to_rgb
from PIL import Image

from coursekit.page import TEXT_COLUMN_WIDTH
from coursekit.viz.diagrams.drawing import (
    DIAGRAM_DPI,
    INK,
    PALETTE,
    PRODUCT,
    Diagram,
    png_bytes,
    software_stamp,
)
from coursekit.viz.diagrams.inspection import drawn_arrows, overlapping_labels
from coursekit.viz.diagrams.shapes import Box, Operation, point_along, rounded_polyline

coordinate = st.floats(-3.0, 3.0, allow_nan=False)
length = st.floats(0.1, 2.0, allow_nan=False)


def on_box_border(box: Box, point: tuple[float, float]) -> bool:
    """True when ``point`` lies on the outline of ``box``."""
    dx, dy = point[0] - box.center[0], point[1] - box.center[1]
    return math.isclose(max(abs(dx) / (box.width / 2), abs(dy) / (box.height / 2)), 1.0)


def same_direction(origin, first, second) -> bool:
    """True when ``first`` and ``second`` lie on the same ray from ``origin``."""
    a = (first[0] - origin[0], first[1] - origin[1])
    b = (second[0] - origin[0], second[1] - origin[1])
    cross = a[0] * b[1] - a[1] * b[0]
    return (
        abs(cross) <= 1e-9 * (1 + math.hypot(*a) * math.hypot(*b)) and a[0] * b[0] + a[1] * b[1] > 0
    )


@settings(max_examples=60, deadline=None)
@given(coordinate, coordinate, length, length, coordinate, coordinate)
def test_a_box_border_point_lies_on_the_outline_toward_the_target(x, y, width, height, tx, ty):
    assume(math.hypot(tx - x, ty - y) > 1e-3)
    box = Box((x, y), width, height)
    point = box.border_toward((tx, ty))
    assert on_box_border(box, point)
    assert same_direction(box.center, point, (tx, ty))


@settings(max_examples=60, deadline=None)
@given(coordinate, coordinate, length, coordinate, coordinate)
def test_a_circle_border_point_lies_on_the_circle_toward_the_target(x, y, radius, tx, ty):
    assume(math.hypot(tx - x, ty - y) > 1e-3)
    circle = Operation((x, y), radius)
    point = circle.border_toward((tx, ty))
    assert math.isclose(math.dist(point, circle.center), radius)
    assert same_direction(circle.center, point, (tx, ty))


@pytest.mark.parametrize("end_center", [(3.0, 1.0), (1.0, 2.6), (3.2, 2.4), (0.4, 0.3)])
def test_an_arrow_between_two_boxes_starts_and_ends_at_their_borders(end_center):
    diagram = Diagram(4.0, 3.0)
    start = diagram.box((1.0, 1.0), "$a$", "input")
    end = diagram.box(end_center, "$b$", "state")
    arrow = diagram.arrow(start, end)
    assert on_box_border(start, arrow.points[0])
    assert on_box_border(end, arrow.points[-1])
    drawn = arrow.patch.get_path().vertices
    assert tuple(drawn[0]) == pytest.approx(arrow.points[0])
    tip_gap = min(math.dist(vertex, arrow.points[-1]) for vertex in drawn)
    assert tip_gap <= arrow.patch.get_linewidth() / 72, "the head's tip stops short of the border"
    (found,) = drawn_arrows(diagram.figure)
    assert (found.source.text, found.target.text) == ("$a$", "$b$")


def test_an_arrow_through_corners_follows_them_and_leaves_from_the_side_they_lie_on():
    diagram = Diagram(4.0, 3.0)
    start = diagram.box((1.0, 1.0), "$a$", "input")
    end = diagram.operation((3.0, 2.5), PRODUCT)
    arrow = diagram.arrow(start, end, via=[(1.0, 2.5)])
    assert arrow.points[1:-1] == ((1.0, 2.5),)
    assert arrow.points[0] == pytest.approx(start.port("top"))
    assert arrow.points[-1] == pytest.approx(end.port("left"))
    path = rounded_polyline(arrow.points, 0.08)
    assert tuple(path.vertices[0]) == arrow.points[0]
    assert tuple(path.vertices[-1]) == arrow.points[-1]
    extent = path.get_extents()
    assert extent.x0 >= 1.0 - 1e-9 and extent.y1 <= 2.5 + 1e-9, "a rounded corner overshoots"


def test_a_bent_arrow_ends_on_the_borders_and_bulges_to_the_right_of_travel():
    diagram = Diagram(4.0, 3.0)
    left = diagram.box((1.0, 1.5), "$a$", "state")
    right = diagram.box((3.0, 1.5), "$b$", "state")
    arrow = diagram.arrow(right, left, bend=0.4, label="$g$", label_side="top")
    assert on_box_border(right, arrow.points[0]) and on_box_border(left, arrow.points[-1])
    travelling_left_the_right_is_up = arrow.patch.get_path().get_extents().y1 > 1.5 + 0.3
    assert travelling_left_the_right_is_up
    assert overlapping_labels(diagram.figure) == []


@pytest.mark.parametrize("side", ["left", "right", "top", "bottom"])
def test_a_label_sits_beside_its_line_without_touching_it(side):
    diagram = Diagram(4.0, 3.0)
    vertical = side in ("left", "right")
    end = (2.0, 2.5) if vertical else (3.5, 1.5)
    arrow = diagram.arrow(
        (2.0, 0.5) if vertical else (0.5, 1.5), end, label="$W_{hh}$", label_side=side
    )
    (text,) = diagram.axes.texts
    extent = text.get_window_extent(diagram.canvas.get_renderer())
    line_x, line_y = diagram.axes.transData.transform(arrow.points[0])
    half_width = arrow.patch.get_linewidth() / 72 * diagram.figure.dpi / 2
    beyond = {
        "left": extent.x1 < line_x - half_width,
        "right": extent.x0 > line_x + half_width,
        "top": extent.y0 > line_y + half_width,
        "bottom": extent.y1 < line_y - half_width,
    }
    assert beyond[side]


def test_point_along_walks_the_polyline_by_length():
    points = [(0.0, 0.0), (2.0, 0.0), (2.0, 2.0)]
    assert point_along(points, 0.25) == pytest.approx((1.0, 0.0))
    assert point_along(points, 0.75) == pytest.approx((2.0, 1.0))
    assert point_along(points, 1.0) == pytest.approx((2.0, 2.0))


def test_a_box_fits_its_text_and_caption_one_above_the_other():
    diagram = Diagram(4.0, 3.0)
    box = diagram.box((2.0, 1.5), r"$\sigma$", "sigmoid", caption="forget gate")
    symbol, caption = diagram.axes.texts
    renderer = diagram.canvas.get_renderer()
    to_inches = diagram.axes.transData.inverted()
    for text in (symbol, caption):
        (x0, y0), (x1, y1) = to_inches.transform(text.get_window_extent(renderer).get_points())
        assert box.center[0] - box.width / 2 < x0 and x1 < box.center[0] + box.width / 2
        assert box.center[1] - box.height / 2 < y0 and y1 < box.center[1] + box.height / 2
    assert symbol.get_position()[1] > caption.get_position()[1]
    assert overlapping_labels(diagram.figure) == []


@pytest.mark.parametrize(
    ("draw", "message"),
    [
        (lambda: Diagram(TEXT_COLUMN_WIDTH + 0.5, 3.0), "text column"),
        (lambda: Diagram(4.0, 3.0).label((1.0, 1.0), "small", fontsize=8), "at least 10"),
        (lambda: Diagram(4.0, 3.0).box((1.0, 1.0), "x", "gate"), "kind must be one of"),
        (lambda: Diagram(4.0, 3.0).box((1.0, 1.0), "a long label", "linear", width=0.3), "enlarge"),
        (
            lambda: Diagram(4.0, 3.0).operation((1.0, 1.0), r"$\tanh$", "tanh", radius=0.05),
            "enlarge",
        ),
        (
            lambda: Diagram(4.0, 3.0).arrow((0.5, 0.5), (2.0, 2.0), via=[(0.5, 2.0)], bend=0.2),
            "either via",
        ),
    ],
)
def test_misuse_raises_an_error_that_names_the_fix(draw, message):
    with pytest.raises(ValueError, match=message):
        draw()


def test_overlapping_labels_reports_each_kind_of_collision():
    diagram = Diagram(4.0, 3.0)
    diagram.label((1.0, 1.0), "first")
    diagram.label((1.1, 1.0), "second")
    diagram.box((3.0, 2.0), "$b$", "state")
    diagram.label((2.5, 2.0), "runs into the box")
    diagram.label((3.95, 0.5), "past the edge")
    diagram.label((1.0, 2.5), "alone")
    problems = overlapping_labels(diagram.figure)
    assert any("'first' overlaps 'second'" in problem for problem in problems)
    assert any("'runs into the box' runs into" in problem for problem in problems)
    assert any("'past the edge' leaves the canvas" in problem for problem in problems)
    assert not any("alone" in problem for problem in problems)


def relative_luminance(colour: str) -> float:
    """WCAG relative luminance of a colour."""
    channels = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in to_rgb(colour)]
    return 0.2126 * channels[0] + 0.7152 * channels[1] + 0.0722 * channels[2]


def test_palette_colours_are_distinct_and_keep_black_text_readable():
    colours = list(PALETTE.values())
    assert len(set(colours)) == len(colours)
    for index, first in enumerate(colours):
        for second in colours[index + 1 :]:
            assert math.dist(to_rgb(first), to_rgb(second)) > 0.05, (first, second)
    for kind, colour in PALETTE.items():
        contrast = (relative_luminance(colour) + 0.05) / (relative_luminance(INK) + 0.05)
        assert contrast >= 7.0, f"{kind} ({colour}) is too dark for black text: {contrast:.1f}"


def small_diagram():
    diagram = Diagram(3.0, 2.0)
    first = diagram.box((0.8, 1.0), "$x_t$", "input")
    second = diagram.operation((2.2, 1.0), PRODUCT)
    diagram.arrow(first, second, label="$W$", label_side="top")
    return diagram.figure


def test_png_repeats_byte_for_byte_names_its_libraries_and_keeps_the_colours():
    first, second = png_bytes(small_diagram()), png_bytes(small_diagram())
    assert first == second
    with Image.open(io.BytesIO(first)) as image:
        assert image.format == "PNG" and image.mode == "P"
        assert image.info["Software"] == software_stamp()
        assert image.size == (3 * DIAGRAM_DPI, 2 * DIAGRAM_DPI)
        colours = {rgb for _, rgb in image.convert("RGB").getcolors(maxcolors=256)}
    assert (255, 255, 255) in colours, "the canvas stays white"
    fill = tuple(round(255 * c) for c in to_rgb(PALETTE["input"]))
    assert any(max(abs(a - b) for a, b in zip(fill, rgb, strict=True)) <= 2 for rgb in colours), (
        "the palette must keep a box's fill colour"
    )
