"""Figures of a BERT model's self-attention (Chapter 6, BERT): one head's weights as a heat map,
every head of every layer at once, and the "neuron view" of one query (after BertViz): the
query q, each key k_j, their elementwise product q ⊙ k_j, the score q . k_j / sqrt(d_k) and
its softmax.

Figures are built with ``matplotlib.figure.Figure`` rather than pyplot, so none is left open in
a global registry; a notebook displays the returned figure.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import torch
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from coursekit.viz.attention import as_matrix

PANEL_INCHES = 1.75  # side of one head's panel in the grid of every head


def check_attentions(attentions: Sequence[torch.Tensor], tokens: Sequence[str]) -> None:
    """``attentions`` are L tensors ``[A, T, T]`` (one input, batch removed), T = len(tokens)."""
    if not attentions:
        raise ValueError("attentions must hold one [heads, T, T] tensor per layer, got none")
    length = len(tokens)
    for layer, weights in enumerate(attentions):
        if weights.dim() != 3 or tuple(weights.shape[1:]) != (length, length):
            raise ValueError(
                f"attentions[{layer}] must be [heads, T, T] with T = len(tokens) = {length}, got "
                f"{tuple(weights.shape)}; pass one example: [a[0] for a in output.attentions]"
            )


def plot_head(
    weights: torch.Tensor | np.ndarray,
    tokens: Sequence[str],
    ax: Axes | None = None,
    title: str | None = None,
    labels: bool = True,
) -> Axes:
    """Heat map of one head's weights ``alpha[i, j]`` (Chapter 6): row i is the query token,
    column j the key token it attends to; each row sums to 1. ``labels=False`` drops the tick
    labels (for small panels)."""
    matrix = as_matrix(weights, len(tokens), len(tokens))
    if ax is None:
        size = max(3.5, 0.28 * len(tokens) + 1.6)
        ax = Figure(figsize=(size, size), layout="constrained").subplots()
    ax.imshow(matrix, cmap="viridis", vmin=0.0, vmax=1.0)
    if labels:
        ax.set_xticks(range(len(tokens)), labels=list(tokens), rotation=90, fontsize=8)
        ax.set_yticks(range(len(tokens)), labels=list(tokens), fontsize=8)
        ax.set_xlabel("key token j (attended to)")
        ax.set_ylabel("query token i")
    else:
        ax.set_xticks([])
        ax.set_yticks([])
    if title:
        ax.set_title(title, fontsize=9 if not labels else 10)
    return ax


def plot_heads(attentions: Sequence[torch.Tensor], tokens: Sequence[str]) -> Figure:
    """Every head of every layer (Chapter 6): a grid of heat maps, one row per layer and one
    column per head, for one input of ``len(tokens)`` tokens."""
    check_attentions(attentions, tokens)
    layers, heads = len(attentions), attentions[0].shape[0]
    width = min(7.5, PANEL_INCHES * heads + 0.4)
    figure = Figure(figsize=(width, width / heads * layers + 0.3), layout="constrained")
    axes = np.atleast_2d(figure.subplots(layers, heads, squeeze=False))
    for layer in range(layers):
        for head in range(heads):
            name = f"layer {layer + 1}, head {head + 1}"
            plot_head(attentions[layer][head], tokens, axes[layer, head], name, labels=False)
    return figure


def plot_neuron_view(
    query: torch.Tensor, keys: torch.Tensor, tokens: Sequence[str], query_token: int
) -> Figure:
    """One query of one head, term by term (Chapter 6, after BertViz's neuron view): the
    elementwise products q ⊙ k_j ``[T, d_k]`` (their row sums are the dot products), the scores
    q . k_j / sqrt(d_k) and the weights softmax_j of the scores.

    ``query`` is q ``[d_k]``, ``keys`` are the k_j ``[T, d_k]`` of the same head.
    """
    if query.dim() != 1 or keys.dim() != 2 or keys.shape != (len(tokens), query.shape[0]):
        raise ValueError(
            f"query must be [d_k] and keys [T, d_k] with T = len(tokens) = {len(tokens)}, got "
            f"{tuple(query.shape)} and {tuple(keys.shape)}"
        )
    products = (query * keys).detach().cpu().double().numpy()
    scores = products.sum(axis=1) / math.sqrt(query.shape[0])
    weights = np.exp(scores - scores.max())
    weights /= weights.sum()
    height = max(3.0, 0.25 * len(tokens) + 1.2)
    figure = Figure(figsize=(7.5, height), layout="constrained")
    grid = figure.add_gridspec(1, 3, width_ratios=(4.0, 1.3, 1.3))
    product_axes = figure.add_subplot(grid[0])
    limit = float(np.abs(products).max())
    image = product_axes.imshow(products, cmap="RdBu_r", vmin=-limit, vmax=limit, aspect="auto")
    product_axes.set_yticks(range(len(tokens)), labels=list(tokens), fontsize=8)
    product_axes.set_xlabel("dimension of the head")
    product_axes.set_title(f"q ⊙ k_j, q of '{tokens[query_token]}'", fontsize=10)
    figure.colorbar(image, ax=product_axes, fraction=0.05)
    rows = np.arange(len(tokens))
    for column, (values, name) in enumerate(
        ((scores, "q · k_j / √d_k"), (weights, "softmax")), start=1
    ):
        axes = figure.add_subplot(grid[column], sharey=product_axes)
        axes.barh(rows, values, color="tab:blue" if column == 1 else "tab:orange")
        axes.axvline(0.0, color="gray", linewidth=0.8)
        axes.tick_params(labelleft=False)
        axes.set_title(name, fontsize=10)
    return figure
