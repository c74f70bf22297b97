"""Relative attention, Transformer-XL's and XLNet's: the score, and Transformer-XL's multi-head
attention built on it (Chapter 7, Transformer-XL and XLNet).

With absolute positions U, the score of query i and key j expands into four terms, (E_i + U_i)^T
W_q^T W_k (E_j + U_j). Transformer-XL rewrites them with the relative encoding R_{i-j}
(:mod:`coursekit.models.transformer_xl.relative_position`), two projections of the keys, W_{k,E}
for contents and W_{k,R} for distances, and two learned vectors u and v that replace the query's
absolute position:

    A_ij = E_i^T W_q^T W_{k,E} E_j      (a) content-content: what i looks for in j's content
         + E_i^T W_q^T W_{k,R} R_{i-j}  (b) content-position: how far away i looks
         + u^T W_{k,E} E_j              (c) global content bias: keys worth seeing for everyone
         + v^T W_{k,R} R_{i-j}          (d) global position bias: distances preferred by all.

With q_i = W_q E_i, k_j = W_{k,E} E_j and r_{i-j} = W_{k,R} R_{i-j} per head, (a) + (c) is
(q_i + u)^T k_j and (b) + (d) is (q_i + v)^T r_{i-j}: two products, the second computed against
the distances and moved to the keys by the relative shift.

:class:`RelativeMultiHeadAttention` uses them for the states h of the Q new positions and the
memory m of the M positions before them:

    h~ = [SG(m) o h],   q = h W_q,   k = h~ W_{k,E},   v = h~ W_v,   r = R W_{k,R},
    Attention(h) = Concat_heads(softmax((A + Mask) / sqrt(d_head)) v) W_o.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import torch
from torch import Tensor, nn

from coursekit.models.transformer.layer_norm import LayerNorm
from coursekit.models.transformer_xl.memory import extended_context
from coursekit.models.transformer_xl.relative_position import relative_shift


class RelativeScoreTerms(NamedTuple):
    """The four terms of the relative score of every head, each ``[B, heads, Q, K]`` (Chapter 7):
    their sum is the score A_ij before scaling and masking.
    """

    content_content: Tensor
    """(a) ``q_i^T k_j``."""
    content_position: Tensor
    """(b) ``q_i^T r_{i-j}``."""
    content_bias: Tensor
    """(c) ``u^T k_j``, the same in every row."""
    position_bias: Tensor
    """(d) ``v^T r_{i-j}``, the same on every diagonal."""


def relative_scores(
    queries: Tensor,
    keys: Tensor,
    position_keys: Tensor,
    content_bias: Tensor,
    position_bias: Tensor,
) -> Tensor:
    """``A_ij = (q_i + u)^T k_j + (q_i + v)^T r_{i-j}`` = (a) + (c) + (b) + (d) (Chapter 7).

    ``queries [B, heads, Q, d]``, ``keys [B, heads, K, d]``, ``position_keys [heads, R, d]`` (r for
    the distances of
    :func:`~coursekit.models.transformer_xl.relative_position.relative_distances`),
    ``content_bias`` u and ``position_bias`` v ``[heads, d]``; returns ``[B, heads, Q, K]``.
    """
    content = (queries + content_bias.unsqueeze(-2)) @ keys.transpose(-2, -1)
    by_distance = (queries + position_bias.unsqueeze(-2)) @ position_keys.transpose(-2, -1)
    return content + relative_shift(by_distance, keys.shape[-2])


def relative_score_terms(
    queries: Tensor,
    keys: Tensor,
    position_keys: Tensor,
    content_bias: Tensor,
    position_bias: Tensor,
) -> RelativeScoreTerms:
    """The terms (a), (b), (c) and (d) of :func:`relative_scores` one by one, for inspection
    (Chapter 7).
    """
    shape = (*queries.shape[:-1], keys.shape[-2])
    return RelativeScoreTerms(
        content_content=queries @ keys.transpose(-2, -1),
        content_position=relative_shift(queries @ position_keys.transpose(-2, -1), shape[-1]),
        content_bias=(content_bias.unsqueeze(-2) @ keys.transpose(-2, -1)).expand(shape),
        position_bias=relative_shift(
            (position_bias.unsqueeze(-2) @ position_keys.transpose(-2, -1)).expand(
                *shape[:-1], position_keys.shape[-2]
            ),
            shape[-1],
        ),
    )


def relative_biases(n_head: int, d_head: int) -> tuple[nn.Parameter, nn.Parameter]:
    """The global content bias u and position bias v, ``[heads, d_head]`` each, drawn from
    N(0, 0.02^2) (Chapter 7).
    """
    return (
        nn.Parameter(torch.randn(n_head, d_head) * 0.02),
        nn.Parameter(torch.randn(n_head, d_head) * 0.02),
    )


class RelativeMultiHeadAttention(nn.Module):
    """``h <- LayerNorm(h + Dropout(Concat_heads(softmax((A + Mask) / sqrt(d)) v) W_o))``, the
    relative attention of Transformer-XL over ``[SG(memory) o h]`` (Chapter 7).

    ``biases`` are the (u, v) shared by all layers (Hugging Face's ``untie_r=False``); by default
    each layer has its own. ``dropatt`` acts on the attention weights, ``dropout`` on the output.
    """

    def __init__(
        self,
        d_model: int,
        n_head: int,
        d_head: int,
        dropout: float = 0.0,
        dropatt: float = 0.0,
        pre_lnorm: bool = False,
        layer_norm_epsilon: float = 1e-5,
        biases: tuple[nn.Parameter, nn.Parameter] | None = None,
    ) -> None:
        super().__init__()
        self.n_head, self.d_head, self.pre_lnorm = n_head, d_head, pre_lnorm
        self.scale = 1 / math.sqrt(d_head)
        self.query_key_value = nn.Linear(d_model, 3 * n_head * d_head, bias=False)
        self.position_key = nn.Linear(d_model, n_head * d_head, bias=False)
        self.output = nn.Linear(n_head * d_head, d_model, bias=False)
        self.norm = LayerNorm(d_model, eps=layer_norm_epsilon)
        self.dropout = nn.Dropout(dropout)
        self.attention_dropout = nn.Dropout(dropatt)
        self.content_bias, self.position_bias = biases or relative_biases(n_head, d_head)

    def split_heads(self, x: Tensor) -> Tensor:
        """``[B, T, heads * d_head] -> [B, heads, T, d_head]``."""
        return x.view(*x.shape[:-1], self.n_head, self.d_head).transpose(-3, -2)

    def project(
        self, context: Tensor, query_length: int, position_encoding: Tensor
    ) -> tuple[Tensor, Tensor, Tensor, Tensor]:
        """Per head: q = h W_q for the last ``query_length`` positions of the context, k = h~
        W_{k,E} and v = h~ W_v for all of them, ``[B, heads, T, d_head]``; and r = R W_{k,R}
        ``[heads, R, d_head]``.
        """
        queries, keys, values = self.query_key_value(context).chunk(3, dim=-1)
        position_keys = self.split_heads(self.position_key(position_encoding))
        return (
            self.split_heads(queries[:, -query_length:]),
            self.split_heads(keys),
            self.split_heads(values),
            position_keys,
        )

    def attend(
        self, context: Tensor, query_length: int, position_encoding: Tensor, blocked: Tensor
    ) -> Tensor:
        """``Concat_heads(softmax((A + Mask) / sqrt(d_head)) v) W_o`` for the last
        ``query_length`` positions of ``context [B, M + Q, d_model]``; ``blocked [Q, M + Q]``
        is True where attention is not allowed.
        """
        queries, keys, values, position_keys = self.project(
            context, query_length, position_encoding
        )
        scores = relative_scores(
            queries, keys, position_keys, self.content_bias, self.position_bias
        )
        weights = torch.softmax((scores * self.scale).masked_fill(blocked, -math.inf), dim=-1)
        heads = self.attention_dropout(weights) @ values
        return self.output(heads.transpose(1, 2).flatten(2))

    def forward(
        self,
        hidden: Tensor,
        position_encoding: Tensor,
        blocked: Tensor,
        memory: Tensor | None = None,
    ) -> Tensor:
        """``[B, Q, d_model] -> [B, Q, d_model]``, attending ``[SG(memory) o hidden]`` except where
        ``blocked [Q, M + Q]`` is True (:func:`coursekit.models.transformer_xl.layers.transformer_xl_mask`); ``position_encoding
        [M + Q, d_model]`` holds R for the distances M + Q - 1 .. 0.
        """
        context = extended_context(memory, hidden)
        if self.pre_lnorm:
            attended = self.attend(self.norm(context), hidden.shape[1], position_encoding, blocked)
            return hidden + self.dropout(attended)
        attended = self.attend(context, hidden.shape[1], position_encoding, blocked)
        return self.norm(hidden + self.dropout(attended))

    def score_terms(
        self, hidden: Tensor, position_encoding: Tensor, memory: Tensor | None = None
    ) -> RelativeScoreTerms:
        """The terms (a) q_i^T k_j, (b) q_i^T r_{i-j}, (c) u^T k_j and (d) v^T r_{i-j} of the
        scores this layer computes for ``hidden`` after ``memory``, unscaled and unmasked, each
        ``[B, heads, Q, M + Q]`` (future keys hold no meaningful number).
        """
        context = extended_context(memory, hidden)
        if self.pre_lnorm:
            context = self.norm(context)
        queries, keys, _, position_keys = self.project(context, hidden.shape[1], position_encoding)
        return relative_score_terms(
            queries, keys, position_keys, self.content_bias, self.position_bias
        )
