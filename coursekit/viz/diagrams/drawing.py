"""A small toolkit for the book's architecture diagrams, drawn with matplotlib (Chapter 2 onward).

A :class:`Diagram` is a white canvas measured in inches, so that a font size in points and a
distance in inches mean what they say on the printed page. On it one places

- boxes (:meth:`Diagram.box`): a learned layer or a value, filled with the colour of its kind;
- circles (:meth:`Diagram.operation`): a pointwise operation, such as ``⊙``, ``+``, ``1 -``, tanh;
- arrows (:meth:`Diagram.arrow`) from border to border, straight, through corners or bent, with
  an optional label beside them; junction dots where a line splits;
- labels (:meth:`Diagram.label`, matplotlib mathtext: ``"$W_{hh} h_{t-1}$"``) and frames around
  a cell or a block (:meth:`Diagram.frame`).

The palette gives one fill colour per kind (σ gates, tanh, pointwise operations, inputs, states,
attention, masks, ...), the same in every chapter. :func:`png_bytes` renders a figure as a PNG
that is the same, byte for byte, on every run; :mod:`coursekit.viz.diagrams.inspection` reads a
drawn figure back for the tests.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import matplotlib
import PIL
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Circle, FancyArrowPatch, FancyBboxPatch, Patch
from matplotlib.text import Text
from PIL import Image
from PIL.PngImagePlugin import PngInfo

from coursekit.page import TEXT_COLUMN_WIDTH
from coursekit.viz.diagrams.shapes import (
    Box,
    Endpoint,
    Operation,
    Point,
    Side,
    arc_control_point,
    attach,
    center_of,
    point_along,
    quadratic_curve_points,
    rounded_polyline,
)

SMALLEST_FONT_SIZE = 10.0
NODE_FONT_SIZE = 12.0
LABEL_FONT_SIZE = 11.0
CAPTION_FONT_SIZE = 10.0

INK = "#1a1a1a"
GRADIENT_INK = "#c62828"
"""Backward flow of gradients (dashed)."""
FRAME_INK = "#6b6b6b"
TEXT_FONT = "DejaVu Sans"
MATH_FONT = "cm"

PALETTE: dict[str, str] = {
    "input": "#cfe2f3",
    "state": "#fff2cc",
    "output": "#d9ead3",
    "loss": "#f4cccc",
    "linear": "#e8e8e8",
    "sigmoid": "#f9cb9c",
    "tanh": "#d5c8ec",
    "pointwise": "#f7c6e0",
    "embedding": "#c8e6e0",
    "attention": "#ffe08a",
    "feed_forward": "#b9d7f5",
    "normalization": "#f2f2d0",
    "mask_allowed": "#ffffff",
    "mask_blocked": "#a8a8a8",
}
"""Fill colour of each kind of box or circle: distinct hues, light enough for black text (the
text and the shape, not the colour alone, say what a node is, so a grey print still reads)."""

PRODUCT = r"$\odot$"
SUM = "$+$"
ONE_MINUS = "$1-$"

LINE_WIDTH = 1.3
BOX_PADDING = 0.09
BOX_CORNER = 0.05
ELBOW_RADIUS = 0.08
JUNCTION_RADIUS = 0.035
LABEL_GAP = 0.06
LINE_GAP = 0.05
ARROW_HEAD = "-|>,head_length=0.55,head_width=0.28"
ARROW_SCALE = 14.0
NODE_TAG = "diagram node"
"""Label of the patch drawn for each box and circle, by which a test finds the nodes again."""


@dataclass(frozen=True)
class Connector:
    """An arrow or a line as drawn: its route (start and end on the borders) and its patch."""

    points: tuple[Point, ...]
    patch: FancyArrowPatch


def require_canvas_size(width: float, height: float) -> None:
    """A diagram fits the book's text column, so that it is printed at its own size."""
    if not 0 < width <= TEXT_COLUMN_WIDTH:
        raise ValueError(
            f"width must be in (0, {TEXT_COLUMN_WIDTH}] inches, the book's text column; got "
            f"{width}: a wider figure is shrunk with its labels, so draw it narrower"
        )
    if height <= 0:
        raise ValueError(f"height must be positive (inches), got {height}")


def require_font_size(fontsize: float) -> None:
    """Text stays readable in print: at least SMALLEST_FONT_SIZE points."""
    if fontsize < SMALLEST_FONT_SIZE:
        raise ValueError(
            f"fontsize must be at least {SMALLEST_FONT_SIZE} pt to be readable in the book, got "
            f"{fontsize}: enlarge the figure's room for it instead"
        )


def require_kind(kind: str) -> str:
    """The fill colour of ``kind``; an unknown kind names the ones the palette has."""
    if kind not in PALETTE:
        raise ValueError(
            f"kind must be one of {sorted(PALETTE)}, got {kind!r}: add a colour to "
            "coursekit.viz.diagrams.drawing.PALETTE for a new kind of block"
        )
    return PALETTE[kind]


def require_fits(text: str, needed: tuple[float, float], given: tuple[float, float]) -> None:
    """Text stays inside its box: the box is at least as large as the padded text."""
    if needed[0] > given[0] + 1e-9 or needed[1] > given[1] + 1e-9:
        raise ValueError(
            f"the box for {text!r} is {given[0]:.2f} x {given[1]:.2f} in but its text needs "
            f"{needed[0]:.2f} x {needed[1]:.2f} in: enlarge width/height or leave them out"
        )


def require_route(via: Sequence[Point], bend: float) -> None:
    """An arrow either bends (an arc) or turns at corners (``via``), not both."""
    if via and bend:
        raise ValueError(
            f"give either via (corner points) or bend (an arc), got via={list(via)} and "
            f"bend={bend}: drop one of them"
        )


LABEL_PLACEMENT: dict[Side, tuple[Point, str, str]] = {
    "left": ((-1.0, 0.0), "right", "center"),
    "right": ((1.0, 0.0), "left", "center"),
    "top": ((0.0, 1.0), "center", "bottom"),
    "bottom": ((0.0, -1.0), "center", "top"),
}
"""For a label on each side of a line: the direction of its offset and its alignment."""


class Diagram:
    """A white canvas ``width`` x ``height`` inches whose coordinates are inches from the lower
    left corner; at most TEXT_COLUMN_WIDTH wide, so the book prints it at its own size."""

    def __init__(self, width: float, height: float) -> None:
        require_canvas_size(width, height)
        self.figure = Figure(figsize=(width, height), facecolor="white")
        self.canvas = FigureCanvasAgg(self.figure)
        self.axes = self.figure.add_axes((0.0, 0.0, 1.0, 1.0))
        self.axes.set_xlim(0.0, width)
        self.axes.set_ylim(0.0, height)
        self.axes.set_axis_off()

    def label(
        self,
        point: Point,
        text: str,
        *,
        fontsize: float = LABEL_FONT_SIZE,
        color: str = INK,
        ha: str = "center",
        va: str = "center",
    ) -> Text:
        """Write ``text`` (mathtext between ``$``) at ``point``."""
        require_font_size(fontsize)
        return self.axes.text(
            *point,
            text,
            fontsize=fontsize,
            color=color,
            ha=ha,
            va=va,
            family=TEXT_FONT,
            math_fontfamily=MATH_FONT,
            zorder=5,
        )

    def box(
        self,
        center: Point,
        text: str,
        kind: str,
        *,
        caption: str = "",
        width: float | None = None,
        height: float | None = None,
        fontsize: float = NODE_FONT_SIZE,
    ) -> Box:
        """A box filled with the colour of ``kind`` around ``text``, with an optional smaller
        ``caption`` under it (a gate's name, a block's size); sized to the text unless
        ``width``/``height`` are given (then the text must fit)."""
        fill = require_kind(kind)
        lines = [self.label(center, text, fontsize=fontsize)]
        if caption:
            lines.append(self.label(center, caption, fontsize=CAPTION_FONT_SIZE))
        sizes = [self.text_size(line) for line in lines]
        text_height = sum(size[1] for size in sizes) + LINE_GAP * (len(lines) - 1)
        top = center[1] + text_height / 2
        for line, (_, line_height) in zip(lines, sizes, strict=True):
            line.set_y(top - line_height / 2)
            top -= line_height + LINE_GAP
        text_width = max(size[0] for size in sizes)
        needed = (text_width + 2 * BOX_PADDING, text_height + 2 * BOX_PADDING)
        size = (float(width or needed[0]), float(height or needed[1]))
        require_fits(text, needed, size)
        self._add_node(
            FancyBboxPatch(
                (center[0] - size[0] / 2, center[1] - size[1] / 2),
                *size,
                boxstyle=f"round,pad=0,rounding_size={BOX_CORNER}",
                facecolor=fill,
            )
        )
        return Box(center, *size)

    def operation(
        self,
        center: Point,
        symbol: str,
        kind: str = "pointwise",
        *,
        radius: float | None = None,
        fontsize: float = NODE_FONT_SIZE,
    ) -> Operation:
        """A circle filled with the colour of ``kind`` around ``symbol`` (e.g. PRODUCT, SUM);
        sized to the symbol unless ``radius`` is given (then the symbol must fit)."""
        fill = require_kind(kind)
        label = self.label(center, symbol, fontsize=fontsize)
        needed = math.hypot(*self.text_size(label)) / 2 + BOX_PADDING / 2
        radius = float(radius or needed)
        require_fits(symbol, (2 * needed, 2 * needed), (2 * radius, 2 * radius))
        self._add_node(Circle(center, radius, facecolor=fill))
        return Operation(center, radius)

    def arrow(
        self,
        start: Endpoint,
        end: Endpoint,
        *,
        via: Sequence[Point] = (),
        bend: float = 0.0,
        label: str = "",
        label_side: Side = "right",
        label_at: float = 0.5,
        color: str = INK,
        dashed: bool = False,
        head: bool = True,
        linewidth: float = LINE_WIDTH,
    ) -> Connector:
        """An arrow from ``start`` to ``end`` (nodes or points), leaving and entering nodes at
        their borders: straight, through the corner points ``via`` (rounded), or bent into an
        arc (``bend``, a fraction of its length; positive bends to the right of travel).
        ``label`` is written beside it on ``label_side``, ``label_at`` of the way along;
        ``head=False`` draws a plain line."""
        require_route(via, bend)
        first_target = via[0] if via else center_of(end)
        last_source = via[-1] if via else center_of(start)
        points = (attach(start, first_target), *via, attach(end, last_source))
        style: dict[str, Any] = dict(
            arrowstyle=ARROW_HEAD if head else "-",
            mutation_scale=ARROW_SCALE,
            color=color,
            linewidth=linewidth,
            linestyle=(0, (4, 2.5)) if dashed else "solid",
            capstyle="butt",
            joinstyle="miter",
            shrinkA=0.0,
            shrinkB=0.0,
            zorder=2,
        )
        if bend:
            patch = FancyArrowPatch(
                points[0], points[-1], connectionstyle=f"arc3,rad={bend}", **style
            )
            control = arc_control_point(points[0], points[-1], bend)
            route: Sequence[Point] = quadratic_curve_points(points[0], control, points[-1])
        else:
            patch = FancyArrowPatch(path=rounded_polyline(points, ELBOW_RADIUS), **style)
            route = points
        self.axes.add_patch(patch)
        if label:
            self._label_beside(route, label, label_side, label_at, color)
        return Connector(points, patch)

    def junction(self, point: Point) -> Point:
        """A dot where a line splits in two; returns the point, to start the branches from."""
        self.axes.add_patch(Circle(point, JUNCTION_RADIUS, facecolor=INK, edgecolor=INK))
        return point

    def frame(self, lower_left: Point, upper_right: Point, caption: str = "") -> FancyBboxPatch:
        """A dashed grey outline around a cell or a block, ``caption`` inside its top left."""
        width, height = upper_right[0] - lower_left[0], upper_right[1] - lower_left[1]
        outline = FancyBboxPatch(
            lower_left,
            width,
            height,
            boxstyle=f"round,pad=0,rounding_size={3 * BOX_CORNER}",
            facecolor="none",
            edgecolor=FRAME_INK,
            linewidth=1.0,
            linestyle=(0, (5, 3)),
            zorder=1,
        )
        self.axes.add_patch(outline)
        if caption:
            corner = (lower_left[0] + 2 * LABEL_GAP, upper_right[1] - 2 * LABEL_GAP)
            self.label(
                corner, caption, fontsize=CAPTION_FONT_SIZE, color=FRAME_INK, ha="left", va="top"
            )
        return outline

    def text_size(self, text: Text) -> tuple[float, float]:
        """Width and height of ``text`` on the page, in inches."""
        extent = text.get_window_extent(self.canvas.get_renderer())
        return extent.width / self.figure.dpi, extent.height / self.figure.dpi

    def _add_node(self, patch: Patch) -> None:
        """Draw a node's outline under its text, tagged so that
        :mod:`coursekit.viz.diagrams.inspection` finds it again."""
        patch.set_edgecolor(INK)
        patch.set_linewidth(LINE_WIDTH)
        patch.set_zorder(3)
        patch.set_label(NODE_TAG)
        self.axes.add_patch(patch)

    def _label_beside(
        self, route: Sequence[Point], text: str, side: Side, at: float, color: str
    ) -> Text:
        """Write ``text`` beside the route, LABEL_GAP inches off it, aligned away from it."""
        x, y = point_along(route, at)
        (dx, dy), ha, va = LABEL_PLACEMENT[side]
        return self.label((x + LABEL_GAP * dx, y + LABEL_GAP * dy), text, color=color, ha=ha, va=va)


DIAGRAM_DPI = 144
"""Pixels per inch of a diagram's image: a figure as wide as the text column is 1,080 pixels."""


def software_stamp() -> str:
    """The libraries a diagram's image depends on, byte for byte, written into the image."""
    return f"matplotlib {matplotlib.__version__}, Pillow {PIL.__version__}"


def png_bytes(figure: Figure) -> bytes:
    """``figure`` as a PNG of at most 256 colours at :data:`DIAGRAM_DPI`: flat fills and text
    survive the palette, the file is a third of the size, and the bytes are the same on every run
    with the matplotlib and Pillow that its ``Software`` text names (:func:`software_stamp`).
    """
    rendered = io.BytesIO()
    figure.savefig(rendered, format="png", dpi=DIAGRAM_DPI)
    rendered.seek(0)
    with Image.open(rendered) as image:
        palette = image.convert("RGB").quantize(
            256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE
        )
    info = PngInfo()
    info.add_text("Software", software_stamp())
    written = io.BytesIO()
    palette.save(written, format="PNG", optimize=True, pnginfo=info)
    return written.getvalue()
