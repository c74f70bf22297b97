"""Attention masks as boolean tensors, True where attention is NOT allowed (Chapter 1).

Both masks follow the convention of ``torch.nn.MultiheadAttention`` and
``torch.nn.Transformer``: a True entry is masked out (its score becomes ``-inf`` before the
softmax). Where the course uses them:

- Chapter 1 builds padded batches and marks their padding with :func:`padding_mask`; - Chapter 3's
  bag-of-words classifier (``coursekit.models.recurrent.classifier``) averages only the real tokens
  with it, and the chapter's tagger leaves padded positions out of its loss; - Chapter 4's
  attention (``coursekit.models.seq2seq.attention``, the encoder-decoder and the pointer network)
  takes it as ``key_padding_mask [B, S]``; - Chapter 5's ``MultiHeadAttention`` and Transformer
  layers take ``key_padding_mask`` and ``attn_mask`` in this convention; ``Seq2SeqTransformer``
  builds its ``tgt_mask`` with :func:`causal_mask`, ``is_causal=True`` and the key-value cache
  build it with ``key_length`` and ``offset``, and
  ``coursekit.models.transformer.scaled_dot_product.causal_allowed`` is its negation for
  ``scaled_dot_product_attention``, whose boolean masks are True where attention IS allowed; -
  Chapter 6 pads BERT's pretraining batches with :func:`padding_mask` (BERT itself reads Hugging
  Face's ``attention_mask``, 1 on real tokens); - Chapter 7's Transformer-XL masks memory and
  segment with ``transformer_xl_mask``: its future part equals ``causal_mask(Q, key_length=M + Q,
  offset=M)`` (a test checks it), computed there from the distances ``i + M - j`` that its
  ``same_length`` band needs too; XLNet's permutation masks are float masks in Hugging Face's
  convention.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor

from coursekit.arguments import require_non_negative_int


def padding_mask(lengths: Tensor | Sequence[int], max_len: int | None = None) -> Tensor:
    """Mark padding: ``mask[b, t] = (t >= n_b)``, a BoolTensor ``[B, T]`` (Chapter 1).

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


def require_causal_sizes(size: int, key_length: int, offset: int) -> None:
    """Sizes must be non-negative integers (Chapters 1 and 5)."""
    for name, value in (("size", size), ("key_length", key_length), ("offset", offset)):
        require_non_negative_int(name, value)


def causal_mask(
    size: int,
    device: torch.device | str | None = None,
    *,
    key_length: int | None = None,
    offset: int = 0,
) -> Tensor:
    """Forbid looking ahead: ``mask[i, j] = (j > i + offset)``, a BoolTensor ``[T, S]``
    (Chapter 1; Chapter 5 uses it in every decoder).

    ``T = size`` queries, ``S = key_length`` keys (``size`` when None). Query ``i`` may attend
    keys ``0..i + offset`` only, which is what lets a decoder be trained on a whole sequence at
    once; ``offset`` is the number of keys before the first query (cached tokens, a memory).
    The square mask is the boolean form of
    ``torch.nn.Transformer.generate_square_subsequent_mask`` (``-inf`` where this is True).
    """
    key_length = size if key_length is None else key_length
    require_causal_sizes(size, key_length, offset)
    queries = torch.arange(size, device=device).unsqueeze(1)
    keys = torch.arange(key_length, device=device).unsqueeze(0)
    return keys > queries + offset
