"""Figures of Chapter 5 (Transformers): the attention weights of every head of a layer, one head
in detail, and the sinusoidal positional encoding (its matrix, a few of its dimensions, and how
similar two positions' encodings are as they move apart).

Figures are built with ``matplotlib.figure.Figure`` rather than pyplot, so none is left open in
a global registry; a notebook displays the returned figure, ``fig.savefig(...)`` writes it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from coursekit.models.transformer.positional_encoding import sinusoidal_positional_encoding
from coursekit.viz.attention import as_matrix

PANEL_INCHES = 2.4  # side of one head's heat map in a row of heads
SMALL_MAP_TOKENS = 12  # up to this many tokens, four heads fit in a row; beyond, two
FIGURE_WIDTH = 7.5  # the book's text column


def as_head_maps(
    weights: torch.Tensor | np.ndarray, query_tokens: Sequence[str], key_tokens: Sequence[str]
) -> np.ndarray:
    """``weights`` as a float array ``[heads, T_q, T_k]``, checked against the tokens
    (Chapter 5)."""
    if isinstance(weights, torch.Tensor):
        weights = weights.detach().cpu().double().numpy()
    maps = np.asarray(weights, dtype=float)
    if maps.ndim != 3 or maps.shape[1:] != (len(query_tokens), len(key_tokens)):
        raise ValueError(
            f"weights must be one layer's maps [heads, len(query_tokens), len(key_tokens)] = "
            f"[heads, {len(query_tokens)}, {len(key_tokens)}], got shape {maps.shape}; pass "
            "maps[layer, example] of coursekit.models.transformer.attention_maps"
        )
    return maps


def tick_size(count: int) -> int:
    """A font size for ``count`` tick labels along one side of a small panel (Chapter 5)."""
    return 9 if count <= 12 else 7 if count <= 24 else 5


def draw_head(
    ax: Axes, weights: np.ndarray, query_tokens: Sequence[str], key_tokens: Sequence[str]
) -> None:
    """One head's map on ``ax``: queries down the rows, keys along the columns, 0 to 1
    (Chapter 5)."""
    ax.imshow(weights, cmap="viridis", vmin=0.0, vmax=1.0, aspect="auto")
    ax.set_xticks(range(len(key_tokens)), labels=list(key_tokens), rotation=90)
    ax.set_yticks(range(len(query_tokens)), labels=list(query_tokens))
    ax.tick_params(labelsize=tick_size(max(len(key_tokens), len(query_tokens))), length=0)


def plot_attention_heads(
    weights: torch.Tensor | np.ndarray,
    query_tokens: Sequence[str],
    key_tokens: Sequence[str],
    title: str | None = None,
) -> Figure:
    """Every head of one layer (Chapter 5): ``weights [heads, T_q, T_k]``, one heat map per head
    (four in a row for short sentences, two for longer ones) with the query tokens down the rows
    and the key tokens along the columns, the colour from 0 to 1, and one colour bar.
    """
    maps = as_head_maps(weights, query_tokens, key_tokens)
    heads = len(maps)
    longest = max(len(query_tokens), len(key_tokens))
    columns = min(heads, 4 if longest <= SMALL_MAP_TOKENS else 2)
    rows = -(-heads // columns)
    panel = (FIGURE_WIDTH - 1.0) / columns if columns <= 2 else PANEL_INCHES
    figure = Figure(figsize=(panel * columns + 1.0, panel * rows + 0.6), layout="constrained")
    axes = np.atleast_1d(figure.subplots(rows, columns, squeeze=False)).ravel()
    for head, ax in enumerate(axes):
        if head >= heads:
            ax.set_axis_off()
            continue
        draw_head(ax, maps[head], query_tokens, key_tokens)
        ax.set_title(f"head {head + 1}", fontsize=10)
    image = axes[0].get_images()[0]
    figure.colorbar(image, ax=list(axes), label="attention weight", shrink=0.8)
    figure.supxlabel("key (attended)", fontsize=10)
    figure.supylabel("query (attending)", fontsize=10)
    if title:
        figure.suptitle(title, fontsize=11)
    return figure


def plot_attention_head(
    weights: torch.Tensor | np.ndarray,
    query_tokens: Sequence[str],
    key_tokens: Sequence[str],
    query: int,
    title: str | None = None,
) -> Figure:
    """One head in detail (Chapter 5): its heat map ``[T_q, T_k]`` with the row of ``query``
    framed, and a bar chart of that query's weights over the keys.
    """
    matrix = as_matrix(weights, len(query_tokens), len(key_tokens))
    if not 0 <= query < len(query_tokens):
        raise ValueError(f"query must lie in 0 .. {len(query_tokens) - 1}, got {query}")
    figure = Figure(figsize=(FIGURE_WIDTH, 3.6), layout="constrained")
    heat_map, bars = figure.subplots(1, 2)
    draw_head(heat_map, matrix, query_tokens, key_tokens)
    heat_map.axhline(query - 0.5, color="red", lw=1.5)
    heat_map.axhline(query + 0.5, color="red", lw=1.5)
    heat_map.set(xlabel="key (attended)", ylabel="query (attending)")
    bars.bar(range(len(key_tokens)), matrix[query], color="C0")
    bars.set_xticks(range(len(key_tokens)), labels=list(key_tokens), rotation=90)
    bars.tick_params(axis="x", labelsize=tick_size(len(key_tokens)), length=0)
    bars.set(ylim=(0.0, 1.0), xlabel="key", ylabel="weight")
    bars.set_title(f"query {query_tokens[query]!r} (position {query})", fontsize=10)
    if title:
        figure.suptitle(title, fontsize=11)
    return figure


def encoding_similarity(encoding: torch.Tensor, position: int) -> torch.Tensor:
    """``PE(position) . PE(p) / (d/2)`` for every position p: 1 at p = position (each of the
    d/2 sine-cosine pairs adds cos((p - position) w_i)) and smaller further away (Chapter 5).
    """
    return encoding @ encoding[position] / (encoding.shape[1] / 2)


def plot_positional_encoding(
    d_model: int = 64,
    num_positions: int = 100,
    layout: str = "interleaved",
    position: int = 50,
    dimensions: Sequence[int] | None = None,
) -> Figure:
    """The sinusoidal positional encoding (Chapter 5): the matrix PE ``[positions, d_model]``;
    the feature ``2i`` (a sine, in the interleaved layout) against the position for a few
    ``dimensions`` (by default 0, 2, d/4 and d/2: the fastest sine and slower ones), whose
    wavelengths grow from 2 pi to 10000 * 2 pi; and the similarity of ``PE(position)`` with every
    other position's encoding.
    """
    if dimensions is None:
        dimensions = sorted({0, 2, d_model // 8 * 2, d_model // 2})
    if not 0 <= position < num_positions:
        raise ValueError(f"position must lie in 0 .. {num_positions - 1}, got {position}")
    if not all(0 <= dimension < d_model for dimension in dimensions):
        raise ValueError(f"dimensions must lie in 0 .. {d_model - 1}, got {list(dimensions)}")
    encoding = sinusoidal_positional_encoding(
        num_positions, d_model, layout=layout, dtype=torch.float64
    )
    figure = Figure(figsize=(FIGURE_WIDTH, 5.6), layout="constrained")
    panels = figure.subfigures(2, 1, height_ratios=[1.1, 1])
    assert isinstance(panels, np.ndarray)  # two rows give an array of subfigures
    top, bottom = panels
    matrix = top.subplots()
    image = matrix.imshow(encoding.T.numpy(), cmap="RdBu", vmin=-1, vmax=1, aspect="auto")
    matrix.set(xlabel="position pos", ylabel="feature", title=f"PE, d_model = {d_model}, {layout}")
    top.colorbar(image, ax=matrix, label="PE(pos, feature)")
    curves, similarity = bottom.subplots(1, 2)
    positions = np.arange(num_positions)
    for dimension in dimensions:
        curves.plot(positions, encoding[:, dimension].numpy(), label=f"feature {dimension}")
    curves.set(xlabel="position pos", ylabel="PE(pos, feature)", ylim=(-1.1, 1.1))
    curves.legend(fontsize=7, loc="lower left")
    similarity.plot(positions, encoding_similarity(encoding, position).numpy(), color="C3")
    similarity.axvline(position, color="grey", lw=1, linestyle=":")
    similarity.set(
        xlabel="position pos", ylabel="similarity", title=f"PE({position}) . PE(pos) / (d/2)"
    )
    return figure
