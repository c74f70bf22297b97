"""Relative positions, the encodings R_{i-j} and the relative shift of Transformer-XL and XLNet
(Chapter 7, Transformer-XL and XLNet).

Reusing absolute positions 1..L in every segment would give a token of the memory and a token of
the current segment the same position. Transformer-XL encodes instead how far a key is from the
query: with M positions of memory before the Q new ones, query i (position M + i of the extended
context of K = M + Q keys) and key j are ``i + M - j`` apart, and the encoding of a distance k is
the fixed sinusoid of Chapter 5, sines and cosines in two halves as Transformer-XL writes them:

    R_k = [sin(k w_0), ..., sin(k w_{d/2-1}), cos(k w_0), ..., cos(k w_{d/2-1})],
    w_i = 1 / 10000^{2i/d}.

A layer scores each query against the R distances ``K - 1, K - 2, ..., last`` (``last`` = 0
under a causal mask, ``-(Q - 1)`` when every query sees every key, as in XLNet), which gives a
``[Q, R]`` table whose row i is ordered by distance; :func:`relative_shift` then moves each entry
to the key it belongs to, ``shifted[i, j] = table[i, (K - 1) - (i + M - j)]``, without a gather.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor

from coursekit.models.transformer.positional_encoding import (
    require_encoding_arguments,
    sinusoid_frequencies,
)


def relative_distances(
    query_length: int,
    key_length: int,
    bidirectional: bool = False,
    clamp_len: int = 0,
    dtype: torch.dtype | None = None,
    device: torch.device | None = None,
) -> Tensor:
    """The distances ``i + M - j`` that ``query_length`` queries see among ``key_length`` keys,
    from the farthest down: ``K - 1, K - 2, ..., 0`` (causal) or ``..., -(Q - 1)``
    (``bidirectional``). With ``clamp_len > 0`` every distance beyond ``clamp_len`` (either
    way) is clamped to it, so that all far keys share one encoding (Chapter 7).
    """
    last = -(query_length - 1) if bidirectional else 0
    distances = torch.arange(key_length - 1, last - 1, -1, dtype=dtype, device=device)
    if clamp_len > 0:
        distances = distances.clamp(-clamp_len, clamp_len)
    return distances


def relative_position_encoding(distances: Tensor, d_model: int) -> Tensor:
    """``R_k = [sin(k w_0..), cos(k w_0..)]``, ``w_i = 1 / 10000^{2i/d}``, for each distance k:
    ``[R] -> [R, d_model]``, in the dtype and on the device of ``distances`` (Chapter 7).
    """
    require_encoding_arguments(d_model, "concatenated", 10000.0)
    frequencies = sinusoid_frequencies(d_model, dtype=distances.dtype, device=distances.device)
    angles = distances.unsqueeze(-1) * frequencies
    return torch.cat([torch.sin(angles), torch.cos(angles)], dim=-1)


def relative_shift(table: Tensor, key_length: int) -> Tensor:
    """``shifted[..., i, j] = table[..., i, Q - 1 - i + j]``: from scores by distance to scores
    by key (Chapter 7).

    ``table [..., Q, R]`` holds in row i the scores of query i against the distances
    ``K - 1, K - 2, ...`` (:func:`relative_distances`); column ``Q - 1 - i + j`` is the distance
    ``i + M - j`` of key j. Transformer-XL's trick moves every row at once: pad one zero column
    in front, read the ``Q x (R + 1)`` numbers as ``(R + 1) x Q``, drop the first row and read
    the rest back as ``Q x R``; row i then starts ``Q - 1 - i`` columns later. The first
    ``key_length`` columns are kept. Where ``Q - 1 - i + j >= R`` the entry is not defined by
    the equation (it reads the next row): under a causal mask these are the future keys
    ``j > i + M``, which the mask hides; with the ``K + Q - 1`` distances of bidirectional
    attention no entry is.
    """
    *batch, queries, distances = table.shape
    padded = F.pad(table, (1, 0))
    shifted = padded.reshape(*batch, distances + 1, queries)[..., 1:, :]
    return shifted.reshape(*batch, queries, distances)[..., :key_length]
