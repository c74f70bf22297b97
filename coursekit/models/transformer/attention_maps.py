"""The attention weights of a Transformer, layer by layer and head by head (Chapter 5,
Transformers).

Inside the layers, attention takes the fused path (``F.scaled_dot_product_attention``), which
never forms the weights. To look inside, these functions run a stack again layer by layer and
ask each attention module for its weights on the explicit path, where

    A_i = softmax(Q W_i^Q (K W_i^K)^T / sqrt(d_k) + M)

is computed for every head i (``need_weights=True, average_attn_weights=False``); each layer is
then run as usual, so the stack's output is unchanged. A map ``A[l, b, i, t, s]`` is the weight
that query t gives key s in head i of layer l for example b; each row sums to 1 over the keys
that the masks allow.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple, cast

import torch
from torch import Tensor

from coursekit.models.transformer.classifier import TransformerClassifier
from coursekit.models.transformer.language_model import TransformerLanguageModel
from coursekit.models.transformer.layers import (
    TransformerDecoderLayer,
    TransformerEncoderLayer,
    TransformerLayer,
    sublayer_connection,
)
from coursekit.models.transformer.model import TransformerDecoder, TransformerEncoder
from coursekit.models.transformer.seq2seq import Seq2SeqTransformer
from coursekit.runtime import evaluating
from coursekit.text.masks import causal_mask, padding_mask


class Seq2SeqAttentionMaps(NamedTuple):
    """The three kinds of attention of an encoder-decoder, each ``[L, B, h, T_q, T_k]``
    (Chapter 5)."""

    encoder: Tensor
    """Encoder self-attention: source positions attending source positions."""
    decoder: Tensor
    """Masked decoder self-attention: target positions attending earlier targets."""
    cross: Tensor
    """Encoder-decoder attention: target positions (queries) attending the source (keys)."""


def sublayer_input(layer: TransformerLayer, x: Tensor, index: int) -> Tensor:
    """What sublayer ``index`` (1, 2, 3) reads: ``LayerNorm_index(x)`` in a pre-norm layer, x
    itself in a post-norm one (Chapter 5).
    """
    return getattr(layer, f"norm{index}")(x) if layer.norm_first else x


def encoder_attention_maps(
    stack: TransformerEncoder,
    src: Tensor,
    mask: Tensor | None = None,
    src_key_padding_mask: Tensor | None = None,
    is_causal: bool = False,
) -> Tensor:
    """The self-attention weights ``[L, B, h, T, T]`` of every layer of an encoder stack on
    ``src`` (batch first), with the stack's masks (Chapter 5).
    """
    maps = []
    x = src
    for layer in cast(Iterable[TransformerEncoderLayer], stack.layers):
        h = sublayer_input(layer, x, 1)
        _, weights = layer.self_attn(
            h, h, h, key_padding_mask=src_key_padding_mask, need_weights=True, attn_mask=mask,
            average_attn_weights=False, is_causal=is_causal,
        )  # fmt: skip
        maps.append(weights)
        x = layer(x, mask, src_key_padding_mask, is_causal=is_causal)
    return torch.stack(maps)


def decoder_attention_maps(
    stack: TransformerDecoder,
    tgt: Tensor,
    memory: Tensor,
    tgt_mask: Tensor | None = None,
    memory_key_padding_mask: Tensor | None = None,
) -> tuple[Tensor, Tensor]:
    """The masked self-attention weights ``[L, B, h, T, T]`` and the encoder-decoder weights
    ``[L, B, h, T, S]`` of every layer of a decoder stack (Chapter 5).
    """
    self_maps, cross_maps = [], []
    x = tgt
    for layer in cast(Iterable[TransformerDecoderLayer], stack.layers):
        h = sublayer_input(layer, x, 1)
        self_maps.append(
            layer.self_attn(
                h, h, h, need_weights=True, attn_mask=tgt_mask, average_attn_weights=False
            )[1]
        )
        self_attention = layer.self_attention(tgt_mask, None, False)
        after_self = sublayer_connection(
            x, self_attention, layer.norm1, layer.dropout1, layer.norm_first
        )
        h = sublayer_input(layer, after_self, 2)
        cross_maps.append(
            layer.multihead_attn(
                h, memory, memory, key_padding_mask=memory_key_padding_mask, need_weights=True,
                average_attn_weights=False,
            )[1]
        )  # fmt: skip
        x = layer(x, memory, tgt_mask, memory_key_padding_mask=memory_key_padding_mask)
    return torch.stack(self_maps), torch.stack(cross_maps)


def language_model_attention_maps(model: TransformerLanguageModel, tokens: Tensor) -> Tensor:
    """The causal self-attention weights ``[L, B, h, T, T]`` of a decoder-only language model
    reading ``tokens [B, T]``, in eval mode without gradients (Chapter 5).
    """
    with evaluating(model):
        return encoder_attention_maps(model.blocks, model.embedding(tokens), is_causal=True)


def classifier_attention_maps(
    model: TransformerClassifier, tokens: Tensor, lengths: Tensor
) -> Tensor:
    """The self-attention weights ``[L, B, h, T, T]`` of a Transformer classifier reading
    ``tokens [B, T]`` padded after ``lengths``; no query attends padding (Chapter 5).
    """
    with evaluating(model):
        is_padding = padding_mask(lengths, max_len=tokens.shape[1]).to(tokens.device)
        return encoder_attention_maps(
            model.encoder, model.embedding(tokens), src_key_padding_mask=is_padding
        )


def seq2seq_attention_maps(
    model: Seq2SeqTransformer, src: Tensor, tgt_in: Tensor
) -> Seq2SeqAttentionMaps:
    """Every attention weight of a :class:`Seq2SeqTransformer` reading ``src [B, S]`` and, with
    teacher forcing, ``tgt_in [B, T]`` (BOS then the target), in eval mode (Chapter 5).
    """
    with evaluating(model):
        padding = src == model.pad_index
        encoder = model.transformer.encoder
        source = model.src_embedding(src)
        encoder_maps = encoder_attention_maps(encoder, source, src_key_padding_mask=padding)
        memory = encoder(source, src_key_padding_mask=padding)
        decoder_maps, cross_maps = decoder_attention_maps(
            model.transformer.decoder, model.tgt_embedding(tgt_in), memory,
            tgt_mask=causal_mask(tgt_in.shape[1], device=tgt_in.device),
            memory_key_padding_mask=padding,
        )  # fmt: skip
    return Seq2SeqAttentionMaps(encoder_maps, decoder_maps, cross_maps)
