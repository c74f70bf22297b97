"""The key-value cache of incremental decoding (Chapter 5, Transformers).

A decoder that writes one token at a time would recompute, at every step, the keys and values of
all earlier tokens in every layer, although they never change: under causal self-attention
position i sees positions 0..i only, so a new token changes no earlier row. The cache keeps them.
For the P cached tokens and T new ones x_new, each layer computes the new rows only,

    K = [K_past ; x_new W^K],   V = [V_past ; x_new W^V],   Q = x_new W^Q,

and the new tokens attend all P + T keys (new token i at position P + i sees keys 0..P + i).
Generating n tokens then reads each token once instead of re-reading the whole prefix n times.

A cache is a plain tuple with one ``(keys, values)`` pair per layer, each ``[B, heads, P, d_k]``,
batch first, so a beam search reorders it by ``index_select(0, ...)`` on every tensor.
"""

from __future__ import annotations

import torch
from torch import Tensor

from coursekit.text.masks import causal_mask

LayerKeyValues = tuple[Tensor, Tensor]
"""The cached keys ``[B, heads, P, d_k]`` and values ``[B, heads, P, d_v]`` of one layer."""

KeyValueCache = tuple[LayerKeyValues, ...]
"""One :data:`LayerKeyValues` per layer, first layer first."""


def extend_keys_values(past: LayerKeyValues | None, keys: Tensor, values: Tensor) -> LayerKeyValues:
    """``K = [K_past ; K_new]`` and ``V = [V_past ; V_new]`` along the positions (dimension -2).
    Explained in Chapter 5, Transformers.
    """
    if past is None:
        return keys, values
    return torch.cat([past[0], keys], dim=-2), torch.cat([past[1], values], dim=-2)


def cache_length(cache: KeyValueCache | None) -> int:
    """P, the number of tokens whose keys and values the cache holds (0 for no cache) (Chapter 5)."""
    return 0 if cache is None else cache[0][0].shape[-2]


def incremental_causal_mask(
    new_length: int, past_length: int, device: torch.device | None = None
) -> Tensor | None:
    """The mask of T new tokens after P cached ones, ``[T, P + T]``, True where attention is NOT
    allowed (``torch.nn.MultiheadAttention``'s convention): new token i sees keys 0..P + i.

    None when T = 1: a single new token may attend every key (Chapter 5).
    """
    if new_length == 1:
        return None
    return causal_mask(new_length, device, key_length=past_length + new_length, offset=past_length)


def require_cache(cache: KeyValueCache | None, num_layers: int, batch_size: int) -> None:
    """Reject a cache that does not hold one ``(keys, values)`` pair per layer for this batch.
    Explained in Chapter 5, Transformers.
    """
    if cache is None:
        return
    if not isinstance(cache, tuple) or len(cache) != num_layers:
        raise ValueError(
            f"the state must be the key-value cache a previous call returned: a tuple of "
            f"{num_layers} (keys, values) pairs, one per layer, got {type(cache).__name__}"
            f"{f' of length {len(cache)}' if isinstance(cache, tuple) else ''}"
        )
    keys = cache[0][0]
    if keys.dim() != 4 or keys.shape[0] != batch_size:
        raise ValueError(
            f"the cached keys must be [B, heads, P, d_k] with B = {batch_size} (the batch of the "
            f"new tokens), got shape {tuple(keys.shape)}; start again with state=None"
        )


def empty_cache(
    num_layers: int, batch_size: int, num_heads: int, head_dim: int, like: Tensor
) -> KeyValueCache:
    """A cache that holds no token yet: keys and values ``[B, heads, 0, d_k]`` per layer, in the
    dtype and on the device of ``like``, so that a decoder state has the same structure before
    the first step as after it (Chapter 5).
    """
    empty = like.new_zeros(batch_size, num_heads, 0, head_dim)
    return tuple((empty, empty) for _ in range(num_layers))
