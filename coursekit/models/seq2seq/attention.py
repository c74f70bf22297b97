"""Soft attention and its score functions (Chapter 4, Seq2seq and attention).

A query q looks up a memory of keys k_1..k_S and values v_1..v_S:

    e_s = score(q, k_s),   alpha = softmax(e) over the unmasked keys,   c = sum_s alpha_s v_s.

Every module here has one interface, ``module(query, keys, values, key_padding_mask=None) ->
(context, weights)``: ``query`` is ``[B, Dq]`` (one decoder step) or ``[B, T, Dq]`` (all
steps), ``keys`` ``[B, S, Dk]``, ``values`` ``[B, S, Dv]``, ``key_padding_mask`` ``[B, S]``
bool, True on padding (torch's convention, as :func:`coursekit.text.padding_mask`); ``context``
is ``[B, Dv]`` / ``[B, T, Dv]`` and ``weights`` ``[B, S]`` / ``[B, T, S]``, summing to 1 over the
unmasked keys and exactly 0 on the masked ones. The modules differ only in ``score``:

    dot          q^T k                          (Luong et al., 2015)
    general      q^T W k                        (Luong et al., 2015)
    scaled dot   q^T k / sqrt(d_k)              (Vaswani et al., 2017)
    additive     v^T tanh(W_q q + W_k k)        (Bahdanau et al., 2015)
    concat       v^T tanh(W [q; k])             (Luong et al., 2015)
    cosine       beta * q^T k / (|q| |k|)       (content-based, Graves et al., 2014)
    location     (W_a q)_s                      (Luong et al., 2015: the query alone)

Bahdanau's and Luong's decoders use the encoder states as both keys and values.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from coursekit.models.seq2seq.requirements import require_attention_inputs, require_feature_sizes


def masked_softmax(scores: Tensor, mask: Tensor | None) -> Tensor:
    """alpha = softmax(e) over the last dimension, with exactly 0 where ``mask`` is True.

    ``mask`` broadcasts against ``scores`` (``[B, 1, S]`` for a padding mask); a row must keep
    at least one unmasked score.
    """
    if mask is not None:
        scores = scores.masked_fill(mask, -math.inf)
    return torch.softmax(scores, dim=-1)


class Attention(nn.Module):
    """Soft attention, c = sum_s softmax(score(q, k))_s v_s (Chapter 4); a subclass defines
    :meth:`score`. ``query_size`` and ``key_size`` are the sizes the score's weights were built
    for (None: any); ``equal_sizes`` says the score needs Dq == Dk (a dot product).
    """

    query_size: int | None = None
    key_size: int | None = None
    equal_sizes: bool = False

    def score(self, queries: Tensor, keys: Tensor) -> Tensor:
        """e ``[B, T, S]`` from ``queries [B, T, Dq]`` and ``keys [B, S, Dk]``."""
        raise NotImplementedError

    def attend(
        self, queries: Tensor, keys: Tensor, values: Tensor, key_padding_mask: Tensor | None
    ) -> tuple[Tensor, Tensor]:
        """alpha = softmax(score(q, k)) over unmasked keys; c = alpha V. All steps at once."""
        mask = None if key_padding_mask is None else key_padding_mask.unsqueeze(1)
        weights = masked_softmax(self.score(queries, keys), mask)
        return weights @ values, weights

    def checked_queries(
        self, query: Tensor, keys: Tensor, values: Tensor, key_padding_mask: Tensor | None
    ) -> Tensor:
        """The checked query as all steps ``[B, T, Dq]`` (T = 1 for a one-step query)."""
        require_attention_inputs(query, keys, values, key_padding_mask)
        require_feature_sizes(self, query.shape[-1], keys.shape[-1], keys.shape[1])
        return query.unsqueeze(1) if query.dim() == 2 else query

    def forward(
        self,
        query: Tensor,
        keys: Tensor,
        values: Tensor,
        key_padding_mask: Tensor | None = None,
    ) -> tuple[Tensor, Tensor]:
        """``(context, weights)`` for one step ``[B, Dq]`` or all steps ``[B, T, Dq]``."""
        queries = self.checked_queries(query, keys, values, key_padding_mask)
        context, weights = self.attend(queries, keys, values, key_padding_mask)
        return as_query_layout(context, weights, query)


def as_query_layout(context: Tensor, weights: Tensor, query: Tensor) -> tuple[Tensor, Tensor]:
    """All-steps results ``[B, T, ...]`` back as one step ``[B, ...]`` for a query ``[B, Dq]``."""
    return (context.squeeze(1), weights.squeeze(1)) if query.dim() == 2 else (context, weights)


class DotAttention(Attention):
    """Luong's dot score, e_{t,s} = s_t^T h_s (Chapter 4); needs Dq == Dk. With every key
    unmasked it is ``F.scaled_dot_product_attention`` with ``scale=1``.
    """

    equal_sizes = True

    def score(self, queries: Tensor, keys: Tensor) -> Tensor:
        """e = Q K^T."""
        return queries @ keys.transpose(-2, -1)


class ScaledDotAttention(Attention):
    """The Transformer's score, e_{t,s} = q_t^T k_s / sqrt(d_k) (Chapter 4; Chapter 5 builds
    multi-head attention on it): softmax(Q K^T / sqrt(d_k)) V, as
    ``F.scaled_dot_product_attention``. Dividing by sqrt(d_k) keeps the scores' variance near 1
    whatever the size, so the softmax does not saturate.
    """

    equal_sizes = True

    def score(self, queries: Tensor, keys: Tensor) -> Tensor:
        """e = Q K^T / sqrt(d_k)."""
        return queries @ keys.transpose(-2, -1) / math.sqrt(keys.shape[-1])


class GeneralAttention(Attention):
    """Luong's general score, e_{t,s} = s_t^T W_a h_s (Chapter 4): a bilinear form, so the
    query and the keys may have different sizes (``W_a`` is ``[Dq, Dk]``).
    """

    def __init__(self, query_size: int, key_size: int) -> None:
        super().__init__()
        self.query_size, self.key_size = query_size, key_size
        self.key_projection = nn.Linear(key_size, query_size, bias=False)  # W_a

    def score(self, queries: Tensor, keys: Tensor) -> Tensor:
        """e = Q (W_a K^T)."""
        return queries @ self.key_projection(keys).transpose(-2, -1)


class AdditiveAttention(Attention):
    """Bahdanau's additive score, e_{t,s} = v^T tanh(W_q q_t + W_k k_s) (Chapter 4): "a
    feed-forward network with one hidden layer" of ``hidden_size`` units. It equals the
    concatenated form v^T tanh(W [q; k]) with W = [W_q W_k] (:class:`ConcatAttention`), but
    projects each query and each key once instead of every pair.
    """

    def __init__(self, query_size: int, key_size: int, hidden_size: int) -> None:
        super().__init__()
        self.query_size, self.key_size = query_size, key_size
        self.query_projection = nn.Linear(query_size, hidden_size, bias=False)  # W_q
        self.key_projection = nn.Linear(key_size, hidden_size, bias=False)  # W_k
        self.energy = nn.Linear(hidden_size, 1, bias=False)  # v

    def score(self, queries: Tensor, keys: Tensor) -> Tensor:
        """e_{t,s} = v^T tanh(W_q q_t + W_k k_s), broadcast over t and s."""
        hidden = torch.tanh(
            self.query_projection(queries).unsqueeze(2) + self.key_projection(keys).unsqueeze(1)
        )
        return self.energy(hidden).squeeze(-1)


class ConcatAttention(Attention):
    """Luong's concat score, e_{t,s} = v_a^T tanh(W_a [s_t; h_s]) (Chapter 4), computed as
    written: every (query, key) pair is concatenated, then projected.
    """

    def __init__(self, query_size: int, key_size: int, hidden_size: int) -> None:
        super().__init__()
        self.query_size, self.key_size = query_size, key_size
        self.projection = nn.Linear(query_size + key_size, hidden_size, bias=False)  # W_a
        self.energy = nn.Linear(hidden_size, 1, bias=False)  # v_a

    def score(self, queries: Tensor, keys: Tensor) -> Tensor:
        """e_{t,s} = v_a^T tanh(W_a [q_t; k_s]) for every pair (t, s)."""
        steps, positions = queries.shape[1], keys.shape[1]
        pairs = torch.cat(
            [
                queries.unsqueeze(2).expand(-1, -1, positions, -1),
                keys.unsqueeze(1).expand(-1, steps, -1, -1),
            ],
            dim=-1,
        )
        return self.energy(torch.tanh(self.projection(pairs))).squeeze(-1)


class CosineAttention(Attention):
    """Content-based addressing of the Neural Turing Machine (Graves et al., 2014; Chapter 4):
    e_{t,s} = beta * cos(q_t, k_s) = beta * q_t^T k_s / (|q_t| |k_s|). The key strength
    ``beta`` > 0 sharpens the weights (the NTM's controller emits it each step; here it is
    fixed). Needs Dq == Dk; a zero vector has cosine 0 with everything.
    """

    equal_sizes = True

    def __init__(self, strength: float = 1.0) -> None:
        super().__init__()
        if not (math.isfinite(strength) and strength > 0):
            raise ValueError(f"strength (beta) must be a finite number > 0, got {strength!r}")
        self.strength = strength

    def score(self, queries: Tensor, keys: Tensor) -> Tensor:
        """e = beta * (Q / |Q|) (K / |K|)^T, rows normalised to unit length."""
        unit_queries, unit_keys = F.normalize(queries, dim=-1), F.normalize(keys, dim=-1)
        return self.strength * unit_queries @ unit_keys.transpose(-2, -1)


class LocationAttention(Attention):
    """Luong's location-based score, alpha_t = softmax(W_a s_t) (Chapter 4): the weights come
    from the query alone, one score per source position up to ``max_source_length``; the keys
    only say how many positions there are (a source of S <= max_source_length positions uses
    the first S scores).
    """

    def __init__(self, query_size: int, max_source_length: int) -> None:
        super().__init__()
        self.query_size = query_size
        self.max_source_length = max_source_length
        self.position_scores = nn.Linear(query_size, max_source_length, bias=False)  # W_a

    def score(self, queries: Tensor, keys: Tensor) -> Tensor:
        """e_{t,s} = (W_a q_t)_s for s < S."""
        return self.position_scores(queries)[..., : keys.shape[1]]
