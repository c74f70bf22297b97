"""Padding: turn sequences of different lengths into one rectangular tensor (Chapter 1).

A batch of ``B`` sequences with lengths ``n_1..n_B`` becomes a ``[B, T]`` tensor with
``T = max_b n_b``; row ``b`` holds sequence ``b`` followed by ``T - n_b`` padding ids. The
lengths travel with the batch so that models and losses can ignore the padding
(:func:`coursekit.text.masks.padding_mask`).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor

from coursekit.text.masks import padding_mask


def as_id_tensor(sequence: Tensor | Sequence[int]) -> Tensor:
    """A 1-D tensor of ids: a list of ints becomes a LongTensor, a 1-D tensor is kept as is."""
    tensor = sequence if isinstance(sequence, Tensor) else torch.tensor(sequence, dtype=torch.long)
    if tensor.dim() != 1:
        raise ValueError(
            f"each sequence must be 1-D (a list of ids), got shape {tuple(tensor.shape)}"
        )
    return tensor


def require_not_empty(tensors: Sequence[Tensor]) -> None:
    """Refuse a sequence of length 0 (Chapter 1): no model of the course reads one. A recurrent
    network has no last step whose state could summarise it, and attention over no key is
    undefined, so an empty sequence is refused here, where it enters a batch."""
    empty = [index for index, tensor in enumerate(tensors) if len(tensor) == 0]
    if empty:
        raise ValueError(
            f"pad_batch got empty sequences (length 0) at positions {empty} of the batch: every "
            "sequence needs at least one id; drop the empty ones before batching, e.g. "
            "[s for s in sequences if len(s) > 0], or give every sequence an end-of-sequence id"
        )


def pad_batch(
    sequences: Sequence[Tensor | Sequence[int]],
    padding_value: int = 0,
    batch_first: bool = True,
) -> tuple[Tensor, Tensor]:
    """Pad sequences to a common length: ``padded[b, t] = x_b[t]`` if ``t < n_b`` else pad.

    Returns ``(padded, lengths)``: ``padded`` is ``[B, T]`` (``[T, B]`` when ``batch_first`` is
    False) and equals ``torch.nn.utils.rnn.pad_sequence``; ``lengths[b] = n_b`` is a LongTensor
    ``[B]``. Every sequence needs ``n_b >= 1`` (:func:`require_not_empty`). Chapter 1, Text as
    sequences.
    """
    if len(sequences) == 0:
        raise ValueError("pad_batch needs at least one sequence, got an empty batch")
    tensors = [as_id_tensor(sequence) for sequence in sequences]
    require_not_empty(tensors)
    lengths = torch.tensor([len(tensor) for tensor in tensors], dtype=torch.long)
    padded = tensors[0].new_full((len(tensors), int(lengths.max())), padding_value)
    is_token = ~padding_mask(lengths).to(padded.device)  # t < n_b, [B, T]
    padded[is_token] = torch.cat(tensors)  # row by row, in order
    if not batch_first:
        padded = padded.transpose(0, 1).contiguous()
    return padded, lengths
