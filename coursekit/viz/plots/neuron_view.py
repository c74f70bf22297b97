"""BERTViz's "neuron view" of one query of one head (Chapter 6, BERT, after Vig, 2019): the query
q against each key k_j term by term, their elementwise products q ⊙ k_j, the scores
q . k_j / sqrt(d_k) and the softmax of the scores, the head's attention weights.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import torch
from matplotlib.figure import Figure

from coursekit.page import TEXT_COLUMN_WIDTH


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
    figure = Figure(figsize=(TEXT_COLUMN_WIDTH, height), layout="constrained")
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
