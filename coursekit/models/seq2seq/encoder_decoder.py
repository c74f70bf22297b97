"""The encoder, the bridge and the plain decoder of a sequence-to-sequence model (Chapter 4,
Seq2seq and attention).

The encoder reads the source x_1..x_S into states h_1..h_S (its memory) and a final state; the
decoder models P(y | x) = prod_t P(y_t | y_<t, x) one token at a time. Without attention the
decoder sees the source only through its initial state, the "thought vector" v = the encoder's
last state (Sutskever et al., 2014; Cho et al., 2014).

Layouts: batches are batch first. Decoder states are batch first too, ``[B, L, H]`` per layer
(a tuple ``(h, c)`` for an LSTM), so that beam search can reorder their rows; they are turned
into the ``[L, B, H]`` that recurrent layers take only inside a step.
"""

from __future__ import annotations

from typing import NamedTuple, cast

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from coursekit.models.recurrent.classifier import require_lengths
from coursekit.models.recurrent.factory import recurrent_layer
from coursekit.models.recurrent.network import HiddenState
from coursekit.text.masks import padding_mask


class EncoderMemory(NamedTuple):
    """What the decoder may attend to: the encoder ``states [B, S, D*H]`` (zeros on padding;
    keys and values of the attention) and the ``padding_mask [B, S]`` (True on padding).
    """

    states: Tensor
    padding_mask: Tensor


class RecurrentDecoderState(NamedTuple):
    """The decoder's state between steps, batch first: ``hidden`` ``[B, L, H]`` (``(h, c)`` for
    an LSTM), ``feed`` Luong's attentional state s~_{t-1} ``[B, H]`` for input feeding (None
    otherwise), ``step`` the index t ``[B]`` of the next target step.
    """

    hidden: HiddenState
    feed: Tensor | None
    step: Tensor


def batch_first_state(hidden: HiddenState) -> HiddenState:
    """``[L, B, H]`` (or a tuple of them) as ``[B, L, H]``."""
    if isinstance(hidden, tuple):
        h, c = hidden
        return h.transpose(0, 1), c.transpose(0, 1)
    return hidden.transpose(0, 1)


def layer_first_state(hidden: HiddenState) -> HiddenState:
    """``[B, L, H]`` (or a tuple of them) as the ``[L, B, H]`` a recurrent layer takes."""
    if isinstance(hidden, tuple):
        h, c = hidden
        return h.transpose(0, 1).contiguous(), c.transpose(0, 1).contiguous()
    return hidden.transpose(0, 1).contiguous()


def top_layer(hidden: HiddenState) -> Tensor:
    """The last layer's hidden state s_t ``[B, H]`` of a batch-first state (h of ``(h, c)``)."""
    return (hidden[0] if isinstance(hidden, tuple) else hidden)[:, -1]


class EmbeddedRecurrent(nn.Module):
    """What the encoder and the decoders share (Chapter 4): an embedding E of the tokens, dropout
    on the embeddings, and a coursekit GRU/LSTM
    (:func:`~coursekit.models.recurrent.factory.recurrent_layer`, batch first) reading
    ``input_size`` features: E x_t, plus whatever a decoder adds to it.
    """

    def __init__(
        self,
        vocab_size: int,
        embedding_dim: int,
        input_size: int,
        hidden_size: int,
        cell: str,
        num_layers: int,
        dropout: float,
        pad_index: int,
        bidirectional: bool = False,
    ) -> None:
        super().__init__()
        self.vocab_size, self.hidden_size, self.cell = vocab_size, hidden_size, cell
        self.num_layers = num_layers
        self.embedding = nn.Embedding(vocab_size, embedding_dim, padding_idx=pad_index)
        self.dropout = nn.Dropout(dropout)
        self.recurrent = recurrent_layer(
            cell, input_size, hidden_size, num_layers, dropout, bidirectional
        )


class Encoder(EmbeddedRecurrent):
    """Embedding + coursekit GRU/LSTM (Chapter 4): h_1..h_S = RNN(E x_1, ..., E x_S).

    With ``bidirectional=True`` h_s = [h_s(forward); h_s(backward)] as in Bahdanau et al.
    (2015), so each state summarises the words on both sides of x_s. The true ``lengths`` go to
    the recurrent network, so a padded batch gives each source the states it gets alone.
    """

    def __init__(
        self,
        vocab_size: int,
        embedding_dim: int,
        hidden_size: int,
        cell: str = "gru",
        num_layers: int = 1,
        bidirectional: bool = False,
        dropout: float = 0.0,
        pad_index: int = 0,
    ) -> None:
        super().__init__(
            vocab_size, embedding_dim, embedding_dim, hidden_size, cell, num_layers, dropout,
            pad_index, bidirectional,
        )  # fmt: skip
        self.num_directions = 2 if bidirectional else 1
        self.output_size = self.num_directions * hidden_size

    def forward(self, src: Tensor, lengths: Tensor) -> tuple[EncoderMemory, HiddenState]:
        """The memory (states ``[B, S, D*H]`` and padding mask) and the final state
        ``[L*D, B, H]`` (``(h_n, c_n)`` for an LSTM) of ``src [B, S]``.
        """
        lengths = require_lengths(lengths, src)
        states, final = self.recurrent(self.dropout(self.embedding(src)), lengths=lengths)
        return EncoderMemory(states, padding_mask(lengths, max_len=src.shape[1])), final


class Bridge(nn.Module):
    """The decoder's initial state from the encoder's final one (Chapter 4).

    A unidirectional encoder with the decoder's hidden size hands its final state over as it is,
    layer by layer: s_0 = h_S, the thought vector. Otherwise each layer l gets
    s_0^l = tanh(W_b [h^l(forward); h^l(backward)] + b_b) (one W_b for all layers; an LSTM's
    cell state gets its own W_c the same way): for a bidirectional encoder the concatenation of
    the forward state after x_S and the backward state after x_1, where Bahdanau et al. (2015)
    used the backward one alone, s_0 = tanh(W_s h_1(backward)).
    """

    def __init__(self, encoder: Encoder, decoder_hidden_size: int, cell: str) -> None:
        super().__init__()
        self.num_layers, self.num_directions = encoder.num_layers, encoder.num_directions
        self.copies = encoder.num_directions == 1 and encoder.hidden_size == decoder_hidden_size
        state_count = 2 if cell == "lstm" else 1
        self.projections = nn.ModuleList(
            []
            if self.copies
            else [nn.Linear(encoder.output_size, decoder_hidden_size) for _ in range(state_count)]
        )

    def forward(self, final: HiddenState) -> HiddenState:
        """Encoder final state ``[L*D, B, H_enc]`` -> decoder initial state ``[B, L, H_dec]``."""
        if self.copies:
            return batch_first_state(final)
        parts = final if isinstance(final, tuple) else (final,)
        bridged = tuple(
            torch.tanh(projection(self.both_directions(part)))
            for projection, part in zip(self.projections, parts, strict=True)
        )
        return (bridged[0], bridged[1]) if isinstance(final, tuple) else bridged[0]

    def both_directions(self, part: Tensor) -> Tensor:
        """``[L*D, B, H]`` -> ``[B, L, D*H]``: each layer's directions side by side."""
        per_layer = part.view(self.num_layers, self.num_directions, *part.shape[1:])
        return per_layer.permute(2, 0, 1, 3).flatten(2)


def next_inputs(true_tokens: Tensor, logits: Tensor, teacher_forcing: float) -> Tensor:
    """Teacher forcing: the next input is the true y_t with probability ``teacher_forcing``
    (each row draws its own coin), else the model's own guess argmax P(y_t | y_<t, x).
    """
    if teacher_forcing >= 1:
        return true_tokens
    guesses = logits.argmax(dim=-1)
    if teacher_forcing <= 0:
        return guesses
    coins = torch.rand(true_tokens.shape, device=true_tokens.device)
    return torch.where(coins < teacher_forcing, true_tokens, guesses)


class RecurrentDecoder(EmbeddedRecurrent):
    """What every decoder of Chapter 4 shares: the loop over target steps (teacher forcing),
    one step of the recurrent network and the single step a search calls. A subclass defines
    :meth:`advance`, one step of its equations.
    """

    def run_recurrent(self, inputs: Tensor, hidden: HiddenState) -> tuple[Tensor, HiddenState]:
        """s_t = RNN(s_{t-1}, inputs) for one step: the top layer's s_t ``[N, H]`` and the new
        batch-first state.
        """
        outputs, new_hidden = self.recurrent(inputs.unsqueeze(1), layer_first_state(hidden))
        return outputs[:, 0], batch_first_state(new_hidden)

    def advance(
        self, tokens: Tensor, state: RecurrentDecoderState, memory: EncoderMemory
    ) -> tuple[Tensor, RecurrentDecoderState, Tensor | None]:
        """Logits ``[N, V]`` of y_t from y_{t-1} = ``tokens [N]``, the new state, the
        attention weights ``[N, S]`` (None without attention).
        """
        raise NotImplementedError

    def initial_state(self, hidden: HiddenState) -> RecurrentDecoderState:
        """The state before the first step, from the bridged hidden state ``[B, L, H]``."""
        query = top_layer(hidden)
        return RecurrentDecoderState(
            hidden, None, query.new_zeros(query.shape[0], dtype=torch.long)
        )

    def step(
        self, tokens: Tensor, state: RecurrentDecoderState, memory: EncoderMemory
    ) -> tuple[Tensor, RecurrentDecoderState, Tensor | None]:
        """One step for a search: log P(y_t | y_<t, x) ``[N, V]``, the new state and the step's
        attention weights ``[N, S]`` (None without attention); everything batch first.
        """
        logits, state, weights = self.advance(tokens, state, memory)
        return F.log_softmax(logits, dim=-1), state, weights

    def forward(
        self,
        tgt_in: Tensor,
        state: RecurrentDecoderState,
        memory: EncoderMemory,
        teacher_forcing: float = 1.0,
    ) -> tuple[Tensor, Tensor | None]:
        """Logits ``[B, T, V]`` and attention weights ``[B, T, S]`` (None without attention)
        for the inputs ``tgt_in = <sos> y_1 .. y_{T-1}`` ``[B, T]``; after step t the next
        input is the true one or the model's guess (see :func:`next_inputs`).
        """
        tokens = tgt_in[:, 0]
        all_logits, all_weights = [], []
        for t in range(tgt_in.shape[1]):
            logits, state, weights = self.advance(tokens, state, memory)
            all_logits.append(logits)
            all_weights.append(weights)
            if t + 1 < tgt_in.shape[1]:
                tokens = next_inputs(tgt_in[:, t + 1], logits, teacher_forcing)
        weights_of_steps = cast(list[Tensor], all_weights)  # all None or all tensors
        attention = None if all_weights[0] is None else torch.stack(weights_of_steps, dim=1)
        return torch.stack(all_logits, dim=1), attention


class Decoder(RecurrentDecoder):
    """The decoder without attention (Sutskever et al., 2014; Chapter 4):

        s_t = RNN(s_{t-1}, E y_{t-1}),   P(y_t | y_<t, x) = softmax(W_y s_t + b_y),

    starting from s_0 = the thought vector (the bridged last encoder state). It sees the source
    only through s_0, the fixed-size bottleneck that attention removes.
    """

    def __init__(
        self,
        vocab_size: int,
        embedding_dim: int,
        hidden_size: int,
        cell: str = "gru",
        num_layers: int = 1,
        dropout: float = 0.0,
        pad_index: int = 0,
    ) -> None:
        super().__init__(
            vocab_size, embedding_dim, embedding_dim, hidden_size, cell, num_layers, dropout,
            pad_index,
        )  # fmt: skip
        self.output = nn.Linear(hidden_size, vocab_size)  # W_y, b_y

    def forward(
        self,
        tgt_in: Tensor,
        state: RecurrentDecoderState,
        memory: EncoderMemory,
        teacher_forcing: float = 1.0,
    ) -> tuple[Tensor, None]:
        """Logits ``[B, T, V]`` for ``tgt_in [B, T]``. Under full teacher forcing every input
        y_{t-1} is known in advance, so the recurrent network reads the whole target in one
        call, which computes what :meth:`advance` computes step by step (fewer, larger
        operations); otherwise the step loop feeds back the model's guesses."""
        if teacher_forcing < 1:
            logits, _ = super().forward(tgt_in, state, memory, teacher_forcing)
            return logits, None
        embedded = self.dropout(self.embedding(tgt_in))
        outputs, _ = self.recurrent(embedded, layer_first_state(state.hidden))
        return self.output(self.dropout(outputs)), None

    def advance(
        self, tokens: Tensor, state: RecurrentDecoderState, memory: EncoderMemory
    ) -> tuple[Tensor, RecurrentDecoderState, None]:
        """s_t = RNN(s_{t-1}, E y_{t-1}); logits = W_y s_t + b_y."""
        embedded = self.dropout(self.embedding(tokens))
        outputs, hidden = self.recurrent(embedded.unsqueeze(1), layer_first_state(state.hidden))
        logits = self.output(self.dropout(outputs[:, 0]))
        return logits, RecurrentDecoderState(batch_first_state(hidden), None, state.step + 1), None
