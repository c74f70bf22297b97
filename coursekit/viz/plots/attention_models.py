"""Several translation models' attention maps for one source sentence, side by side with one
colour bar, in the width of the book's text column (Chapter 4, Seq2seq and attention).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import torch
from matplotlib.figure import Figure

from coursekit.page import TEXT_COLUMN_WIDTH
from coursekit.viz.plots.heat_map import (
    COLOUR_BAR_INCHES,
    TRANSLATION,
    draw_heat_map,
    map_size,
)

SMALLEST_SHRINK = 0.5  # side by side, maps shrink at most to half their own size
LABEL_INCHES = 1.5  # beside and below a map: its token labels and axis label
SMALLEST_PANEL = (4.0, 3.0)  # inches: a map of few tokens still gets a readable panel


def heat_map_grid(count: int, panel_width: float) -> tuple[int, float]:
    """``(columns, shrink)``: the most maps of ``panel_width`` inches per row (up to ``count``)
    that fit beside the colour bar in the text column shrunk by at most SMALLEST_SHRINK, and the
    shrink that makes them fit (1 when they fit as they are).
    """
    room = TEXT_COLUMN_WIDTH - COLOUR_BAR_INCHES
    columns = count
    while columns > 1 and room / (columns * panel_width) < SMALLEST_SHRINK:
        columns -= 1
    return columns, min(1.0, room / (columns * panel_width))


def plot_attention_models(
    weights_by_model: Mapping[str, torch.Tensor | np.ndarray],
    source_tokens: Sequence[str],
    target_tokens_by_model: Mapping[str, Sequence[str]],
) -> Figure:
    """The attention weights alpha_{t,j} of each model for the same source (Chapter 4): one map
    per model, titled with its name, with a row per target token the model produced (``weights
    [T, S]``) and a column per source token, side by side and shrunk if need be, on further rows
    when one row would shrink them below SMALLEST_SHRINK (:func:`heat_map_grid`); one colour bar.
    """
    names = list(weights_by_model)
    longest = max((target_tokens_by_model[name] for name in names), key=len)
    map_width, map_height = map_size(longest, source_tokens)
    width = max(SMALLEST_PANEL[0], map_width + LABEL_INCHES)
    height = max(SMALLEST_PANEL[1], map_height + LABEL_INCHES)
    columns, shrink = heat_map_grid(len(names), width)
    grid_rows = -(-len(names) // columns)
    figure = Figure(
        figsize=(columns * width * shrink + COLOUR_BAR_INCHES, grid_rows * height * shrink),
        layout="constrained",
    )
    axes = list(figure.subplots(grid_rows, columns, squeeze=False).flat)
    for ax, name in zip(axes, names, strict=False):
        targets = target_tokens_by_model[name]
        map_width, map_height = map_size(targets, source_tokens)
        size = (shrink * map_width, shrink * map_height)
        image = draw_heat_map(ax, weights_by_model[name], targets, source_tokens, size)
        ax.set(title=name, xlabel=TRANSLATION.key, ylabel=TRANSLATION.query)
    for unused in axes[len(names) :]:
        figure.delaxes(unused)
    figure.colorbar(image, ax=axes[: len(names)], label=TRANSLATION.weight, shrink=0.8)
    return figure
