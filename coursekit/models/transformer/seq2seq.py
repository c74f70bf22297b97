"""The Transformer for sequence-to-sequence tasks: translation, copying, sorting (Chapter 5,
Transformers).

Source and target tokens are embedded (scaled by sqrt(d_model), plus positions), the encoder
reads the source, the decoder reads the target shifted right (teacher forcing) with a causal
mask, and a linear layer gives the logits of each next target token:

    memory = Encoder(Emb_src(x)),
    P(y_{t+1} | y_1..y_t, x) = softmax(Decoder(Emb_tgt(y), memory)_t W_out + b_out).

At inference the target is written one token at a time: :meth:`Seq2SeqTransformer.decode_step`
reads the last token of every hypothesis and returns log-probabilities of the next one and a
state (the memory, its padding mask and the decoder's key-value cache), every tensor of which is
batch first, so that :func:`coursekit.generate.beam_search` copies and reorders hypotheses with
it as with any ``step(tokens, state)`` decoder.
"""

from __future__ import annotations

from typing import NamedTuple, cast

import torch
from torch import Tensor, nn

from coursekit.generate import DecodingStep, Hypothesis, greedy_decode
from coursekit.models.token_ids import require_token_ids
from coursekit.models.transformer.embedding import TransformerEmbedding
from coursekit.models.transformer.kv_cache import KeyValueCache, cache_length, empty_cache
from coursekit.models.transformer.layers import TransformerDecoderLayer
from coursekit.models.transformer.model import Transformer
from coursekit.models.transformer.positional_encoding import require_positions_fit
from coursekit.runtime import evaluating
from coursekit.text.masks import causal_mask


class DecoderState(NamedTuple):
    """What the decoder carries from step to step, every tensor batch first (Chapter 5)."""

    memory: Tensor
    """The encoder's output ``[N, S, d_model]``."""
    memory_key_padding_mask: Tensor
    """``[N, S]``, True at source padding."""
    cache: KeyValueCache
    """The decoder's self-attention keys and values of the target tokens read so far."""


class Seq2SeqTransformer(nn.Module):
    """Embeddings x sqrt(d_model) + positions, ``torch.nn.Transformer``'s architecture
    (:class:`coursekit.models.transformer.model.Transformer`, batch first), and an output layer
    (Chapter 5). Token ``pad_index`` marks source padding, which no query attends.

    ``forward(src [B, S], tgt [B, T]) -> logits [B, T, V_tgt]`` (teacher forcing: ``tgt`` is the
    target shifted right, starting with BOS; right padding of ``tgt`` needs no mask, the causal
    mask keeps every real position from seeing it). Sources and targets hold at most ``max_len``
    tokens (a ValueError otherwise). ``tie_embeddings`` shares the target embedding matrix with
    the output layer.
    """

    def __init__(
        self,
        src_vocab_size: int,
        tgt_vocab_size: int,
        d_model: int = 512,
        nhead: int = 8,
        num_encoder_layers: int = 6,
        num_decoder_layers: int = 6,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        max_len: int = 512,
        positional: str = "sinusoidal",
        norm_first: bool = False,
        pad_index: int = 0,
        tie_embeddings: bool = False,
    ) -> None:
        super().__init__()
        self.src_vocab_size, self.tgt_vocab_size = src_vocab_size, tgt_vocab_size
        self.max_len, self.pad_index = max_len, pad_index
        self.src_embedding = TransformerEmbedding(
            src_vocab_size, d_model, max_len, positional, dropout, padding_idx=pad_index
        )
        self.tgt_embedding = TransformerEmbedding(
            tgt_vocab_size, d_model, max_len, positional, dropout, padding_idx=pad_index
        )
        self.transformer = Transformer(
            d_model, nhead, num_encoder_layers, num_decoder_layers, dim_feedforward, dropout,
            batch_first=True, norm_first=norm_first,
        )  # fmt: skip
        self.output = nn.Linear(d_model, tgt_vocab_size)
        if tie_embeddings:
            self.output.weight = self.tgt_embedding.token.weight

    def encode(self, src: Tensor) -> DecoderState:
        """Read the source ``[B, S]``; returns the decoder state before the first step."""
        require_token_ids(src, self.src_vocab_size)
        require_positions_fit(0, src.shape[1], self.max_len)
        padding = src == self.pad_index
        memory = self.transformer.encoder(self.src_embedding(src), src_key_padding_mask=padding)
        first_layer = cast(TransformerDecoderLayer, self.transformer.decoder.layers[0]).self_attn
        cache = empty_cache(
            self.transformer.decoder.num_layers, src.shape[0], first_layer.num_heads,
            first_layer.head_dim, memory,
        )  # fmt: skip
        return DecoderState(memory, padding, cache)

    def forward(self, src: Tensor, tgt: Tensor) -> Tensor:
        """Logits ``[B, T, V_tgt]`` of every next target token (teacher forcing)."""
        require_token_ids(src, self.src_vocab_size)
        require_token_ids(tgt, self.tgt_vocab_size)
        require_positions_fit(0, max(src.shape[1], tgt.shape[1]), self.max_len)
        padding = src == self.pad_index
        hidden = self.transformer(
            self.src_embedding(src), self.tgt_embedding(tgt),
            tgt_mask=causal_mask(tgt.shape[1], device=tgt.device),
            src_key_padding_mask=padding, memory_key_padding_mask=padding,
        )  # fmt: skip
        return self.output(hidden)

    def decode_step(self, tokens: Tensor, state: DecoderState) -> tuple[Tensor, DecoderState]:
        """Read the last token ``[N]`` of each hypothesis; returns ``log P(y_{t+1} | y_1..y_t, x)``
        ``[N, V_tgt]`` and the new state (the cache grown by one position).
        """
        require_token_ids(tokens.unsqueeze(1), self.tgt_vocab_size)
        position = cache_length(state.cache)
        require_positions_fit(position, 1, self.max_len)
        embedded = self.tgt_embedding(tokens.unsqueeze(1), offset=position)
        hidden, cache = self.transformer.decoder.forward_with_cache(
            embedded, state.memory, state.cache, state.memory_key_padding_mask
        )
        log_probs = torch.log_softmax(self.output(hidden[:, -1]), dim=-1)
        return log_probs, state._replace(cache=cache)

    def greedy_decode(
        self, src: Tensor, bos_index: int, eos_index: int, max_len: int
    ) -> list[Hypothesis]:
        """Greedy decoding, ``y_t = argmax_v log P(v | y_<t, x)`` from ``y_0 = BOS``, of every
        source of ``src [B, S]``: :func:`coursekit.generate.greedy_decode` driving
        :meth:`decode_step`. Returns one hypothesis per source (tokens after BOS, up to and with
        EOS, at most ``max_len``). Runs in eval mode without gradients and gives the model back
        in the mode it was in.
        """
        with evaluating(self):
            bos = torch.full((src.shape[0],), bos_index, dtype=torch.long, device=src.device)
            step = cast(DecodingStep, self.decode_step)  # its state: a tuple of tensors
            return greedy_decode(step, self.encode(src), bos, eos_index, max_len)
