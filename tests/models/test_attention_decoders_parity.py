"""Bahdanau's and Luong's decoders equal their equations written with ``torch.nn.GRU``/``LSTM``
and einsum, in float64: logits, attention weights and the gradients of every parameter, of the
encoder memory and of the initial state, over depths, cells and padded memories.
"""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from torch import Tensor, nn

from coursekit.models import GRU, LSTM
from coursekit.models.seq2seq.attention import AdditiveAttention, GeneralAttention
from coursekit.models.seq2seq.decoders import BahdanauDecoder, LuongDecoder
from coursekit.models.seq2seq.encoder_decoder import EncoderMemory
from coursekit.text.masks import padding_mask

VOCAB, EMBEDDING, HIDDEN, CONTEXT, BATCH, SOURCE, STEPS = 9, 4, 5, 6, 3, 5, 4
LENGTHS = [5, 2, 4]


def attention_weights(scores: Tensor, mask: Tensor) -> Tensor:
    return torch.softmax(scores.masked_fill(mask, -math.inf), dim=-1)


def bahdanau_reference(decoder, twin, tokens, hidden, states, mask):
    """alpha_t = softmax v^T tanh(W_q s_{t-1} + W_k h_i); s_t = RNN(s_{t-1}, [E y; c_t]);
    logits = W_o [s_t; c_t; E y] + b_o, the RNN being torch's own.
    """
    attention = decoder.attention
    logits, weights = [], []
    for t in range(tokens.shape[1]):
        word = F.embedding(tokens[:, t], decoder.embedding.weight, padding_idx=0)
        top = (hidden[0] if isinstance(hidden, tuple) else hidden)[-1]
        energy = torch.tanh(
            torch.einsum("hq,bq->bh", attention.query_projection.weight, top)[:, None]
            + torch.einsum("hk,bsk->bsh", attention.key_projection.weight, states)
        )
        alpha = attention_weights(
            torch.einsum("h,bsh->bs", attention.energy.weight[0], energy), mask
        )
        context = torch.einsum("bs,bsk->bk", alpha, states)
        output, hidden = twin(torch.cat([word, context], -1)[:, None], hidden)
        logits.append(
            F.linear(
                torch.cat([output[:, 0], context, word], -1),
                decoder.output.weight,
                decoder.output.bias,
            )
        )
        weights.append(alpha)
    return torch.stack(logits, 1), torch.stack(weights, 1)


def luong_reference(decoder, twin, tokens, hidden, states, mask):
    """s_t = RNN(s_{t-1}, [E y; s~_{t-1}]); alpha_t = softmax s_t^T W_a h_i;
    s~_t = tanh(W_c [c_t; s_t]); logits = W_y s~_t + b_y, the RNN being torch's own.
    """
    feed = torch.zeros(tokens.shape[0], HIDDEN, dtype=torch.float64)
    logits, weights = [], []
    for t in range(tokens.shape[1]):
        word = F.embedding(tokens[:, t], decoder.embedding.weight, padding_idx=0)
        output, hidden = twin(torch.cat([word, feed], -1)[:, None], hidden)
        s_t = output[:, 0]
        scores = torch.einsum("bq,qk,bsk->bs", s_t, decoder.attention.key_projection.weight, states)
        alpha = attention_weights(scores, mask)
        context = torch.einsum("bs,bsk->bk", alpha, states)
        feed = torch.tanh(F.linear(torch.cat([context, s_t], -1), decoder.combine.weight))
        logits.append(F.linear(feed, decoder.output.weight, decoder.output.bias))
        weights.append(alpha)
    return torch.stack(logits, 1), torch.stack(weights, 1)


def build(kind: str, cell: str, num_layers: int):
    """Our decoder, float64, with its recurrent network copied from a torch twin."""
    torch.manual_seed(0)
    if kind == "bahdanau":
        attention = AdditiveAttention(HIDDEN, CONTEXT, 3)
        decoder = BahdanauDecoder(VOCAB, EMBEDDING, HIDDEN, CONTEXT, attention, cell, num_layers)
        input_size = EMBEDDING + CONTEXT
    else:
        attention = GeneralAttention(HIDDEN, CONTEXT)
        decoder = LuongDecoder(VOCAB, EMBEDDING, HIDDEN, CONTEXT, attention, cell, num_layers)
        input_size = EMBEDDING + HIDDEN
    twin_class, ours_class = (nn.LSTM, LSTM) if cell == "lstm" else (nn.GRU, GRU)
    twin = twin_class(input_size, HIDDEN, num_layers, batch_first=True).double()
    decoder.recurrent = ours_class.from_torch(twin)
    return decoder.double(), twin


@pytest.mark.parametrize("num_layers", [1, 2])
@pytest.mark.parametrize("cell", ["gru", "lstm"])
@pytest.mark.parametrize("kind", ["bahdanau", "luong"])
def test_decoder_equals_its_equations_with_torch_recurrent_layers(
    kind: str, cell: str, num_layers: int
) -> None:
    decoder, twin = build(kind, cell, num_layers)
    generator = torch.Generator().manual_seed(1)
    states = torch.randn(BATCH, SOURCE, CONTEXT, generator=generator, dtype=torch.float64)
    mask = padding_mask(LENGTHS)
    states = states.masked_fill(mask[..., None], 0.0).requires_grad_()
    layer_first = [
        torch.randn(
            num_layers, BATCH, HIDDEN, generator=generator, dtype=torch.float64
        ).requires_grad_()
        for _ in range(2 if cell == "lstm" else 1)
    ]
    hidden = tuple(layer_first) if cell == "lstm" else layer_first[0]
    batch_first = tuple(h.transpose(0, 1) for h in layer_first)
    tokens = torch.randint(0, VOCAB, (BATCH, STEPS), generator=generator)

    state = decoder.initial_state(batch_first if cell == "lstm" else batch_first[0])
    logits, weights = decoder(tokens, state, EncoderMemory(states, mask))
    reference = bahdanau_reference if kind == "bahdanau" else luong_reference
    reference_logits, reference_weights = reference(decoder, twin, tokens, hidden, states, mask)
    torch.testing.assert_close(logits, reference_logits)
    torch.testing.assert_close(weights, reference_weights)

    ours = {
        f"decoder.{name}": p
        for name, p in decoder.named_parameters()
        if not name.startswith("recurrent.")
    }
    ours |= {f"rnn.{name}": p for name, p in decoder.recurrent.named_parameters()}
    theirs = {name: p for name, p in ours.items() if not name.startswith("rnn.")}
    theirs |= {f"rnn.{name}": p for name, p in twin.named_parameters()}
    inputs = {"memory": states, **{f"initial_{i}": h for i, h in enumerate(layer_first)}}
    weighting = torch.randn(logits.shape, generator=generator, dtype=torch.float64)
    our_grads = torch.autograd.grad((logits * weighting).sum(), [*ours.values(), *inputs.values()])
    their_grads = torch.autograd.grad(
        (reference_logits * weighting).sum(), [*theirs.values(), *inputs.values()]
    )
    names = [*ours, *inputs]
    assert list(theirs) == list(ours)
    for name, ours_grad, theirs_grad in zip(names, our_grads, their_grads, strict=True):
        torch.testing.assert_close(ours_grad, theirs_grad, msg=name)
