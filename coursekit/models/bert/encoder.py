"""BERT's encoder: L post-norm Transformer encoder layers and the pooler (Chapter 6, BERT).

Each layer is the encoder layer of Chapter 5 with the exact GELU, x * Phi(x), in the
feed-forward network and LayerNorm eps 1e-12:

    x <- LayerNorm(x + Dropout(Concat(head_1, ..., head_A) W^O)),
    x <- LayerNorm(x + Dropout(GELU(x W_1 + b_1) W_2 + b_2)),

built from the same pieces, written out as these two lines:
:func:`coursekit.models.transformer.feed_forward.position_wise_feed_forward`,
:class:`coursekit.models.transformer.layer_norm.LayerNorm` and
:func:`coursekit.models.transformer.scaled_dot_product.scaled_dot_product_attention`.

Why not Chapter 5's ``MultiHeadAttention``: that class keeps torch's layout, one stacked
``in_proj_weight`` [3H, H] for W^Q, W^K, W^V. BERT checkpoints keep three ``nn.Linear``\\ s,
``query``, ``key`` and ``value``, and :class:`BertSelfAttention` keeps them too. The attention
itself is the shared function; only the three projections are new. The parts carry the book's
names (``attention_output`` is W^O, ``feed_forward_in`` W_1, ``attention_norm`` the first
LayerNorm); :data:`coursekit.models.bert.model.BERT_HF_NAMES` maps them to Hugging Face's.

Padding reaches the attention as an additive mask, 0 for a real key and the most negative
float for a padded one (Hugging Face's choice; the original BERT added -10000): a padded key
gets weight exp(-huge) = 0, and a row with every key padded stays finite.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from coursekit.models.bert.config import BertConfig
from coursekit.models.transformer.feed_forward import position_wise_feed_forward
from coursekit.models.transformer.layer_norm import LayerNorm
from coursekit.models.transformer.scaled_dot_product import scaled_dot_product_attention

NO_INNER_DROPOUT = nn.Identity()
"""BERT has no dropout between the two layers of its feed-forward network."""


def extended_attention_mask(attention_mask: Tensor, dtype: torch.dtype) -> Tensor:
    """``[B, T]`` of 1 (real token) and 0 (padding) -> the additive mask ``[B, 1, 1, T]``:
    0 for a real key, the most negative ``dtype`` number for padding (Chapter 6, BERT).
    """
    padding = (attention_mask == 0)[:, None, None, :]
    return torch.zeros(padding.shape, dtype=dtype, device=attention_mask.device).masked_fill(
        padding, torch.finfo(dtype).min
    )


class BertSelfAttention(nn.Module):
    """``head_i = softmax(Q_i K_i^T / sqrt(d_k) + M) V_i`` with ``Q = x W^Q + b^Q`` (the
    ``query`` Linear), ``K = x W^K + b^K`` (``key``), ``V = x W^V + b^V`` (``value``), all heads
    side by side, d_k = H / A (Chapter 6, BERT).
    """

    def __init__(self, config: BertConfig) -> None:
        super().__init__()
        self.num_heads, self.head_size = config.num_attention_heads, config.head_size
        self.query = nn.Linear(config.hidden_size, config.hidden_size)
        self.key = nn.Linear(config.hidden_size, config.hidden_size)
        self.value = nn.Linear(config.hidden_size, config.hidden_size)
        self.dropout = nn.Dropout(config.attention_probs_dropout_prob)

    def split_heads(self, x: Tensor) -> Tensor:
        """``[B, T, H] -> [B, A, T, d_k]``: head i reads features i*d_k .. (i+1)*d_k - 1."""
        batch_size, length, _ = x.shape
        return x.view(batch_size, length, self.num_heads, self.head_size).transpose(1, 2)

    def forward(
        self, x: Tensor, mask: Tensor | None, need_weights: bool
    ) -> tuple[Tensor, Tensor | None]:
        """``Concat(head_1..head_A)`` ``[B, T, H]`` for ``x [B, T, H]`` and an additive ``mask``
        ``[B, 1, 1, T]``; with ``need_weights`` also the attention weights ``[B, A, T, T]``.
        """
        query, key, value = (self.split_heads(f(x)) for f in (self.query, self.key, self.value))
        dropout_p = self.dropout.p if self.training else 0.0
        if need_weights:
            heads, weights = scaled_dot_product_attention(
                query, key, value, mask, dropout_p, need_weights=True
            )
        else:  # torch's fused kernel: the same equation, without storing the weights
            heads, weights = (
                F.scaled_dot_product_attention(query, key, value, mask, dropout_p),
                None,
            )
        batch_size, _, length, _ = heads.shape
        return heads.transpose(1, 2).reshape(batch_size, length, -1), weights


class BertLayer(nn.Module):
    """One post-norm encoder layer (Chapter 6, BERT):
    x <- LayerNorm(x + Dropout(Concat(head_1, ..., head_A) W^O)),
    x <- LayerNorm(x + Dropout(GELU(x W_1 + b_1) W_2 + b_2)).
    """

    def __init__(self, config: BertConfig) -> None:
        super().__init__()
        self.attention = BertSelfAttention(config)
        self.attention_output = nn.Linear(config.hidden_size, config.hidden_size)  # W^O
        self.attention_norm = LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.feed_forward_in = nn.Linear(config.hidden_size, config.intermediate_size)  # W_1
        self.feed_forward_out = nn.Linear(config.intermediate_size, config.hidden_size)  # W_2
        self.feed_forward_norm = LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def feed_forward(self, x: Tensor) -> Tensor:
        """``FFN(x) = GELU(x W_1 + b_1) W_2 + b_2`` with the exact GELU x * Phi(x)."""
        return position_wise_feed_forward(
            x, self.feed_forward_in, self.feed_forward_out, F.gelu, NO_INNER_DROPOUT
        )

    def forward(
        self, x: Tensor, mask: Tensor | None, need_weights: bool = False
    ) -> tuple[Tensor, Tensor | None]:
        """The layer's output ``[B, T, H]`` and, with ``need_weights``, its attention
        weights."""
        heads, weights = self.attention(x, mask, need_weights)
        x = self.attention_norm(x + self.dropout(self.attention_output(heads)))
        x = self.feed_forward_norm(x + self.dropout(self.feed_forward(x)))
        return x, weights


class BertEncoder(nn.Module):
    """``h_l = Layer_l(h_{l-1})`` for l = 1..L (Chapter 6, BERT); ``layers`` is the list."""

    def __init__(self, config: BertConfig) -> None:
        super().__init__()
        self.layers = nn.ModuleList(BertLayer(config) for _ in range(config.num_hidden_layers))

    def forward(
        self, x: Tensor, mask: Tensor | None, need_weights: bool = False
    ) -> tuple[list[Tensor], list[Tensor]]:
        """Every hidden state ``[h_0, h_1, ..., h_L]`` and, with ``need_weights``, the attention
        weights of every layer ``[B, A, T, T]``.
        """
        hidden_states, attentions = [x], []
        for layer in self.layers:
            x, weights = layer(x, mask, need_weights)
            hidden_states.append(x)
            if weights is not None:
                attentions.append(weights)
        return hidden_states, attentions


class BertPooler(nn.Module):
    """``pooled = tanh(W h_[CLS] + b)``: the final state of ``[CLS]`` through a dense layer, the
    aggregate representation of the whole input (Chapter 6, BERT).
    """

    def __init__(self, config: BertConfig) -> None:
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.hidden_size)

    def forward(self, hidden_states: Tensor) -> Tensor:
        """``[B, T, H] -> [B, H]`` from position 0, where ``[CLS]`` stands."""
        return torch.tanh(self.dense(hidden_states[:, 0]))
