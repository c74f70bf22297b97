"""One row of an attention map in detail, the figure each attention explorer redraws (Chapter 4's
for a decoding step, Chapters 5 and 6's for a query of a head): the map with the row framed, and
a bar chart of the row's weights over the keys.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from coursekit.page import TEXT_COLUMN_WIDTH
from coursekit.viz.plots.heat_map import (
    SELF_ATTENTION,
    Roles,
    as_matrix,
    draw_heat_map,
    token_ticks,
)

FRAME_COLOUR = "red"
LABEL_INCHES = 0.9  # of each half of the figure, what the token labels and axis label take
SHORTEST, TALLEST = 3.2, 6.0  # inches: the figure's height, whatever the tokens


def plot_attention_step(
    weights: torch.Tensor | np.ndarray,
    query_tokens: Sequence[str],
    key_tokens: Sequence[str],
    query: int,
    roles: Roles = SELF_ATTENTION,
    title: str | None = None,
) -> Figure:
    """Row ``query`` of the map ``weights [T_q, T_k]`` (Chapters 4, 5 and 6): on the left the
    map with that row framed, on the right the row's weights over the key tokens as bars from 0
    to 1, titled with the row's token in the words of ``roles`` (``TRANSLATION`` for Chapter 4's
    decoding steps, ``SELF_ATTENTION`` for a head); ``title`` heads the figure.
    """
    matrix = as_matrix(weights, len(query_tokens), len(key_tokens))
    if not 0 <= query < len(query_tokens):
        raise ValueError(f"query must lie in 0 .. {len(query_tokens) - 1}, got {query}")
    side = TEXT_COLUMN_WIDTH / 2 - LABEL_INCHES
    map_height = side * len(query_tokens) / max(len(query_tokens), len(key_tokens))
    map_width = side * len(key_tokens) / max(len(query_tokens), len(key_tokens))
    height = min(TALLEST, max(SHORTEST, map_height + 2 * LABEL_INCHES))
    figure = Figure(figsize=(TEXT_COLUMN_WIDTH, height), layout="constrained")
    heat_map, bars = figure.subplots(1, 2)
    draw_heat_map(heat_map, matrix, query_tokens, key_tokens, (map_width, map_height))
    heat_map.add_patch(
        Rectangle((-0.5, query - 0.5), len(key_tokens), 1, fill=False, edgecolor=FRAME_COLOUR, lw=2)
    )
    heat_map.set(xlabel=roles.key, ylabel=roles.query)
    bars.bar(range(len(key_tokens)), matrix[query], color="C0")
    ticks = token_ticks(key_tokens, side)
    bars.set_xticks(ticks.positions, labels=ticks.labels, rotation=90, fontsize=ticks.font_size)
    bars.tick_params(axis="x", length=0)
    bars.set(ylim=(0.0, 1.0), xlabel=roles.key, ylabel="weight")
    bars.set_title(roles.row.format(index=query, token=query_tokens[query]), fontsize=10)
    if title:
        figure.suptitle(title, fontsize=11)
    return figure
