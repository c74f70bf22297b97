"""The Transformer's encoder and decoder layers, equal to ``torch.nn.TransformerEncoderLayer``
and ``torch.nn.TransformerDecoderLayer`` (Chapter 5, Transformers).

An encoder layer is self-attention followed by the position-wise feed-forward network; a decoder
layer puts encoder-decoder (cross) attention between them, whose queries come from the decoder
and whose keys and values come from the encoder's output (the memory). Each sublayer is wrapped
in a residual connection with layer normalisation and dropout on the sublayer's output:

    post-norm (the paper):          x <- LayerNorm(x + Dropout(Sublayer(x)))
    pre-norm (``norm_first=True``): x <- x + Dropout(Sublayer(LayerNorm(x)))

Pre-norm keeps an identity path from the input to the output of the whole stack, which lets
deep stacks train stably even without learning-rate warmup (Xiong et al., 2020); it needs a
final LayerNorm after the last layer.

Parameter names are torch's (``self_attn``, ``multihead_attn``, ``linear1``, ``linear2``,
``norm1``..``norm3``), so ``load_state_dict`` copies a torch layer one to one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from torch import Tensor, nn

from coursekit.arguments import require_positive_int
from coursekit.models.transformer.feed_forward import (
    activation_name,
    position_wise_feed_forward,
    require_activation,
)
from coursekit.models.transformer.kv_cache import LayerKeyValues
from coursekit.models.transformer.layer_norm import LayerNorm
from coursekit.models.transformer.multihead_attention import MultiHeadAttention
from coursekit.models.twins import TorchTwin

Sublayer = Callable[[Tensor], Tensor]


def sublayer_connection(
    x: Tensor, sublayer: Sublayer, norm: nn.Module, dropout: nn.Module, norm_first: bool
) -> Tensor:
    """``LayerNorm(x + Dropout(Sublayer(x)))`` (post-norm), or with ``norm_first``
    ``x + Dropout(Sublayer(LayerNorm(x)))`` (pre-norm) (Chapter 5).
    """
    if norm_first:
        return x + dropout(sublayer(norm(x)))
    return norm(x + dropout(sublayer(x)))


class TransformerLayer(TorchTwin):
    """What the encoder and the decoder layer share: torch's constructor arguments, the
    self-attention, the feed-forward network ``FFN(x) = max(0, x W_1 + b_1) W_2 + b_2``, one
    LayerNorm and one dropout per sublayer, and ``from_torch`` (Chapter 5).
    """

    num_sublayers: ClassVar[int]
    norm1: LayerNorm  # every layer's first sublayer, the self-attention
    dropout1: nn.Dropout

    def __init__(
        self,
        d_model: int,
        nhead: int,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: str = "relu",
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
    ) -> None:
        super().__init__()
        require_positive_int("dim_feedforward", dim_feedforward)
        self.activation_name = activation
        self.activation = require_activation(activation)
        self.self_attn = MultiHeadAttention(
            d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first
        )
        if self.num_sublayers == 3:
            self.multihead_attn = MultiHeadAttention(
                d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first
            )
        self.linear1 = nn.Linear(d_model, dim_feedforward, bias=bias)
        self.dropout = nn.Dropout(dropout)
        self.linear2 = nn.Linear(dim_feedforward, d_model, bias=bias)
        self.norm_first = norm_first
        for index in range(1, self.num_sublayers + 1):
            self.add_module(f"norm{index}", LayerNorm(d_model, eps=layer_norm_eps, bias=bias))
        for index in range(1, self.num_sublayers + 1):
            self.add_module(f"dropout{index}", nn.Dropout(dropout))

    def extra_repr(self) -> str:
        return f"activation={self.activation_name!r}, norm_first={self.norm_first}"

    @classmethod
    def constructor_arguments(
        cls, torch_layer: nn.TransformerEncoderLayer | nn.TransformerDecoderLayer
    ) -> dict[str, object]:
        """The arguments that rebuild ``torch_layer``'s configuration in this class."""
        return {
            "d_model": torch_layer.self_attn.embed_dim,
            "nhead": torch_layer.self_attn.num_heads,
            "dim_feedforward": torch_layer.linear1.out_features,
            "dropout": torch_layer.dropout.p,
            "activation": activation_name(torch_layer.activation),
            "layer_norm_eps": torch_layer.norm1.eps,
            "batch_first": torch_layer.self_attn.batch_first,
            "norm_first": torch_layer.norm_first,
            "bias": torch_layer.linear1.bias is not None,
        }

    def feed_forward(self, x: Tensor) -> Tensor:
        """``FFN(x) = max(0, x W_1 + b_1) W_2 + b_2`` (or GELU), dropout on the inner layer."""
        return position_wise_feed_forward(
            x, self.linear1, self.linear2, self.activation, self.dropout
        )

    def self_attention(
        self, attn_mask: Tensor | None, key_padding_mask: Tensor | None, is_causal: bool
    ) -> Sublayer:
        """The sublayer ``x -> SelfAttention(x)`` (queries, keys, values all x) with these masks."""

        def attend(x: Tensor) -> Tensor:
            return self.self_attn(
                x, x, x, key_padding_mask=key_padding_mask, need_weights=False,
                attn_mask=attn_mask, is_causal=is_causal,
            )[0]  # fmt: skip

        return attend

    def cached_self_attention_sublayer(
        self, x: Tensor, past: LayerKeyValues | None, attn_mask: Tensor | None
    ) -> tuple[Tensor, LayerKeyValues]:
        """The first sublayer, ``x <- SublayerConnection(x, SelfAttention)``, with the keys and
        values ``[K_past ; x W^K]``, ``[V_past ; x W^V]``; also returns those of all positions.
        """
        h = self.norm1(x) if self.norm_first else x
        attended, keys_values = self.self_attn.self_attention_with_cache(h, past, attn_mask)
        x = x + self.dropout1(attended)
        return (x if self.norm_first else self.norm1(x)), keys_values

    def require_features(self, name: str, x: Tensor) -> None:
        """``x`` must end with d_model features."""
        if x.dim() not in (2, 3) or x.shape[-1] != self.self_attn.embed_dim:
            layout = "[B, T, d_model]" if self.self_attn.batch_first else "[T, B, d_model]"
            raise ValueError(
                f"{name} must be {layout} (or [T, d_model] unbatched) with d_model="
                f"{self.self_attn.embed_dim}, got shape {tuple(x.shape)}"
            )


class TransformerEncoderLayer(TransformerLayer):
    """Self-attention, then the feed-forward network, each in a residual connection with
    LayerNorm (Chapter 5): post-norm ``x <- LayerNorm(x + Dropout(Sublayer(x)))``, or pre-norm
    with ``norm_first``. Equal to ``torch.nn.TransformerEncoderLayer`` (``activation`` "relu"
    or "gelu"); ``forward`` takes torch's masks (True = NOT allowed, or float to add).
    """

    torch_class = nn.TransformerEncoderLayer
    num_sublayers = 2
    norm1: LayerNorm
    norm2: LayerNorm
    dropout1: nn.Dropout
    dropout2: nn.Dropout

    def forward(
        self,
        src: Tensor,
        src_mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        is_causal: bool = False,
    ) -> Tensor:
        """The layer's output, shaped like ``src`` (``[T, B, d]``, ``[B, T, d]``, ``[T, d]``)."""
        self.require_features("src", src)
        self_attention = self.self_attention(src_mask, src_key_padding_mask, is_causal)
        return self.sublayers(src, self_attention)

    def sublayers(self, x: Tensor, self_attention: Sublayer) -> Tensor:
        """``x <- SublayerConnection(x, SelfAttention)``, then ``SublayerConnection(x, FFN)``."""
        x = sublayer_connection(x, self_attention, self.norm1, self.dropout1, self.norm_first)
        return sublayer_connection(x, self.feed_forward, self.norm2, self.dropout2, self.norm_first)

    def forward_with_cache(
        self, x: Tensor, past: LayerKeyValues | None, attn_mask: Tensor | None = None
    ) -> tuple[Tensor, LayerKeyValues]:
        """The layer on T new positions that attend P cached ones and themselves
        (:mod:`coursekit.models.transformer.kv_cache`); returns the output and the keys and values
        of all P + T positions for the next call. ``attn_mask`` ``[T, P + T]``: True = NOT allowed.
        """
        self.require_features("x", x)
        x, keys_values = self.cached_self_attention_sublayer(x, past, attn_mask)
        x = sublayer_connection(x, self.feed_forward, self.norm2, self.dropout2, self.norm_first)
        return x, keys_values


class TransformerDecoderLayer(TransformerLayer):
    """Masked self-attention, encoder-decoder attention over the ``memory``, then the
    feed-forward network, each in a residual connection with LayerNorm (Chapter 5). In the
    cross-attention the queries come from the decoder, keys and values from the memory. Equal to
    ``torch.nn.TransformerDecoderLayer``.
    """

    torch_class = nn.TransformerDecoderLayer
    num_sublayers = 3
    norm1: LayerNorm
    norm2: LayerNorm
    norm3: LayerNorm
    dropout1: nn.Dropout
    dropout2: nn.Dropout
    dropout3: nn.Dropout

    def forward(
        self,
        tgt: Tensor,
        memory: Tensor,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        tgt_is_causal: bool = False,
        memory_is_causal: bool = False,
    ) -> Tensor:
        """The layer's output, shaped like ``tgt``."""
        self.require_features("tgt", tgt)
        self.require_features("memory", memory)
        self_attention = self.self_attention(tgt_mask, tgt_key_padding_mask, tgt_is_causal)

        def cross_attention(x: Tensor) -> Tensor:
            return self.encoder_decoder_attention(
                x, memory, memory_mask, memory_key_padding_mask, memory_is_causal
            )

        return self.sublayers(tgt, self_attention, cross_attention)

    def encoder_decoder_attention(
        self,
        x: Tensor,
        memory: Tensor,
        memory_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        memory_is_causal: bool = False,
    ) -> Tensor:
        """Encoder-decoder attention: queries from ``x``, keys and values from ``memory``."""
        return self.multihead_attn(
            x, memory, memory, key_padding_mask=memory_key_padding_mask, need_weights=False,
            attn_mask=memory_mask, is_causal=memory_is_causal,
        )[0]  # fmt: skip

    def sublayers(self, x: Tensor, self_attention: Sublayer, cross_attention: Sublayer) -> Tensor:
        """``x <- SublayerConnection(x, S)`` for S = masked self-attention, cross-attention, FFN."""
        x = sublayer_connection(x, self_attention, self.norm1, self.dropout1, self.norm_first)
        x = sublayer_connection(x, cross_attention, self.norm2, self.dropout2, self.norm_first)
        return sublayer_connection(x, self.feed_forward, self.norm3, self.dropout3, self.norm_first)

    def forward_with_cache(
        self,
        x: Tensor,
        memory: Tensor,
        past: LayerKeyValues | None,
        attn_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
    ) -> tuple[Tensor, LayerKeyValues]:
        """The layer on T new target positions that attend P cached ones and themselves, then
        the memory; returns the output and the self-attention keys and values of all P + T
        positions (:mod:`coursekit.models.transformer.kv_cache`).
        """
        self.require_features("x", x)
        self.require_features("memory", memory)
        x, keys_values = self.cached_self_attention_sublayer(x, past, attn_mask)

        def cross_attention(h: Tensor) -> Tensor:
            return self.encoder_decoder_attention(
                h, memory, memory_key_padding_mask=memory_key_padding_mask
            )

        x = sublayer_connection(x, cross_attention, self.norm2, self.dropout2, self.norm_first)
        x = sublayer_connection(x, self.feed_forward, self.norm3, self.dropout3, self.norm_first)
        return x, keys_values
