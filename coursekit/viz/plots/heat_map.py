"""The one drawing of an attention map, shared by every attention figure of the book (Chapters 4,
5 and 6): the weights as a heat map from 0 to 1, one row per query token and one column per key
token, square cells, and one rule for which tokens label its sides and in what size.

A row is what attends: a decoding step t of a translation (Chapter 4) or a query token of
self-attention (Chapters 5 and 6); a column is what it attends to, a source token or a key.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from matplotlib.axes import Axes
from matplotlib.image import AxesImage

COLOUR_MAP = "viridis"
CELL_INCHES = 0.32
"""Side of one cell of a map drawn at its own size: 20 x 20 tokens stay readable."""
LARGEST_LABEL = 9
"""Points: a token's label is never larger, however much room it has."""
SMALLEST_LABEL = 6
"""Points: a token's label is never smaller; with less room, tokens go unlabelled instead."""
LABEL_PITCH = 1.25
"""Labels are set at least their size and a quarter apart."""
POINTS_PER_INCH = 72.0
COLOUR_BAR_INCHES = 1.0
"""Beside the maps of a figure: their one colour bar and its label."""


@dataclass(frozen=True)
class Roles:
    """What the rows, the columns and the colours of a map are, in its chapter's words: the axis
    labels ``query`` and ``key``, the title ``row`` of one row (a format with ``index`` and
    ``token``) and the colour bar's label ``weight``."""

    query: str
    key: str
    row: str
    weight: str


TRANSLATION = Roles(
    query="target token $t$",
    key="source token $j$",
    row="step {index}: producing {token!r}",
    weight=r"attention weight $\alpha_{t,j}$",
)
"""Chapter 4: a decoder's step t attends to the source tokens j."""
SELF_ATTENTION = Roles(
    query="query (attending)",
    key="key (attended)",
    row="query {token!r} (position {index})",
    weight="attention weight",
)
"""Chapters 5 and 6: each query token attends to the key tokens."""


@dataclass(frozen=True)
class TokenTicks:
    """The tokens that label one side of a map: their positions, their text, the font size."""

    positions: list[int]
    labels: list[str]
    font_size: int


def token_ticks(tokens: Sequence[str], length: float) -> TokenTicks:
    """The one tick rule of every attention map, for ``tokens`` along a side ``length`` inches
    long: every token is labelled, in the largest size from LARGEST_LABEL down to SMALLEST_LABEL
    whose labels, LABEL_PITCH times their size apart, fit the side; when even the smallest do not,
    every k-th token is labelled from the first, k the smallest that fits.
    """
    count = len(tokens)
    pitch = POINTS_PER_INCH * length / max(count, 1)  # points of the side per token
    size = min(LARGEST_LABEL, max(SMALLEST_LABEL, math.floor(pitch / LABEL_PITCH)))
    step = max(1, math.ceil(size * LABEL_PITCH / pitch))
    positions = list(range(0, count, step))
    return TokenTicks(positions, [tokens[position] for position in positions], size)


def as_matrix(weights: torch.Tensor | np.ndarray, rows: int, columns: int) -> np.ndarray:
    """``weights`` as a float array ``[rows, columns]`` (queries x keys), checked."""
    if isinstance(weights, torch.Tensor):
        weights = weights.detach().cpu().double().numpy()
    matrix = np.asarray(weights, dtype=float)
    if matrix.shape != (rows, columns):
        raise ValueError(
            f"weights must have shape [len(query_tokens), len(key_tokens)] = [{rows}, {columns}] "
            f"(for a translation [target, source]), got {matrix.shape}; pass one example's "
            "weights, e.g. attention[b, :target_length, :source_length]"
        )
    return matrix


def map_size(query_tokens: Sequence[str], key_tokens: Sequence[str]) -> tuple[float, float]:
    """Inches (width, height) of a map drawn at its own size, CELL_INCHES per token."""
    return CELL_INCHES * len(key_tokens), CELL_INCHES * len(query_tokens)


def draw_heat_map(
    ax: Axes,
    weights: torch.Tensor | np.ndarray,
    query_tokens: Sequence[str],
    key_tokens: Sequence[str],
    size: tuple[float, float] | None = None,
    label_rows: bool = True,
    label_columns: bool = True,
) -> AxesImage:
    """One attention map on ``ax`` (Chapters 4, 5 and 6): ``weights [T_q, T_k]`` coloured from 0
    to 1, the query tokens down the rows and the key tokens along the columns, labelled by
    :func:`token_ticks` for the map's ``size`` (width, height) in inches as its figure plans it
    (by default :func:`map_size`). ``label_rows=False`` or ``label_columns=False`` leaves a side
    bare, for the inner panels of a grid. Returns the image, for a colour bar.
    """
    matrix = as_matrix(weights, len(query_tokens), len(key_tokens))
    width, height = size if size is not None else map_size(query_tokens, key_tokens)
    image = ax.imshow(matrix, cmap=COLOUR_MAP, vmin=0.0, vmax=1.0, aspect="equal")
    columns = token_ticks(key_tokens, width) if label_columns else TokenTicks([], [], 0)
    rows = token_ticks(query_tokens, height) if label_rows else TokenTicks([], [], 0)
    ax.set_xticks(columns.positions, labels=columns.labels, rotation=90, fontsize=columns.font_size)
    ax.set_yticks(rows.positions, labels=rows.labels, fontsize=rows.font_size)
    ax.tick_params(length=0)
    return image
