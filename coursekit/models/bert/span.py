"""Decoding an answer span from BERT's start and end scores (Chapter 6, BERT).

For span question answering, BERT scores every token t of the passage twice: as the start of
the answer, ``S . T_t``, and as its end, ``E . T_t``. The answer is the span i..j of highest

    score(i, j) = S . T_i + E . T_j,   with  i <= j < i + max_answer_length,

over the positions allowed to hold an answer (the passage, not the question or the special
tokens). All spans are scored at once as the sum of a column and a row, ``[B, T, T]``, and the
constraints become a mask on that matrix.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor


def span_scores(start_logits: Tensor, end_logits: Tensor) -> Tensor:
    """``score[b, i, j] = start_logits[b, i] + end_logits[b, j]``, ``[B, T, T]`` (Chapter 6)."""
    return start_logits.unsqueeze(-1) + end_logits.unsqueeze(-2)


def valid_spans(
    length: int, max_answer_length: int, allowed: Tensor | None, device: torch.device
) -> Tensor:
    """True where span i..j may be the answer: ``i <= j < i + max_answer_length`` and both ends
    in ``allowed [B, T]`` (all positions when None) (Chapter 6, BERT).
    """
    starts = torch.arange(length, device=device).unsqueeze(-1)
    ends = torch.arange(length, device=device).unsqueeze(0)
    valid = (ends >= starts) & (ends < starts + max_answer_length)
    if allowed is None:
        return valid.unsqueeze(0)
    return valid & allowed.unsqueeze(-1) & allowed.unsqueeze(-2)


def best_span(
    start_logits: Tensor,
    end_logits: Tensor,
    max_answer_length: int = 30,
    allowed: Tensor | None = None,
) -> tuple[Tensor, Tensor, Tensor]:
    """The span of highest ``start_logits[i] + end_logits[j]`` with ``i <= j <
    i + max_answer_length`` (Chapter 6, BERT).

    ``start_logits`` and ``end_logits`` are ``[B, T]``; ``allowed`` ``[B, T]`` is True
    where an answer may start or end (e.g. the passage tokens). Returns ``(start, end,
    score)``, each ``[B]``; ties go to the earliest start, then the earliest end. A row
    with no allowed span gets start = end = 0 and score -inf.
    """
    require_span_arguments(start_logits, end_logits, max_answer_length, allowed)
    length = start_logits.shape[-1]
    scores = span_scores(start_logits, end_logits)
    valid = valid_spans(length, max_answer_length, allowed, start_logits.device)
    flat = scores.masked_fill(~valid, -math.inf).flatten(start_dim=1)
    score, index = flat.max(dim=-1)
    index = torch.where(torch.isneginf(score), torch.zeros_like(index), index)
    return index // length, index % length, score


def require_span_arguments(
    start_logits: Tensor, end_logits: Tensor, max_answer_length: int, allowed: Tensor | None
) -> None:
    """Start and end scores are float ``[B, T]`` of one shape; ``allowed`` is a BoolTensor of
    that shape; ``max_answer_length`` is a positive integer.
    """
    if start_logits.dim() != 2 or start_logits.shape != end_logits.shape:
        raise ValueError(
            f"start_logits and end_logits must both be [B, T], got shapes "
            f"{tuple(start_logits.shape)} and {tuple(end_logits.shape)}"
        )
    if not start_logits.is_floating_point() or not end_logits.is_floating_point():
        raise TypeError("start_logits and end_logits must be floating-point scores")
    if isinstance(max_answer_length, bool) or not isinstance(max_answer_length, int):
        raise TypeError(f"max_answer_length must be an integer, got {max_answer_length!r}")
    if max_answer_length < 1:
        raise ValueError(f"max_answer_length must be >= 1, got {max_answer_length}")
    if allowed is not None and (allowed.dtype != torch.bool or allowed.shape != start_logits.shape):
        raise ValueError(
            f"allowed must be a BoolTensor of the scores' shape {tuple(start_logits.shape)}, got "
            f"{allowed.dtype} of shape {tuple(allowed.shape)}"
        )
