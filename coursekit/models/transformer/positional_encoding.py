"""Positional encodings: how a Transformer knows the order of its inputs (Chapter 5, Transformers).

Attention treats its inputs as a set, so the position of each token is added to its embedding.
The paper's sinusoidal encoding is FIXED (nothing is learned): with d = d_model and frequencies
w_i = 1 / 10000^{2i/d}, i = 0 .. d/2 - 1,

    PE(pos, 2i) = sin(pos w_i),   PE(pos, 2i+1) = cos(pos w_i),

so the wavelengths grow geometrically from 2 pi to 10000 * 2 pi. tensor2tensor writes the same
sines and cosines as two halves, [sin(pos w_0..), cos(pos w_0..)] (``layout="concatenated"``; its
own frequencies are spaced slightly differently, from 1 to 1/10000 in d/2 - 1 steps). For every
offset k a fixed matrix M_k maps PE(pos) to PE(pos + k) (:func:`positional_shift_matrix`), which
the paper gives as the reason relative positions are easy to attend to. Learned positional
embeddings (:class:`LearnedPositionalEmbedding`) are a separate choice: one trained vector per
position, up to a maximum length.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from coursekit.arguments import require_positive_int

LAYOUTS = ("interleaved", "concatenated")


def require_encoding_arguments(d_model: int, layout: str, base: float) -> None:
    """An even ``d_model`` (sines and cosines come in pairs), a known layout, a base > 1.
    Explained in Chapter 5, Transformers.
    """
    require_positive_int("d_model", d_model)
    if d_model % 2:
        raise ValueError(
            f"d_model must be even for sinusoidal encodings (a sine and a cosine per "
            f"frequency), got {d_model}"
        )
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {LAYOUTS}, got {layout!r}")
    if not base > 1:
        raise ValueError(f"base must be > 1 (the paper uses 10000), got {base}")


def sine_cosine_indices(d_model: int, layout: str) -> tuple[Tensor, Tensor]:
    """The features that hold sin(pos w_i) and cos(pos w_i), i = 0 .. d/2 - 1: ``(2i, 2i+1)``
    interleaved, ``(i, d/2 + i)`` concatenated (Chapter 5).
    """
    half = d_model // 2
    if layout == "interleaved":
        return torch.arange(0, d_model, 2), torch.arange(1, d_model, 2)
    return torch.arange(half), torch.arange(half, d_model)


def sinusoid_frequencies(
    d_model: int,
    base: float = 10000.0,
    dtype: torch.dtype | None = None,
    device: torch.device | str | None = None,
) -> Tensor:
    """``w_i = 1 / base^{2i/d}`` for i = 0 .. d/2 - 1 (in ``dtype``, default torch's default).
    Explained in Chapter 5, Transformers.
    """
    dtype = torch.get_default_dtype() if dtype is None else dtype
    exponents = torch.arange(0, d_model, 2, dtype=dtype, device=device) / d_model
    return torch.exp(-math.log(base) * exponents)


def sinusoidal_positional_encoding(
    num_positions: int,
    d_model: int,
    layout: str = "interleaved",
    base: float = 10000.0,
    offset: int = 0,
    dtype: torch.dtype | None = None,
    device: torch.device | str | None = None,
) -> Tensor:
    """``PE(pos, 2i) = sin(pos / 10000^{2i/d})``, ``PE(pos, 2i+1) = cos(pos / 10000^{2i/d})``.

    Returns ``[num_positions, d_model]`` for positions ``offset .. offset + num_positions - 1``
    (``layout="concatenated"``: the sines in the first half, the cosines in the second) (Chapter 5).
    """
    require_encoding_arguments(d_model, layout, base)
    dtype = torch.get_default_dtype() if dtype is None else dtype
    positions = torch.arange(offset, offset + num_positions, dtype=dtype, device=device)
    angles = positions.unsqueeze(1) * sinusoid_frequencies(d_model, base, dtype, device)
    encoding = torch.empty(num_positions, d_model, dtype=angles.dtype, device=device)
    sine, cosine = sine_cosine_indices(d_model, layout)
    encoding[:, sine] = torch.sin(angles)
    encoding[:, cosine] = torch.cos(angles)
    return encoding


def positional_shift_matrix(
    k: int,
    d_model: int,
    layout: str = "interleaved",
    base: float = 10000.0,
    dtype: torch.dtype = torch.float64,
) -> Tensor:
    """The fixed ``[d, d]`` matrix M_k with ``PE(pos + k) = M_k PE(pos)`` for every pos.

    From sin(a + b) = sin a cos b + cos a sin b and cos(a + b) = cos a cos b - sin a sin b, each
    frequency's pair (sin(pos w), cos(pos w)) is rotated by the angle k w:

        [sin((pos+k) w)]   [ cos(k w)  sin(k w)] [sin(pos w)]
        [cos((pos+k) w)] = [-sin(k w)  cos(k w)] [cos(pos w)].

    M_k depends on k but not on pos: a shift in position is a linear map of the encoding.
    Explained in Chapter 5, Transformers.
    """
    require_encoding_arguments(d_model, layout, base)
    angles = k * sinusoid_frequencies(d_model, base, dtype)
    sine, cosine = sine_cosine_indices(d_model, layout)
    shift = torch.zeros(d_model, d_model, dtype=dtype)
    shift[sine, sine] = torch.cos(angles)
    shift[sine, cosine] = torch.sin(angles)
    shift[cosine, sine] = -torch.sin(angles)
    shift[cosine, cosine] = torch.cos(angles)
    return shift


def require_positions_fit(offset: int, length: int, max_len: int) -> None:
    """Positions ``offset .. offset + length - 1`` must be below ``max_len`` (Chapter 5)."""
    if offset < 0 or offset + length > max_len:
        raise ValueError(
            f"positions {offset} .. {offset + length - 1} do not fit the maximum length "
            f"max_len={max_len}: shorten the input (or the prompt plus the generated tokens), or "
            f"build the model with a larger max_len"
        )


class SinusoidalPositionalEncoding(nn.Module):
    """``x + PE`` with the paper's fixed sinusoidal encoding (Chapter 5): no parameters.

    ``forward(x, offset=0)`` adds PE(offset + t) to ``x[..., t, :]`` (batch first, ``[B, T, d]``
    or ``[T, d]``); ``offset`` is the position of the first token, e.g. the number of tokens
    already cached in incremental decoding. Any length works: the encoding is computed, in the
    dtype and on the device of ``x``, for the positions asked for.
    """

    def __init__(self, d_model: int, layout: str = "interleaved", base: float = 10000.0) -> None:
        super().__init__()
        require_encoding_arguments(d_model, layout, base)
        self.d_model, self.layout, self.base = d_model, layout, float(base)

    def extra_repr(self) -> str:
        return f"d_model={self.d_model}, layout={self.layout!r}, base={self.base}"

    def forward(self, x: Tensor, offset: int = 0) -> Tensor:
        """``x + PE(offset .. offset + T - 1)`` for ``x [..., T, d_model]``."""
        encoding = sinusoidal_positional_encoding(
            x.shape[-2], self.d_model, self.layout, self.base, offset, x.dtype, x.device
        )
        return x + encoding


class LearnedPositionalEmbedding(nn.Module):
    """``x + P[pos]``: one learned vector per position, up to ``max_len`` (Chapter 5).

    ``weight`` ``[max_len, d_model]`` starts as N(0, 1), the scale of the token embeddings scaled
    by sqrt(d_model) (:class:`coursekit.models.transformer.embedding.TokenEmbedding`). Unlike the
    sinusoidal encoding it cannot go beyond ``max_len``: a longer input raises a ValueError.
    """

    def __init__(self, max_len: int, d_model: int) -> None:
        super().__init__()
        require_positive_int("max_len", max_len)
        require_positive_int("d_model", d_model)
        self.max_len = max_len
        self.weight = nn.Parameter(torch.randn(max_len, d_model))

    def extra_repr(self) -> str:
        return f"max_len={self.max_len}, d_model={self.weight.shape[1]}"

    def forward(self, x: Tensor, offset: int = 0) -> Tensor:
        """``x + P[offset .. offset + T - 1]`` for ``x [..., T, d_model]``."""
        require_positions_fit(offset, x.shape[-2], self.max_len)
        return x + self.weight[offset : offset + x.shape[-2]]


POSITIONAL_ENCODINGS = ("sinusoidal", "learned")


def positional_encoding(kind: str, d_model: int, max_len: int) -> nn.Module:
    """The positional encoding of a model by name: "sinusoidal" (fixed) or "learned" (Chapter 5)."""
    if kind == "sinusoidal":
        return SinusoidalPositionalEncoding(d_model)
    if kind == "learned":
        return LearnedPositionalEmbedding(max_len, d_model)
    raise ValueError(f"positional must be one of {POSITIONAL_ENCODINGS}, got {kind!r}")
