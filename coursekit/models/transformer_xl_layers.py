"""The layer of Transformer-XL: relative multi-head attention over the memory and the segment,
then the position-wise feed-forward network (Chapter 7, Transformer-XL and XLNet).

For the states h of the Q new positions and the memory m of M positions before them, one layer
computes, per head and with the relative score A of :mod:`coursekit.models.relative_attention`,

    h~ = [SG(m) o h],   q = h W_q,   k = h~ W_{k,E},   v = h~ W_v,   r = R W_{k,R},
    Attention(h) = Concat_heads(softmax((A + Mask) / sqrt(d_head)) v) W_o,
    h <- LayerNorm(h + Dropout(Attention(h))),   h <- LayerNorm(h + Dropout(FFN(h))),

or with ``pre_lnorm`` the pre-norm forms h + Dropout(Sublayer(LayerNorm(.))). Query i sees the
keys j <= i + M; with ``same_length`` also only the ``mem_len`` most recent of them, so that
every query sees as many keys as every other.

Parameter names are readable (``query_key_value`` stacks W_q, W_{k,E} and W_v; ``position_key``
is W_{k,R}; ``content_bias`` is u and ``position_bias`` v); :data:`TRANSFO_XL_HF_NAMES` gives
Hugging Face's name of each part.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from coursekit.models.feed_forward import PositionwiseFeedForward
from coursekit.models.layer_norm import LayerNorm
from coursekit.models.relative_attention import (
    RelativeScoreTerms,
    relative_score_terms,
    relative_scores,
)
from coursekit.models.segment_memory import extended_context
from coursekit.models.transformer_layers import sublayer_connection

TRANSFO_XL_HF_NAMES = {
    "attention": "dec_attn",
    "query_key_value": "qkv_net",
    "position_key": "r_net",
    "output": "o_net",
    "norm": "layer_norm",
    "content_bias": "r_w_bias",
    "position_bias": "r_r_bias",
    "feed_forward": "pos_ff.CoreNet",
    "linear1": "0",
    "linear2": "3",
    "feed_forward_norm": "pos_ff.layer_norm",
}
"""Our part names in a Transformer-XL layer and Hugging Face's (``dec_attn``, ``pos_ff``...)."""


def transformer_xl_mask(
    query_length: int,
    memory_length: int,
    same_length: bool = False,
    mem_len: int = 0,
    device: torch.device | None = None,
) -> Tensor:
    """``blocked [Q, M + Q]``, True where query i may NOT attend key j: the future, distance
    ``i + M - j < 0``, and with ``same_length`` the keys ``mem_len`` or more positions back
    (Chapter 7).
    """
    queries = torch.arange(query_length, device=device).unsqueeze(1) + memory_length
    distances = queries - torch.arange(memory_length + query_length, device=device)
    future = distances < 0
    return future | (distances >= mem_len) if same_length else future


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
        ``blocked [Q, M + Q]`` is True (:func:`transformer_xl_mask`); ``position_encoding
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


class TransfoXLLayer(nn.Module):
    """Relative attention over ``[SG(memory) o h]``, then ``h <- LayerNorm(h + Dropout(FFN(h)))``
    with ``FFN(h) = max(0, h W_1 + b_1) W_2 + b_2`` (Chapter 7): pre-norm when the attention is,
    with the attention's epsilon.
    """

    def __init__(
        self, attention: RelativeMultiHeadAttention, d_inner: int, dropout: float = 0.0
    ) -> None:
        super().__init__()
        d_model = attention.output.out_features
        self.pre_lnorm = attention.pre_lnorm
        self.attention = attention
        self.feed_forward = PositionwiseFeedForward(d_model, d_inner, dropout, "relu")
        self.feed_forward_norm = LayerNorm(d_model, eps=attention.norm.eps)
        self.dropout = nn.Dropout(dropout)

    def forward(
        self,
        hidden: Tensor,
        position_encoding: Tensor,
        blocked: Tensor,
        memory: Tensor | None = None,
    ) -> Tensor:
        """``[B, Q, d_model] -> [B, Q, d_model]``: attention, then the feed-forward sublayer."""
        hidden = self.attention(hidden, position_encoding, blocked, memory)
        return sublayer_connection(
            hidden, self.feed_forward, self.feed_forward_norm, self.dropout, self.pre_lnorm
        )
