"""Sampling factorization orders for XLNet's permutation language model, with partial
prediction (Chapter 7, Transformer-XL and XLNet).

For a sequence of T tokens there are T! orders z (4! = 24 for four tokens); XLNet samples one per
sequence and predicts only its last T - K tokens, z_{K+1} .. z_T: the first K (before the cut
point) are context, which converges faster than predicting every token from almost nothing. As in
XLNet's code the context tokens see each other (and not the targets), and each target sees the
context and the targets before it in z:

    perm_mask[b, i, j] = 1  (i does NOT attend to j)  if j is a target and i is not after j in z,

with Hugging Face's meaning of ``perm_mask`` (a target does not see itself: its content stream
gets its own position back, its query stream must not). ``target_mapping[b, p, j] = 1`` when the
p-th prediction, the target z_{K+1+p}, sits at position j.
"""

from __future__ import annotations

from typing import NamedTuple

import torch
import torch.nn.functional as F
from torch import Tensor

from coursekit.arguments import is_int, require_positive_int


class PermutationPrediction(NamedTuple):
    """A sampled factorization order and the inputs of XLNet that realise it (Chapter 7)."""

    perm_mask: Tensor
    """``[B, T, T]``, 1 where i may not attend to j."""
    target_mapping: Tensor
    """``[B, T - K, T]``, one row per target, in the order z."""
    order: Tensor
    """``[B, T]``, the positions in the order z: z_1, ..., z_T."""


def permutation_masks(
    order: Tensor, cut: int, dtype: torch.dtype = torch.float32
) -> PermutationPrediction:
    """``perm_mask`` and ``target_mapping`` of the orders ``order [B, T]`` (a permutation of the
    positions per row) with the first ``cut`` positions of each order as context (Chapter 7).
    """
    require_order(order, cut)
    rank = order.argsort(dim=-1)  # rank[b, i] = t where z_t = i
    is_target = rank >= cut
    after = rank.unsqueeze(-1) > rank.unsqueeze(-2)  # after[b, i, j]: i comes after j in z
    blocked = is_target.unsqueeze(-2) & ~(after & is_target.unsqueeze(-1))
    target_mapping = F.one_hot(order[:, cut:], order.shape[-1])
    return PermutationPrediction(blocked.to(dtype), target_mapping.to(dtype), order)


def independent_targets(prediction: PermutationPrediction) -> PermutationPrediction:
    """The same targets predicted as a masked language model predicts them, each from the context
    alone: ``perm_mask[b, i, j] = 1`` for every target j, so no target sees another and
    ``p(x_i, x_j | context)`` becomes ``p(x_i | context) p(x_j | context)``, BERT's independence
    assumption, with XLNet's network and no [MASK] token (Chapter 7).
    """
    is_target = prediction.target_mapping.sum(dim=-2) > 0  # [B, T]
    blocked = is_target.unsqueeze(-2).expand_as(prediction.perm_mask)
    return prediction._replace(perm_mask=blocked.to(prediction.perm_mask.dtype))


def sample_permutation(
    batch_size: int,
    length: int,
    cut: int,
    generator: torch.Generator | None = None,
    dtype: torch.dtype = torch.float32,
    device: torch.device | str | None = None,
) -> PermutationPrediction:
    """A uniformly random order z per sequence, ``cut`` context positions, and the
    ``perm_mask`` and ``target_mapping`` that predict the other ``length - cut`` (Chapter 7).

    Orders are drawn on the CPU (with ``generator``, so a seed repeats them wherever the model
    runs) and the masks moved to ``device``.
    """
    require_positive_int("batch_size", batch_size)
    require_positive_int("length", length)
    order = torch.stack([torch.randperm(length, generator=generator) for _ in range(batch_size)])
    return permutation_masks(order.to(device), cut, dtype)


def require_order(order: Tensor, cut: int) -> None:
    """Reject anything but a permutation of ``0 .. T-1`` per row, and a cut that leaves at least
    one context token (so every target sees something) and one target (Chapter 7).
    """
    if order.dim() != 2 or order.is_floating_point():
        raise ValueError(
            f"order must be a [B, T] integer tensor (a permutation of the positions per row), "
            f"got shape {tuple(order.shape)} and dtype {order.dtype}"
        )
    length = order.shape[-1]
    positions = torch.arange(length, device=order.device)
    if not torch.equal(order.sort(dim=-1).values, positions.expand_as(order)):
        raise ValueError(f"each row of order must be a permutation of 0 .. {length - 1}")
    if not is_int(cut) or not 1 <= cut < length:
        raise ValueError(
            f"cut must be an integer with 1 <= cut < T = {length}: at least one context token "
            f"for the first target to see and at least one target, got {cut!r}"
        )
