"""Decoders with attention: Bahdanau's and Luong's (Chapter 4, Seq2seq and attention).

Both look at every encoder state h_1..h_S at every step through an attention module (any module of
:mod:`coursekit.models.seq2seq.attention`, or :class:`~coursekit.models.seq2seq.local_attention.
LocalAttention`), with the encoder states as keys and values. They differ in when they look and
what they do with the context c_t:

    Bahdanau:  e_{t,i} = a(s_{t-1}, h_i),   c_t = sum_i alpha_{t,i} h_i,
               s_t = RNN(s_{t-1}, [E y_{t-1}; c_t]),
               P(y_t | y_<t, x) = softmax(W_o [s_t; c_t; E y_{t-1}])
    Luong:     s_t = RNN(s_{t-1}, [E y_{t-1}; s~_{t-1}]),   e_{t,i} = score(s_t, h_i),
               c_t = sum_i alpha_{t,i} h_i,   s~_t = tanh(W_c [c_t; s_t]),
               P(y_t | y_<t, x) = softmax(W_y s~_t)

Luong's [E y_{t-1}; s~_{t-1}] is input feeding: the previous attentional state tells the
network what it attended to before.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from coursekit.models.recurrent.network import HiddenState
from coursekit.models.seq2seq.attention import Attention
from coursekit.models.seq2seq.encoder_decoder import (
    EncoderMemory,
    RecurrentDecoder,
    RecurrentDecoderState,
    top_layer,
)
from coursekit.models.seq2seq.local_attention import LocalAttention


def attend(
    attention: Attention, query: Tensor, memory: EncoderMemory, step: Tensor
) -> tuple[Tensor, Tensor]:
    """Context ``[N, D]`` and weights ``[N, S]`` of one query ``[N, H]`` over the memory, keys =
    values = the encoder states; monotonic local attention also gets the target step t.
    """
    if isinstance(attention, LocalAttention):
        return attention(query, memory.states, memory.states, memory.padding_mask, step=step)
    return attention(query, memory.states, memory.states, memory.padding_mask)


class BahdanauDecoder(RecurrentDecoder):
    """Bahdanau et al. (2015), "jointly learning to align and translate" (Chapter 4):

        alpha_t = softmax_i a(s_{t-1}, h_i),   c_t = sum_i alpha_{t,i} h_i,
        s_t = RNN(s_{t-1}, [E y_{t-1}; c_t]),
        P(y_t | y_<t, x) = softmax(W_o [s_t; c_t; E y_{t-1}] + b_o).

    The scores use the previous state s_{t-1} (the top layer's). ``context_size`` is the size of
    the encoder states (2H for a bidirectional encoder); the paper's score is
    :class:`~coursekit.models.seq2seq.attention.AdditiveAttention`, and its deep maxout output
    layer is simplified here to one linear layer over the same three inputs.
    """

    def __init__(
        self,
        vocab_size: int,
        embedding_dim: int,
        hidden_size: int,
        context_size: int,
        attention: Attention,
        cell: str = "gru",
        num_layers: int = 1,
        dropout: float = 0.0,
        pad_index: int = 0,
    ) -> None:
        super().__init__(
            vocab_size, embedding_dim, embedding_dim + context_size, hidden_size, cell,
            num_layers, dropout, pad_index,
        )  # fmt: skip
        self.attention = attention
        self.output = nn.Linear(hidden_size + context_size + embedding_dim, vocab_size)  # W_o

    def advance(
        self, tokens: Tensor, state: RecurrentDecoderState, memory: EncoderMemory
    ) -> tuple[Tensor, RecurrentDecoderState, Tensor]:
        """One step of Bahdanau's decoder: attend with s_{t-1}, then update the state."""
        previous_word = self.dropout(self.embedding(tokens))  # E y_{t-1}
        context, weights = attend(self.attention, top_layer(state.hidden), memory, state.step)
        s_t, hidden = self.run_recurrent(torch.cat([previous_word, context], -1), state.hidden)
        logits = self.output(self.dropout(torch.cat([s_t, context, previous_word], -1)))
        return logits, RecurrentDecoderState(hidden, None, state.step + 1), weights


class LuongDecoder(RecurrentDecoder):
    """Luong et al. (2015), "effective approaches to attention-based NMT" (Chapter 4):

        s_t = RNN(s_{t-1}, [E y_{t-1}; s~_{t-1}]),   alpha_t = softmax_i score(s_t, h_i),
        c_t = sum_i alpha_{t,i} h_i,   s~_t = tanh(W_c [c_t; s_t]),
        P(y_t | y_<t, x) = softmax(W_y s~_t + b_y).

    The scores use the current state s_t (the top layer's); s~_0 = 0. With
    ``input_feeding=False`` the input is E y_{t-1} alone. Luong's scores are dot, general and
    concat (:mod:`coursekit.models.seq2seq.attention`), global or local
    (:class:`~coursekit.models.seq2seq.local_attention.LocalAttention`).
    """

    def __init__(
        self,
        vocab_size: int,
        embedding_dim: int,
        hidden_size: int,
        context_size: int,
        attention: Attention,
        cell: str = "gru",
        num_layers: int = 1,
        dropout: float = 0.0,
        pad_index: int = 0,
        input_feeding: bool = True,
    ) -> None:
        feeding_size = hidden_size if input_feeding else 0
        super().__init__(
            vocab_size, embedding_dim, embedding_dim + feeding_size, hidden_size, cell,
            num_layers, dropout, pad_index,
        )  # fmt: skip
        self.attention = attention
        self.input_feeding = input_feeding
        self.combine = nn.Linear(context_size + hidden_size, hidden_size, bias=False)  # W_c
        self.output = nn.Linear(hidden_size, vocab_size)  # W_y

    def initial_state(self, hidden: HiddenState) -> RecurrentDecoderState:
        """s_0 from the bridge and, with input feeding, s~_0 = 0."""
        state = super().initial_state(hidden)
        if not self.input_feeding:
            return state
        return state._replace(feed=torch.zeros_like(top_layer(hidden)))

    def advance(
        self, tokens: Tensor, state: RecurrentDecoderState, memory: EncoderMemory
    ) -> tuple[Tensor, RecurrentDecoderState, Tensor]:
        """One step of Luong's decoder: update the state, then attend with s_t."""
        inputs = self.dropout(self.embedding(tokens))  # E y_{t-1}
        if self.input_feeding:
            assert state.feed is not None  # input feeding starts from zeros, never None
            inputs = torch.cat([inputs, state.feed], dim=-1)
        s_t, hidden = self.run_recurrent(inputs, state.hidden)
        context, weights = attend(self.attention, s_t, memory, state.step)
        attentional = torch.tanh(self.combine(torch.cat([context, s_t], dim=-1)))  # s~_t
        logits = self.output(self.dropout(attentional))
        feed = attentional if self.input_feeding else None
        return logits, RecurrentDecoderState(hidden, feed, state.step + 1), weights
