"""What XLNet reads besides its tokens: the attention masks of its two streams and the relative
segments (Chapter 7, Transformer-XL and XLNet).

``perm_mask [B, Q, Q]`` and ``attention_mask [B, Q]`` follow Hugging Face: ``perm_mask[b, i, j]
= 1`` means that i may not attend to j (j comes later in the factorization order, see
:mod:`coursekit.models.xlnet.permutation`), ``attention_mask[b, j] = 0`` marks padding, which no
one attends to. The memory is visible to all. The query stream g_i obeys these masks; the
content stream h_i obeys them too but always sees its own position, since h_i is allowed to know
x_i. ``target_mapping [B, P, Q]`` has one row per prediction, 1 at the position predicted.
``token_type_ids [B, Q]`` give each token's segment (A = 0, B = 1, ...); XLNet only asks whether
two tokens share a segment, and the memory counts as segment 0.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor

from coursekit.models.token_ids import require_token_ids


def query_stream_blocked(
    attention_mask: Tensor | None, perm_mask: Tensor | None, memory_length: int, dtype: torch.dtype
) -> Tensor | None:
    """``blocked [B, 1, Q, M + Q]``: 1 where query i may not see key j, i.e. j is padding or
    ``perm_mask[b, i, j] = 1``; 0 for the M memory keys. None when nothing is masked (Chapter 7).
    """
    if attention_mask is None and perm_mask is None:
        return None
    given = perm_mask if perm_mask is not None else attention_mask
    assert given is not None  # one of them, checked above
    batch_size, length = given.shape[0], given.shape[-1]
    blocked = torch.zeros(batch_size, length, length, dtype=dtype, device=given.device)
    if attention_mask is not None:
        blocked = blocked + (1 - attention_mask.to(dtype)).unsqueeze(1)
    if perm_mask is not None:
        blocked = blocked + perm_mask.to(dtype)
    return (F.pad(blocked, (memory_length, 0)) > 0).to(dtype).unsqueeze(1)


def content_stream_blocked(query_blocked: Tensor | None, memory_length: int) -> Tensor | None:
    """The query stream's mask with the diagonal opened: the content stream h_i sees x_i
    (Chapter 7). None when nothing is masked.
    """
    if query_blocked is None:
        return None
    length = query_blocked.shape[-2]
    itself = torch.eye(length, dtype=query_blocked.dtype, device=query_blocked.device)
    return (query_blocked - F.pad(itself, (memory_length, 0)) > 0).to(query_blocked.dtype)


def segment_differences(token_type_ids: Tensor | None, memory_length: int) -> Tensor | None:
    """``different [B, Q, M + Q]``: True where query i and key j lie in different segments (the
    memory counts as segment 0); None without ``token_type_ids`` (Chapter 7).
    """
    if token_type_ids is None:
        return None
    key_types = F.pad(token_type_ids, (memory_length, 0))
    return token_type_ids.unsqueeze(-1) != key_types.unsqueeze(-2)


def require_shape(
    name: str, tensor: Tensor | None, expected: tuple[int | None, ...], meaning: str
) -> None:
    """Reject ``tensor`` unless it is None or a tensor of shape ``expected`` (None: any size)
    (Chapter 7).
    """
    if tensor is None:
        return
    shape = tuple(tensor.shape) if isinstance(tensor, Tensor) else None
    if (
        shape is None
        or len(shape) != len(expected)
        or any(
            want is not None and size != want for size, want in zip(shape, expected, strict=True)
        )
    ):
        wanted = ", ".join("P" if size is None else str(size) for size in expected)
        received = shape if shape is not None else type(tensor).__name__
        raise ValueError(f"{name} must be {meaning}, a tensor [{wanted}], got {received}")


def require_xlnet_inputs(
    input_ids: Tensor,
    vocab_size: int,
    attention_mask: Tensor | None,
    perm_mask: Tensor | None,
    target_mapping: Tensor | None,
    token_type_ids: Tensor | None,
) -> None:
    """Token ids ``[B, Q]`` in the vocabulary, and each optional input of the shape and kind
    Hugging Face's XLNet expects (Chapter 7).
    """
    require_token_ids(input_ids, vocab_size)
    batch, length = input_ids.shape
    require_shape("attention_mask", attention_mask, (batch, length), "1 per token, 0 per padding")
    require_shape("perm_mask", perm_mask, (batch, length, length), "1 where i may not see j")
    require_shape("target_mapping", target_mapping, (batch, None, length), "a row per prediction")
    require_shape("token_type_ids", token_type_ids, (batch, length), "a segment id per token")
    if token_type_ids is not None and token_type_ids.is_floating_point():
        raise TypeError(
            f"token_type_ids must be integer segment ids, got dtype {token_type_ids.dtype}"
        )
