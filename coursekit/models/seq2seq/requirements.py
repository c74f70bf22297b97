"""What the attention modules require of their arguments (Chapter 4, Seq2seq and attention),
kept apart so that the modules themselves read like their equations. Each requirement raises a
``ValueError`` that names the argument, what was expected, what was received and how to fix it.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn


def describe(tensor: object) -> str:
    """``shape (2, 3) and dtype torch.float32``, or the type of a non-tensor."""
    if isinstance(tensor, Tensor):
        return f"shape {tuple(tensor.shape)} and dtype {tensor.dtype}"
    return f"a {type(tensor).__name__}"


def require_attention_inputs(
    query: Tensor, keys: Tensor, values: Tensor, key_padding_mask: Tensor | None
) -> None:
    """The shapes of the attention interface must be ``query [B, Dq]`` or ``[B, T, Dq]``,
    ``keys [B, S, Dk]``, ``values [B, S, Dv]`` of one floating dtype, ``key_padding_mask [B, S]``
    bool (True on padding) leaving at least one key per row.
    """
    for name, tensor, shapes in (
        ("query", query, "[B, Dq] (one step) or [B, T, Dq] (all steps)"),
        ("keys", keys, "[B, S, Dk]"),
        ("values", values, "[B, S, Dv]"),
    ):
        dims = (2, 3) if name == "query" else (3,)
        if not isinstance(tensor, Tensor) or tensor.dim() not in dims:
            raise ValueError(f"{name} must be a tensor of shape {shapes}, got {describe(tensor)}")
        if not tensor.is_floating_point() or tensor.dtype != query.dtype:
            raise ValueError(
                f"{name} must be floating-point with the query's dtype {query.dtype}, got "
                f"{tensor.dtype}; convert with .to(query.dtype)"
            )
    batch_size, source_length = keys.shape[0], keys.shape[1]
    if query.shape[0] != batch_size or values.shape[0] != batch_size:
        raise ValueError(
            f"query, keys and values must share the batch size, got {query.shape[0]}, "
            f"{batch_size} and {values.shape[0]}"
        )
    if values.shape[1] != source_length or source_length == 0:
        raise ValueError(
            "keys and values must hold the same number S >= 1 of source positions (one value "
            f"per key), got keys {describe(keys)} and values {describe(values)}"
        )
    if key_padding_mask is None:
        return
    if (
        not isinstance(key_padding_mask, Tensor)
        or key_padding_mask.dtype != torch.bool
        or tuple(key_padding_mask.shape) != (batch_size, source_length)
    ):
        raise ValueError(
            f"key_padding_mask must be a bool tensor [B, S] = [{batch_size}, {source_length}], "
            f"True on padding, got {describe(key_padding_mask)}; build it with "
            "coursekit.text.padding_mask(lengths, max_len=S)"
        )
    empty_rows = key_padding_mask.all(dim=-1).nonzero().flatten().tolist()
    if empty_rows:
        raise ValueError(
            f"key_padding_mask masks every key of batch rows {empty_rows}: a softmax over no "
            "key is undefined; every sequence needs at least one real (unmasked) position"
        )


def require_feature_sizes(
    module: nn.Module, query_features: int, key_features: int, source_length: int
) -> None:
    """The query and key sizes (and the source length) must fit what ``module`` was built for:
    its ``query_size``, ``key_size``, ``equal_sizes`` and ``max_source_length``.
    """
    name = type(module).__name__
    for argument, expected, received in (
        ("query", getattr(module, "query_size", None), query_features),
        ("keys", getattr(module, "key_size", None), key_features),
    ):
        if expected is not None and expected != received:
            raise ValueError(
                f"{name} was built for {argument} of size {expected}, got {argument} with "
                f"{received} features; build it with the sizes of your query and keys"
            )
    if getattr(module, "equal_sizes", False) and query_features != key_features:
        raise ValueError(
            f"{name} takes a dot product of query and key, so they need the same size, got "
            f"query size {query_features} and key size {key_features}; use "
            "GeneralAttention(query_size, key_size) or AdditiveAttention for different sizes"
        )
    longest = getattr(module, "max_source_length", None)
    if longest is not None and source_length > longest:
        raise ValueError(
            f"{name} scores at most max_source_length={longest} positions, got keys with "
            f"S={source_length}; build it with a larger max_source_length"
        )
