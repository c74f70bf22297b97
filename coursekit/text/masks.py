"""Attention masks as boolean tensors, True where attention is NOT allowed (Chapter 1).

Both masks follow the convention of ``torch.nn.MultiheadAttention`` and
``torch.nn.Transformer``: a True entry is masked out (its score becomes ``-inf`` before the
softmax). Chapter 5, Transformers, uses them in every attention layer.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor


def padding_mask(lengths: Tensor | Sequence[int], max_len: int | None = None) -> Tensor:
    """Mark padding: ``mask[b, t] = (t >= n_b)``, a BoolTensor ``[B, T]``.

    ``T`` is ``max_len`` when given, else ``max_b n_b``. Pass it as ``key_padding_mask`` to
    ``torch.nn.MultiheadAttention`` so that no query attends to a padding position.
    """
    lengths = torch.as_tensor(lengths, dtype=torch.long)
    if lengths.dim() != 1:
        raise ValueError(f"lengths must be 1-D [B], got shape {tuple(lengths.shape)}")
    if bool((lengths < 0).any()):
        raise ValueError(f"lengths must be non-negative, got {lengths.tolist()}")
    longest = int(lengths.max()) if len(lengths) else 0
    if max_len is None:
        max_len = longest
    elif max_len < longest:
        raise ValueError(f"max_len={max_len} is shorter than the longest sequence ({longest})")
    positions = torch.arange(max_len, device=lengths.device)
    return positions.unsqueeze(0) >= lengths.unsqueeze(1)


def causal_mask(size: int, device: torch.device | str | None = None) -> Tensor:
    """Forbid looking ahead: ``mask[i, j] = (j > i)``, a BoolTensor ``[T, T]``.

    Position ``i`` may attend to positions ``0..i`` only, which is what lets a decoder be
    trained on a whole sequence at once. It is the boolean form of
    ``torch.nn.Transformer.generate_square_subsequent_mask`` (``-inf`` where this is True).
    """
    if size < 0:
        raise ValueError(f"size must be non-negative, got {size}")
    return torch.ones(size, size, dtype=torch.bool, device=device).triu(diagonal=1)
