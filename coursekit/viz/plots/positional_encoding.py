"""The sinusoidal positional encoding (Chapter 5, Transformers): its matrix, a few of its
features against the position, and how similar two positions' encodings are as they move apart.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from matplotlib.figure import Figure

from coursekit.models.transformer.positional_encoding import sinusoidal_positional_encoding
from coursekit.page import TEXT_COLUMN_WIDTH


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
    figure = Figure(figsize=(TEXT_COLUMN_WIDTH, 5.6), layout="constrained")
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
