"""The sequence-to-sequence model: encoder, bridge, decoder (Chapter 4, Seq2seq and attention).

    P(y_1 .. y_T | x_1 .. x_S) = prod_t P(y_t | y_<t, x),

trained by maximising log P(y* | x*) over the pairs of the data set, with teacher forcing (the
decoder reads the true y_{t-1}). Sutskever et al. (2014) also fed the encoder the source
REVERSED ("A B C -> W X Y Z" becomes "C B A -> W X Y Z"): the average distance between source
and target words stays the same, but the first words, which the decoder needs first, end up
close to it. The decoder is any of :class:`~coursekit.models.seq2seq.encoder_decoder.Decoder` (no
attention), :class:`~coursekit.models.seq2seq.decoders.BahdanauDecoder` and
:class:`~coursekit.models.seq2seq.decoders.LuongDecoder`.
"""

from __future__ import annotations

from typing import NamedTuple, cast

from torch import Tensor, nn

from coursekit.generate.search import beam_search
from coursekit.generate.step import DecodingStep, Hypothesis
from coursekit.models.recurrent.classifier import require_lengths
from coursekit.models.recurrent.network import reversal_index
from coursekit.models.seq2seq.encoder_decoder import (
    Bridge,
    Encoder,
    EncoderMemory,
    RecurrentDecoder,
    RecurrentDecoderState,
)
from coursekit.models.token_ids import require_token_ids
from coursekit.runtime import evaluating

SearchState = tuple[RecurrentDecoderState, EncoderMemory]


class Seq2SeqOutput(NamedTuple):
    """``logits [B, T, V]`` and ``attention [B, T, S]``, the weights of target step t over the
    source positions in their original order; ``attention`` is None for a decoder without
    attention (there is nothing to show).
    """

    logits: Tensor
    attention: Tensor | None


def reverse_within_lengths(sequences: Tensor, lengths: Tensor) -> Tensor:
    """``sequences [B, S, ...]`` with each row reversed within its own length (x_n .. x_1, then
    its padding, which stays at the end). Applying it twice gives the input back.
    """
    index = reversal_index(lengths, sequences.shape[1]).transpose(0, 1)  # [B, S]
    index = index.reshape(*index.shape, *([1] * (sequences.dim() - 2))).expand_as(sequences)
    return sequences.gather(1, index)


class Seq2Seq(nn.Module):
    """Encoder-decoder for translation-like tasks (Chapter 4, Seq2seq and attention).

    ``forward(src, src_lengths, tgt_in)`` encodes ``src [B, S]`` (reversed within each length
    when ``reverse_source``), starts the decoder from the :class:`Bridge`'s s_0 and returns a
    :class:`Seq2SeqOutput`. While training, each next decoder input is the true token with
    probability ``teacher_forcing`` and the model's own guess otherwise; in eval mode the true
    tokens are read unless ``teacher_forcing`` is passed to ``forward``. Feeding the model its
    own greedy output as ``tgt_in`` returns the attention weights of that decoding.
    """

    def __init__(
        self,
        encoder: Encoder,
        decoder: RecurrentDecoder,
        teacher_forcing: float = 1.0,
        reverse_source: bool = False,
    ) -> None:
        super().__init__()
        if not 0.0 <= teacher_forcing <= 1.0:
            raise ValueError(f"teacher_forcing is a probability in [0, 1], got {teacher_forcing}")
        if encoder.cell != decoder.cell or encoder.num_layers != decoder.num_layers:
            raise ValueError(
                "the bridge hands the encoder's final state to the decoder layer by layer, so "
                "both need the same cell and number of layers; got encoder "
                f"({encoder.cell!r}, {encoder.num_layers} layers) and decoder "
                f"({decoder.cell!r}, {decoder.num_layers} layers)"
            )
        self.encoder = encoder
        self.bridge = Bridge(encoder, decoder.hidden_size, decoder.cell)
        self.decoder = decoder
        self.teacher_forcing = teacher_forcing
        self.reverse_source = reverse_source

    def encode(self, src: Tensor, src_lengths: Tensor) -> SearchState:
        """The decoder's initial state and the encoder's memory, both batch first; the memory
        is in the encoder's reading order (reversed when ``reverse_source``).
        """
        require_token_ids(src, self.encoder.vocab_size)
        src_lengths = require_lengths(src_lengths, src)
        if self.reverse_source:
            src = reverse_within_lengths(src, src_lengths)
        memory, final = self.encoder(src, src_lengths)
        return self.decoder.initial_state(self.bridge(final)), memory

    def forward(
        self,
        src: Tensor,
        src_lengths: Tensor,
        tgt_in: Tensor,
        teacher_forcing: float | None = None,
    ) -> Seq2SeqOutput:
        """Logits ``[B, T, V]`` for ``tgt_in = <sos> y_1 .. y_{T-1}`` and the attention weights
        ``[B, T, S]`` over the source in its original order (None without attention).
        """
        require_token_ids(tgt_in, self.decoder.vocab_size)
        if teacher_forcing is None:
            teacher_forcing = self.teacher_forcing if self.training else 1.0
        state, memory = self.encode(src, src_lengths)
        logits, attention = self.decoder(tgt_in, state, memory, teacher_forcing)
        if attention is not None and self.reverse_source:
            lengths = (~memory.padding_mask).sum(dim=1)
            attention = reverse_within_lengths(attention.transpose(1, 2), lengths).transpose(1, 2)
        return Seq2SeqOutput(logits, attention)

    def search_step(self, tokens: Tensor, state: SearchState) -> tuple[Tensor, SearchState]:
        """The :class:`~coursekit.generate.step.DecodingStep` of this model, for greedy
        decoding and beam search: the state is (decoder state, encoder memory).
        """
        decoder_state, memory = state
        log_probs, decoder_state, _ = self.decoder.step(tokens, decoder_state, memory)
        return log_probs, (decoder_state, memory)

    def translate(
        self,
        src: Tensor,
        src_lengths: Tensor,
        bos: int,
        eos: int,
        max_len: int,
        beam_size: int = 1,
        length_penalty: float = 0.0,
        n_best: int = 1,
    ) -> list[list[Hypothesis]]:
        """Beam search (greedy decoding for ``beam_size=1``) of a batch of sources; see
        :func:`coursekit.generate.search.beam_search`. Runs in eval mode without gradients and
        gives the model back in the mode it was in.
        """
        with evaluating(self):
            state = self.encode(src, src_lengths)
            start = src.new_full((src.shape[0],), bos)
            step = cast(DecodingStep, self.search_step)  # its state: a tuple of tensors
            return beam_search(step, state, start, eos, beam_size, max_len, length_penalty, n_best)
