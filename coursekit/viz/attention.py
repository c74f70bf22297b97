"""Figures of attention: heat maps of the weights alpha_{t,j} and BLEU by sentence length
(Chapter 4, Seq2seq and attention).

Figures are built with ``matplotlib.figure.Figure`` rather than pyplot, so none is left open in
a global registry; a notebook displays the returned figure, ``fig.savefig(...)`` writes it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import torch
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.image import AxesImage
from matplotlib.patches import Rectangle

from coursekit.viz.drawing import TEXT_COLUMN_WIDTH

CELL_INCHES = 0.32  # side of one heat-map cell: 20 x 20 tokens stay readable
SMALLEST_SHRINK = 0.5  # side by side, heat maps shrink at most to half of that
COLOUR_BAR_INCHES = 1.0
WEIGHT_LABEL = r"attention weight $\alpha_{t,j}$"


def as_matrix(weights: torch.Tensor | np.ndarray, rows: int, columns: int) -> np.ndarray:
    """``weights`` as a float array ``[rows, columns]`` (targets x sources), checked."""
    if isinstance(weights, torch.Tensor):
        weights = weights.detach().cpu().double().numpy()
    matrix = np.asarray(weights, dtype=float)
    if matrix.shape != (rows, columns):
        raise ValueError(
            f"weights must have shape [len(target_tokens), len(source_tokens)] = "
            f"[{rows}, {columns}], got {matrix.shape}; pass one example's weights, e.g. "
            "attention[b, :target_length, :source_length]"
        )
    return matrix


def heat_map_size(columns: int, rows: int) -> tuple[float, float]:
    """Inches (width, height) of a heat map whose ``rows x columns`` cells are readable."""
    return max(4.0, CELL_INCHES * columns + 1.5), max(3.0, CELL_INCHES * rows + 1.5)


def draw_heat_map(
    ax: Axes,
    matrix: np.ndarray,
    source_tokens: Sequence[str],
    target_tokens: Sequence[str],
    small_labels: bool = False,
) -> AxesImage:
    """The weights ``matrix [T, S]`` on ``ax``, tokens on the axes, colours from 0 to 1; the
    tokens in 8-point type for more than 12 of them or when ``small_labels``.
    """
    image = ax.imshow(matrix, cmap="viridis", vmin=0.0, vmax=1.0, aspect="equal")
    ax.set_xticks(range(len(source_tokens)), labels=list(source_tokens), rotation=90)
    ax.set_yticks(range(len(target_tokens)), labels=list(target_tokens))
    ax.tick_params(labelsize=8 if small_labels or max(matrix.shape) > 12 else 10)
    ax.set_xlabel("source token $j$")
    ax.set_ylabel("target token $t$")
    return image


def plot_attention(
    weights: torch.Tensor | np.ndarray,
    source_tokens: Sequence[str],
    target_tokens: Sequence[str],
    ax: Axes | None = None,
    title: str | None = None,
) -> Axes:
    """Heat map of the attention weights alpha_{t,j} (Chapter 4): one row per target token
    (y axis, top to bottom), one column per source token (x axis), colour from 0 to 1 with a
    colour bar. ``weights`` is ``[T, S]``; returns the axes (``ax.figure`` is the figure).
    """
    matrix = as_matrix(weights, len(target_tokens), len(source_tokens))
    if ax is None:
        size = heat_map_size(len(source_tokens), len(target_tokens))
        ax = Figure(figsize=size, layout="constrained").subplots()
    image = draw_heat_map(ax, matrix, source_tokens, target_tokens)
    ax.figure.colorbar(image, ax=ax, label=WEIGHT_LABEL, shrink=0.8)
    if title:
        ax.set_title(title)
    return ax


def plot_attention_step(
    weights: torch.Tensor | np.ndarray,
    source_tokens: Sequence[str],
    target_tokens: Sequence[str],
    step: int,
) -> Figure:
    """One decoding step t (Chapter 4): the heat map with row t framed, and a bar chart of
    alpha_{t,j} over the source tokens, titled with the token produced at step t.
    """
    matrix = as_matrix(weights, len(target_tokens), len(source_tokens))
    if not 0 <= step < len(target_tokens):
        raise ValueError(f"step must lie in 0 .. {len(target_tokens) - 1}, got {step}")
    figure = Figure(
        figsize=(max(8.0, 2 * CELL_INCHES * len(source_tokens) + 3), 4.5), layout="constrained"
    )
    heat_map, bars = figure.subplots(1, 2)
    plot_attention(matrix, source_tokens, target_tokens, ax=heat_map)
    heat_map.add_patch(
        Rectangle((-0.5, step - 0.5), len(source_tokens), 1, fill=False, edgecolor="red", lw=2)
    )
    bars.bar(range(len(source_tokens)), matrix[step], color="C0")
    bars.set_xticks(range(len(source_tokens)), labels=list(source_tokens), rotation=90)
    bars.set_ylim(0.0, 1.0)
    bars.set_xlabel("source token $j$")
    bars.set_ylabel(f"alpha_{{{step},s}}")
    bars.set_title(f"step {step}: producing {target_tokens[step]!r}")
    return figure


def plot_attention_models(
    weights_by_model: Mapping[str, torch.Tensor | np.ndarray],
    source_tokens: Sequence[str],
    target_tokens_by_model: Mapping[str, Sequence[str]],
) -> Figure:
    """The heat maps of several models for the same source, with one colour bar (Chapter 4),
    in the width of the book's text column: side by side, shrunk if need be, and on further
    rows when one row would shrink them below SMALLEST_SHRINK (see :func:`heat_map_grid`).
    """
    names = list(weights_by_model)
    rows = max(len(target_tokens_by_model[name]) for name in names)
    width, height = heat_map_size(len(source_tokens), rows)
    columns, shrink = heat_map_grid(len(names), width)
    grid_rows = -(-len(names) // columns)
    figure = Figure(
        figsize=(columns * width * shrink + COLOUR_BAR_INCHES, grid_rows * height * shrink),
        layout="constrained",
    )
    axes = list(figure.subplots(grid_rows, columns, squeeze=False).flat)
    for ax, name in zip(axes, names, strict=False):
        targets = target_tokens_by_model[name]
        matrix = as_matrix(weights_by_model[name], len(targets), len(source_tokens))
        image = draw_heat_map(ax, matrix, source_tokens, targets, small_labels=shrink < 1)
        ax.set_title(name)
    for unused in axes[len(names) :]:
        figure.delaxes(unused)
    figure.colorbar(image, ax=axes[: len(names)], label=WEIGHT_LABEL, shrink=0.8)
    return figure


def heat_map_grid(count: int, panel_width: float) -> tuple[int, float]:
    """``(columns, shrink)``: the most heat maps of ``panel_width`` inches per row (up to
    ``count``) that fit beside the colour bar in the text column shrunk by at most
    SMALLEST_SHRINK, and the shrink that makes them fit (1 when they fit as they are).
    """
    room = TEXT_COLUMN_WIDTH - COLOUR_BAR_INCHES
    columns = count
    while columns > 1 and room / (columns * panel_width) < SMALLEST_SHRINK:
        columns -= 1
    return columns, min(1.0, room / (columns * panel_width))


def plot_bleu_by_length(
    bucket_labels: Sequence[str],
    scores_by_model: Mapping[str, Sequence[float]],
    ax: Axes | None = None,
    colors: Mapping[str, str] | None = None,
    title: str | None = None,
) -> Axes:
    """BLEU of each model on the test sentences bucketed by source length (Chapter 4): one line
    per model (colour ``colors[model]``, by default C0, C1, ... in order, so a model keeps its
    colour across figures), the buckets on the x axis, a legend.
    """
    for name, scores in scores_by_model.items():
        if len(scores) != len(bucket_labels):
            raise ValueError(
                f"model {name!r} has {len(scores)} scores for {len(bucket_labels)} buckets: give "
                "one BLEU score per bucket (float('nan') for an empty bucket)"
            )
    ax = ax if ax is not None else Figure(figsize=(6, 4), layout="constrained").subplots()
    for index, (name, scores) in enumerate(scores_by_model.items()):
        color = colors[name] if colors is not None else f"C{index}"
        ax.plot(range(len(bucket_labels)), scores, marker="o", color=color, label=name)
    ax.set_xticks(range(len(bucket_labels)), labels=list(bucket_labels))
    ax.set_xlabel("source length (tokens)")
    ax.set_ylabel("BLEU")
    ax.set_ylim(bottom=0)
    ax.legend(title="model")
    if title:
        ax.set_title(title)
    return ax
