"""Every head of a Transformer on one sentence, a grid of attention maps with one colour bar
(Chapter 5's language models and translators, Chapter 6's BERT): the heads of one layer, or one
row of heads per layer.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from matplotlib.figure import Figure

from coursekit.page import TEXT_COLUMN_WIDTH
from coursekit.viz.plots.heat_map import COLOUR_BAR_INCHES, SELF_ATTENTION, draw_heat_map

SMALL_MAP_TOKENS = 12  # up to this many tokens, four heads of one layer share a row; beyond, two
LABEL_INCHES = 0.7  # beside the left column and below the bottom row: the token labels
TITLE_INCHES = 0.3  # above each map: its title, and above the grid: the figure's


def as_head_maps(
    weights: torch.Tensor | np.ndarray, query_tokens: Sequence[str], key_tokens: Sequence[str]
) -> np.ndarray:
    """``weights`` as a float array ``[layers, heads, T_q, T_k]``, checked against the tokens
    (Chapters 5 and 6)."""
    if isinstance(weights, torch.Tensor):
        weights = weights.detach().cpu().double().numpy()
    maps = np.asarray(weights, dtype=float)
    if maps.ndim != 4 or maps.shape[2:] != (len(query_tokens), len(key_tokens)):
        raise ValueError(
            f"weights must be maps [layers, heads, len(query_tokens), len(key_tokens)] = "
            f"[layers, heads, {len(query_tokens)}, {len(key_tokens)}], got shape {maps.shape}; "
            "pass maps[:, example] of coursekit.models.transformer.attention_maps"
        )
    return maps


def head_grid(layers: int, heads: int, longest: int) -> tuple[int, int]:
    """``(rows, columns)`` of the grid: one layer's heads four to a row (two for sentences of more
    than SMALL_MAP_TOKENS tokens); several layers one row each, a column per head."""
    if layers > 1:
        return layers, heads
    columns = min(heads, 4 if longest <= SMALL_MAP_TOKENS else 2)
    return -(-heads // columns), columns


def plot_attention_heads(
    weights: torch.Tensor | np.ndarray,
    query_tokens: Sequence[str],
    key_tokens: Sequence[str],
    first_layer: int = 1,
    title: str | None = None,
) -> Figure:
    """The maps of every head in ``weights [layers, heads, T_q, T_k]`` (Chapters 5 and 6), layers
    numbered from ``first_layer``: the query tokens down the rows of each map, the key tokens
    along its columns, labelled on the grid's left column and bottom row, the colour from 0 to 1
    with one colour bar, in the width of the text column (:func:`head_grid` lays them out). The
    maps of one layer are titled "head h" and the figure with the layer; those of several layers
    "layer l, head h". ``title`` heads the figure.
    """
    maps = as_head_maps(weights, query_tokens, key_tokens)
    layers, heads = maps.shape[:2]
    longest = max(len(query_tokens), len(key_tokens))
    rows, columns = head_grid(layers, heads, longest)
    panel = (TEXT_COLUMN_WIDTH - COLOUR_BAR_INCHES - LABEL_INCHES) / columns
    size = (panel * len(key_tokens) / longest, panel * len(query_tokens) / longest)
    figure = Figure(
        figsize=(TEXT_COLUMN_WIDTH, (rows + 1) * TITLE_INCHES + rows * size[1] + LABEL_INCHES),
        layout="constrained",
    )
    axes = figure.subplots(rows, columns, squeeze=False)
    for index, ax in enumerate(axes.flat):
        layer, head = divmod(index, heads)
        if layer >= layers:
            ax.set_axis_off()
            continue
        left, bottom = index % columns == 0, index + columns >= layers * heads
        image = draw_heat_map(
            ax, maps[layer, head], query_tokens, key_tokens, size, left, label_columns=bottom
        )
        name = (
            f"head {head + 1}" if layers == 1 else f"layer {first_layer + layer}, head {head + 1}"
        )
        ax.set_title(name, fontsize=9)
    figure.colorbar(image, ax=list(axes.flat), label=SELF_ATTENTION.weight, shrink=0.8)
    figure.supxlabel(SELF_ATTENTION.key, fontsize=10)
    figure.supylabel(SELF_ATTENTION.query, fontsize=10)
    heading = f"layer {first_layer}" if layers == 1 else None
    if title or heading:
        figure.suptitle(", ".join(part for part in (title, heading) if part), fontsize=11)
    return figure
