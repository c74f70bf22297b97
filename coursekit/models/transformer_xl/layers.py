"""The layer of Transformer-XL: relative multi-head attention over the memory and the segment,
then the position-wise feed-forward network (Chapter 7, Transformer-XL and XLNet).

For the states h of the Q new positions and the memory m of M positions before them, one layer
computes, with the attention of :mod:`coursekit.models.transformer_xl.relative_attention`,

    h <- LayerNorm(h + Dropout(Attention(h))),   h <- LayerNorm(h + Dropout(FFN(h))),

or with ``pre_lnorm`` the pre-norm forms h + Dropout(Sublayer(LayerNorm(.))). Query i sees the
keys j <= i + M; with ``same_length`` also only the ``mem_len`` most recent of them, so that
every query sees as many keys as every other.

Parameter names are readable (``query_key_value`` stacks W_q, W_{k,E} and W_v; ``position_key``
is W_{k,R}; ``content_bias`` is u and ``position_bias`` v); :data:`TRANSFO_XL_HF_NAMES` gives
Hugging Face's name of each part.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from coursekit.models.transformer.feed_forward import PositionwiseFeedForward
from coursekit.models.transformer.layer_norm import LayerNorm
from coursekit.models.transformer.layers import sublayer_connection
from coursekit.models.transformer_xl.relative_attention import RelativeMultiHeadAttention

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
