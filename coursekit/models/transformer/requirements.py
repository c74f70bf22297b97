"""What :class:`coursekit.models.transformer.multihead_attention.MultiHeadAttention` requires
of its arguments (Chapter 5, Transformers): sizes that the heads divide, a dropout probability,
and the shapes and mask types of its inputs. Wrong arguments are rejected here with a message that
says what was expected, so that the module itself reads like its equations.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor

from coursekit.arguments import require_dropout_probability, require_positive_int


def require_multihead_arguments(
    embed_dim: int, num_heads: int, dropout: float, kdim: int, vdim: int
) -> None:
    """Sizes are positive integers and the heads split ``embed_dim`` evenly (Chapter 5)."""
    for name, value in (
        ("embed_dim", embed_dim),
        ("num_heads", num_heads),
        ("kdim", kdim),
        ("vdim", vdim),
    ):
        require_positive_int(name, value)
    if embed_dim % num_heads:
        raise ValueError(
            f"embed_dim={embed_dim} must be divisible by num_heads={num_heads}: each head gets "
            f"d_k = embed_dim / num_heads features"
        )
    require_dropout_probability("dropout", dropout)


def require_mask_dtype(name: str, mask: Tensor) -> None:
    """A mask is boolean (True = NOT allowed) or floating point (added to the scores) (Chapter 5)."""
    if mask.dtype != torch.bool and not mask.is_floating_point():
        raise TypeError(
            f"{name} must be boolean (True = NOT allowed to attend) or floating point (added "
            f"to the scores), got dtype {mask.dtype}; convert with .bool()"
        )


def require_multihead_inputs(
    module: Any,
    query: Tensor,
    key: Tensor,
    value: Tensor,
    key_padding_mask: Tensor | None,
    attn_mask: Tensor | None,
) -> bool:
    """Shapes and dtypes must be as ``torch.nn.MultiheadAttention`` expects them; returns whether
    the inputs are batched (3-D) rather than one unbatched sequence (2-D) (Chapter 5).
    """
    layout = "[B, L, E]" if module.batch_first else "[L, B, E]"
    if query.dim() not in (2, 3):
        raise ValueError(
            f"query must be {layout} (or [L, E] for one sequence), got shape {tuple(query.shape)}"
        )
    batched = query.dim() == 3
    for name, tensor in (("key", key), ("value", value)):
        if tensor.dim() != query.dim():
            raise ValueError(
                f"{name} must have as many dimensions as query ({query.dim()}), got shape "
                f"{tuple(tensor.shape)}"
            )
        if tensor.dtype != query.dtype:
            raise TypeError(f"{name} has dtype {tensor.dtype} but query has {query.dtype}")
    for name, tensor, size_name in (
        ("query", query, "embed_dim"),
        ("key", key, "kdim"),
        ("value", value, "vdim"),
    ):
        if tensor.shape[-1] != getattr(module, size_name):
            raise ValueError(
                f"{name} must have {size_name}={getattr(module, size_name)} features, got shape "
                f"{tuple(tensor.shape)}"
            )
    batch_dim = 0 if module.batch_first else 1
    if batched and not query.shape[batch_dim] == key.shape[batch_dim] == value.shape[batch_dim]:
        raise ValueError(
            f"query, key and value must have the same batch size in dimension {batch_dim} "
            f"({layout}), got shapes {tuple(query.shape)}, {tuple(key.shape)}, "
            f"{tuple(value.shape)}"
        )
    time_dim = 1 - batch_dim if batched else 0
    if key.shape[time_dim] != value.shape[time_dim]:
        raise ValueError(
            f"key and value must have the same length S, got shapes {tuple(key.shape)} and "
            f"{tuple(value.shape)}"
        )
    batch_size = query.shape[batch_dim] if batched else 1
    query_length, key_length = query.shape[time_dim], key.shape[time_dim]
    if key_padding_mask is not None:
        require_mask_dtype("key_padding_mask", key_padding_mask)
        expected = (batch_size, key_length) if batched else (key_length,)
        if tuple(key_padding_mask.shape) != expected:
            raise ValueError(
                f"key_padding_mask must have shape {expected} ([B, S] for a batch, [S] for one "
                f"sequence), got {tuple(key_padding_mask.shape)}"
            )
    if attn_mask is not None:
        require_mask_dtype("attn_mask", attn_mask)
        heads = batch_size * module.num_heads
        shapes = [(query_length, key_length), (heads, query_length, key_length)]
        if tuple(attn_mask.shape) not in shapes:
            raise ValueError(
                f"attn_mask must have shape [L, S] = {shapes[0]} or [B*num_heads, L, S] = "
                f"{shapes[1]}, got {tuple(attn_mask.shape)}"
            )
    return batched
