"""Scaled dot-product attention, written from its equation (Chapter 5, Transformers).

For queries Q ``[..., m, d_k]``, keys K ``[..., n, d_k]`` and values V ``[..., n, d_v]``,

    Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k) + M) V,

where the mask M is 0 where query i may attend key j and -inf where it may not. Dividing by
sqrt(d_k) keeps the scores of random d_k-dimensional vectors at unit variance: without it, large
dot products push the softmax into regions where it is almost one-hot and its gradients tiny.

Masks follow ``torch.nn.functional.scaled_dot_product_attention``: a boolean mask is True where
attention IS allowed (the opposite of ``torch.nn.MultiheadAttention``, see
:mod:`coursekit.models.transformer.multihead_attention`), a float mask is added to the scores. A
query whose every key is masked gets all-zero weights and a zero output, as torch's SDPA gives
since torch 2.5 (older versions give NaN).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor

from coursekit.arguments import is_number, require_dropout_probability
from coursekit.text.masks import causal_mask


def causal_allowed(
    query_length: int, key_length: int, offset: int = 0, device: torch.device | None = None
) -> Tensor:
    """Where attention is allowed under a causal mask: ``allowed[i, j] = (j <= i + offset)``.

    A BoolTensor ``[query_length, key_length]`` in SDPA's convention (True = attend), the
    negation of :func:`coursekit.text.masks.causal_mask` (True = NOT allowed). With
    ``offset = 0`` it is the top-left aligned lower triangle that ``is_causal=True`` means in
    ``torch.nn.functional.scaled_dot_product_attention``; a decoder reading new tokens after
    ``offset`` cached ones uses ``offset`` = the number of cached keys (Chapter 5).
    """
    return ~causal_mask(query_length, device, key_length=key_length, offset=offset)


def softmax_over_keys(scores: Tensor) -> Tensor:
    """softmax(scores) over the last dimension (the keys), with all-zero weights in a row whose
    every score is -inf (every key masked) instead of 0/0 = NaN; such rows get zero gradients.
    Explained in Chapter 5, Transformers.
    """
    no_key = torch.isneginf(scores).all(dim=-1, keepdim=True)
    return torch.softmax(scores.masked_fill(no_key, 0.0), dim=-1).masked_fill(no_key, 0.0)


def attention(
    query: Tensor, key: Tensor, value: Tensor, mask: Tensor | None, dropout_p: float, scale: float
) -> tuple[Tensor, Tensor]:
    """``softmax(Q K^T * scale + M) V`` and the weights softmax(...) (Chapter 5).

    ``mask`` is a float tensor added to the scores or a BoolTensor, True where attention is
    allowed; dropout with probability ``dropout_p`` acts on the weights, and the weights returned
    are the ones that multiplied V.
    """
    scores = (query * scale) @ key.transpose(-2, -1)  # Q K^T * scale, scaling the smaller Q
    if mask is None:
        weights = torch.softmax(scores, dim=-1)
    else:
        scores = scores + mask if mask.is_floating_point() else scores.masked_fill(~mask, -math.inf)
        weights = softmax_over_keys(scores)  # a query may have no key left
    if dropout_p > 0:
        weights = F.dropout(weights, dropout_p)
    return weights @ value, weights


def scaled_dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
    need_weights: bool = False,
) -> Tensor | tuple[Tensor, Tensor]:
    """``softmax(Q K^T / sqrt(d_k) + M) V``, equal to torch's SDPA (Chapter 5, Transformers).

    ``query [..., L, E]``, ``key [..., S, E]`` and ``value [..., S, E_v]`` may broadcast over
    their batch dimensions; ``attn_mask`` broadcasts to ``[..., L, S]`` and is boolean (True =
    attend) or float (added to the scores). ``is_causal=True`` lets query i attend keys
    ``j <= i`` only (:func:`causal_allowed`). ``scale`` replaces 1/sqrt(E). Dropout with
    probability ``dropout_p`` acts on the weights whenever ``dropout_p > 0``, as in torch, so
    pass 0 in evaluation. Returns the output ``[..., L, E_v]``, and with ``need_weights=True``
    the pair ``(output, weights [..., L, S])``.
    """
    mask = require_attention_arguments(query, key, value, attn_mask, dropout_p, is_causal, scale)
    if is_causal:
        mask = causal_allowed(query.shape[-2], key.shape[-2], device=query.device)
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else float(scale)
    output, weights = attention(query, key, value, mask, dropout_p, scale)
    return (output, weights) if need_weights else output


def require_attention_arguments(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None,
    dropout_p: float,
    is_causal: bool,
    scale: float | None,
) -> Tensor | None:
    """Require valid arguments of :func:`scaled_dot_product_attention`; returns the mask, a float
    mask cast to the dtype of ``query`` (Chapter 5).
    """
    for name, tensor in (("query", query), ("key", key), ("value", value)):
        if not isinstance(tensor, Tensor) or tensor.dim() < 2 or not tensor.is_floating_point():
            raise ValueError(
                f"{name} must be a floating-point tensor [..., length, features], got "
                f"{type(tensor).__name__} of shape {tuple(getattr(tensor, 'shape', ()))}"
            )
    if key.dtype != query.dtype or value.dtype != query.dtype:
        raise TypeError(
            f"query, key and value must share a dtype, got {query.dtype}, {key.dtype} and "
            f"{value.dtype}; convert them with .to(query.dtype)"
        )
    if key.shape[-1] != query.shape[-1]:
        raise ValueError(
            f"query and key must have the same number of features d_k, got query "
            f"{tuple(query.shape)} and key {tuple(key.shape)}"
        )
    if key.shape[-2] != value.shape[-2]:
        raise ValueError(
            f"key and value must have one row per key (the same length S), got key "
            f"{tuple(key.shape)} and value {tuple(value.shape)}"
        )
    try:
        batch = torch.broadcast_shapes(query.shape[:-2], key.shape[:-2], value.shape[:-2])
    except RuntimeError:
        raise ValueError(
            f"the batch dimensions of query {tuple(query.shape)}, key {tuple(key.shape)} and "
            f"value {tuple(value.shape)} do not broadcast"
        ) from None
    require_dropout_probability("dropout_p", dropout_p)
    if scale is not None and not is_number(scale):
        raise TypeError(f"scale must be a number (or None for 1/sqrt(d_k)), got {scale!r}")
    if attn_mask is None:
        return None
    if is_causal:
        raise ValueError(
            "give either attn_mask or is_causal=True, not both (as in torch): fold the causal "
            "mask into attn_mask with causal_allowed(L, S) & attn_mask"
        )
    if attn_mask.dtype != torch.bool and not attn_mask.is_floating_point():
        raise TypeError(
            f"attn_mask must be boolean (True = attend) or floating point (added to the "
            f"scores), got dtype {attn_mask.dtype}"
        )
    scores_shape = (*batch, query.shape[-2], key.shape[-2])
    try:
        broadcast = torch.broadcast_shapes(attn_mask.shape, scores_shape)
    except RuntimeError:
        broadcast = None
    if broadcast != torch.Size(scores_shape):
        raise ValueError(
            f"attn_mask must broadcast to the scores [..., L, S] = {scores_shape}, got shape "
            f"{tuple(attn_mask.shape)}"
        )
    return attn_mask if attn_mask.dtype == torch.bool else attn_mask.to(query.dtype)
