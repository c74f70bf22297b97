"""XLNet's two-stream relative attention and its layer (Chapter 7, Transformer-XL and XLNet).

A permutation language model predicts x_{z_t} from x_{z_<t} in a random order z, with the
tokens kept in place: only the attention mask changes. Predicting from h_{z_<t} alone would give
the same distribution to every position that comes next, so XLNet runs two streams per layer:

    content stream  h_i <- Attention(Q = h_i, KV = [SG(memory) o h_j : z_j <= z_i])  (sees x_i)
    query stream    g_i <- Attention(Q = g_i, KV = [SG(memory) o h_j : z_j <  z_i])  (not x_i)

both through the same weights and the relative score of Transformer-XL
(:mod:`coursekit.models.transformer_xl.relative_attention`), plus a relative segment term: with s_+
for two tokens of the same segment and s_- otherwise, (q_i + b)^T s_ij is added to the score.
Masked scores get -1e30 as in XLNet's code, so a query with nothing to see averages every key. Each
stream then goes through h <- LayerNorm(h + Dropout(FFN(h))). The query stream starts from one
learned vector w (g^0_i = w) and only exists at the positions to predict (``target_mapping``).

Weights are stored as ``[d_model, heads, d_head]``, as in XLNet, and named after the book;
:data:`XLNET_HF_NAMES` gives Hugging Face's names.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import torch
from torch import Tensor, nn

from coursekit.models.transformer.feed_forward import PositionwiseFeedForward
from coursekit.models.transformer.layer_norm import LayerNorm
from coursekit.models.transformer.layers import sublayer_connection
from coursekit.models.transformer_xl.memory import extended_context
from coursekit.models.transformer_xl.relative_attention import relative_scores

MASKED_SCORE = 1e30
"""What a masked score loses, as in XLNet's code: exp(score - 1e30) is 0."""

XLNET_HF_NAMES = {
    "layers": "layer",
    "attention": "rel_attn",
    "query": "q",
    "key": "k",
    "value": "v",
    "output": "o",
    "position_key": "r",
    "content_bias": "r_w_bias",
    "position_bias": "r_r_bias",
    "segment_bias": "r_s_bias",
    "segment_embedding": "seg_embed",
    "norm": "layer_norm",
    "feed_forward": "ff",
    "linear1": "layer_1",
    "linear2": "layer_2",
    "feed_forward_norm": "ff.layer_norm",
}
"""Our part names in an XLNet layer and Hugging Face's (``rel_attn``, ``ff``, ``q``, ...)."""


class LayerInputs(NamedTuple):
    """What every XLNet layer reads besides its two streams (Chapter 7)."""

    position_encoding: Tensor
    """``[R, d_model]``, R for the distances K-1 .. -(Q-1)."""
    different: Tensor | None
    """``[B, Q, K]``, True where query and key lie in different segments (None: one segment)."""
    content_blocked: Tensor | None
    """``[B, 1, Q, K]``, 1 where the content stream may not attend (None: nothing masked)."""
    query_blocked: Tensor | None
    """``[B, 1, Q, K]``, 1 where the query stream may not attend (None: nothing masked)."""
    target_mapping: Tensor | None
    """``[B, P, Q]``, the position of each of the P predictions (None: no query stream)."""


class Context(NamedTuple):
    """What both streams attend to: the keys and values of ``[SG(memory) o content]``, ``[B,
    heads, K, d_head]`` each, and the projected position encodings ``[heads, R, d_head]``."""

    keys: Tensor
    values: Tensor
    position_keys: Tensor


def small_parameter(*shape: int) -> nn.Parameter:
    """A parameter drawn from N(0, 0.02^2), XLNet's initialisation (Chapter 7)."""
    return nn.Parameter(torch.randn(*shape) * 0.02)


class TwoStreamRelativeAttention(nn.Module):
    """``h <- LayerNorm(h + Dropout(Concat_heads(softmax(A / sqrt(d) - 1e30 Mask) v) W_o))`` for
    the content stream h and, with the same weights, the query stream g (Chapter 7).
    """

    def __init__(
        self, d_model: int, n_head: int, dropout: float = 0.0, layer_norm_eps: float = 1e-12
    ) -> None:
        super().__init__()
        d_head = d_model // n_head
        self.scale = 1 / math.sqrt(d_head)
        self.query, self.key, self.value, self.output, self.position_key = (
            small_parameter(d_model, n_head, d_head) for _ in range(5)
        )
        self.content_bias, self.position_bias, self.segment_bias = (
            small_parameter(n_head, d_head) for _ in range(3)
        )
        self.segment_embedding = small_parameter(2, n_head, d_head)
        self.norm = LayerNorm(d_model, eps=layer_norm_eps)
        self.dropout = nn.Dropout(dropout)

    @staticmethod
    def project(x: Tensor, weight: Tensor) -> Tensor:
        """``x W`` per head: ``[B, T, d_model]`` by ``[d_model, heads, d_head]`` -> ``[B, heads,
        T, d_head]``.
        """
        return torch.einsum("bth,hnd->bntd", x, weight)

    def segment_scores(self, queries: Tensor, different: Tensor) -> Tensor:
        """``(q_i + b)^T s_ij`` with s_ij = s_+ (``segment_embedding[0]``) for keys of the query's
        segment and s_- (``[1]``) for the others (``different [B, Q, K]`` True): ``[B, heads, Q,
        K]``.
        """
        segments = self.segment_embedding.permute(1, 2, 0)  # [heads, d_head, 2]: s_+ and s_-
        by_segment = (queries + self.segment_bias.unsqueeze(-2)) @ segments
        return torch.where(different.unsqueeze(1), by_segment[..., 1:], by_segment[..., :1])

    def attend(
        self,
        queries: Tensor,
        keys: Tensor,
        values: Tensor,
        position_keys: Tensor,
        different: Tensor | None,
        blocked: Tensor | None,
    ) -> Tensor:
        """``softmax((A + (q + b)^T s) / sqrt(d_head) - 1e30 Mask) v`` per head; ``blocked [B, 1,
        Q, K]`` is 1 where attention is not allowed.
        """
        scores = relative_scores(
            queries, keys, position_keys, self.content_bias, self.position_bias
        )
        if different is not None:
            scores = scores + self.segment_scores(queries, different)
        scores = scores * self.scale
        if blocked is not None:
            scores = scores - MASKED_SCORE * blocked
        return self.dropout(torch.softmax(scores, dim=-1)) @ values

    def post_attention(self, stream: Tensor, heads: Tensor) -> Tensor:
        """``LayerNorm(stream + Dropout(Concat_heads(heads) W_o))``."""
        attended = torch.einsum("bntd,hnd->bth", heads, self.output)
        return self.norm(stream + self.dropout(attended))

    def forward(
        self,
        content: Tensor,
        query_stream: Tensor | None,
        inputs: LayerInputs,
        memory: Tensor | None = None,
    ) -> tuple[Tensor, Tensor | None]:
        """The content stream ``[B, Q, d_model]`` and the query stream ``[B, P, d_model]`` (or
        None) after attention; both read the keys and values of ``[SG(memory) o content]``.
        """
        read = extended_context(memory, content)  # [B, K, d_model]: SG(memory) o h, K = M + Q
        context = Context(
            keys=self.project(read, self.key),  # [B, heads, K, d_head]
            values=self.project(read, self.value),  # [B, heads, K, d_head]
            # the encodings of the distances K-1 .. -(Q-1), projected: [heads, R, d_head]
            position_keys=torch.einsum("rh,hnd->nrd", inputs.position_encoding, self.position_key),
        )
        content = self.content_attention(content, context, inputs)
        if query_stream is None:
            return content, None
        return content, self.query_attention(query_stream, context, inputs)

    def content_attention(self, content: Tensor, context: Context, inputs: LayerInputs) -> Tensor:
        """``h_i <- LayerNorm(h_i + Dropout(Attention(Q = h_i, KV = [SG(memory) o h_j : z_j <=
        z_i]) W_o))``: the content stream sees its own token."""
        queries = self.project(content, self.query)  # [B, heads, Q, d_head]
        heads = self.attend(
            queries, *context, inputs.different, inputs.content_blocked
        )  # [B, heads, Q, d_head]
        return self.post_attention(content, heads)  # [B, Q, d_model]

    def query_attention(self, stream: Tensor, context: Context, inputs: LayerInputs) -> Tensor:
        """``g_i <- LayerNorm(g_i + Dropout(Attention(Q = g_i, KV = [SG(memory) o h_j : z_j <
        z_i]) W_o))``: the query stream knows its position, not its token; ``target_mapping
        [B, P, Q]`` places each of its P predictions at its position and takes it back."""
        placed = torch.einsum(
            "bnpd,bpt->bntd", self.project(stream, self.query), inputs.target_mapping
        )  # [B, heads, P, d_head] -> [B, heads, Q, d_head]
        heads = self.attend(placed, *context, inputs.different, inputs.query_blocked)
        heads = torch.einsum(
            "bntd,bpt->bnpd", heads, inputs.target_mapping
        )  # [B, heads, Q, d_head] -> [B, heads, P, d_head]
        return self.post_attention(stream, heads)  # [B, P, d_model]


class XLNetLayer(nn.Module):
    """Two-stream relative attention, then ``h <- LayerNorm(h + Dropout(FFN(h)))`` on each stream
    (``FFN(h) = GELU(h W_1 + b_1) W_2 + b_2``, or ReLU) (Chapter 7).
    """

    def __init__(
        self,
        d_model: int,
        n_head: int,
        d_inner: int,
        dropout: float = 0.0,
        ff_activation: str = "gelu",
        layer_norm_eps: float = 1e-12,
    ) -> None:
        super().__init__()
        self.attention = TwoStreamRelativeAttention(d_model, n_head, dropout, layer_norm_eps)
        self.feed_forward = PositionwiseFeedForward(d_model, d_inner, dropout, ff_activation)
        self.feed_forward_norm = LayerNorm(d_model, eps=layer_norm_eps)
        self.dropout = nn.Dropout(dropout)

    def feed_forward_sublayer(self, stream: Tensor) -> Tensor:
        """``LayerNorm(h + Dropout(FFN(h)))``."""
        return sublayer_connection(
            stream, self.feed_forward, self.feed_forward_norm, self.dropout, False
        )

    def forward(
        self,
        content: Tensor,
        query_stream: Tensor | None,
        inputs: LayerInputs,
        memory: Tensor | None = None,
    ) -> tuple[Tensor, Tensor | None]:
        """Both streams through attention and the feed-forward sublayer (see
        :meth:`TwoStreamRelativeAttention.forward`).
        """
        content, query_stream = self.attention(content, query_stream, inputs, memory)
        if query_stream is not None:
            query_stream = self.feed_forward_sublayer(query_stream)
        return self.feed_forward_sublayer(content), query_stream
