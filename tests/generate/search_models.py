"""Small conditional models for the search tests: random recurrent models whose state is a
tensor or a nested tuple, and a hand-made Markov chain with known probabilities.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator

import torch
from torch import Tensor

from coursekit.generate import NestedTensors


class RandomRecurrentModel:
    """P(y_t | y_<t, x) from a GRU or LSTM cell over the previous token, started from a random
    per-input state; the LSTM's state is nested, ((h, c), [memory]), and the memory (one row per
    input) shifts the logits, so reordering a part of the state wrongly changes the results.
    """

    def __init__(self, vocab_size: int, hidden_size: int, seed: int, lstm: bool = False) -> None:
        self.generator = torch.Generator().manual_seed(seed)
        self.vocab_size, self.hidden_size, self.lstm = vocab_size, hidden_size, lstm
        torch.manual_seed(seed)
        cell = torch.nn.LSTMCell if lstm else torch.nn.GRUCell
        self.cell = cell(hidden_size, hidden_size).double()
        self.embedding = self.random(vocab_size, hidden_size)
        self.output = 2 * self.random(hidden_size, vocab_size)

    def random(self, *shape: int) -> Tensor:
        return torch.randn(*shape, generator=self.generator, dtype=torch.float64)

    def initial_state(self, batch_size: int) -> NestedTensors:
        hidden = self.random(batch_size, self.hidden_size)
        if not self.lstm:
            return hidden
        return ((hidden, self.random(batch_size, self.hidden_size)), [self.random(batch_size, 3)])

    @torch.no_grad()
    def step(self, tokens: Tensor, state: NestedTensors) -> tuple[Tensor, NestedTensors]:
        inputs = self.embedding[tokens]
        if self.lstm:
            (hidden, cell), (memory,) = state
            hidden, cell = self.cell(inputs, (hidden, cell))
            logits = hidden @ self.output + memory.sum(-1, keepdim=True) * self.output[0]
            return torch.log_softmax(logits, -1), ((hidden, cell), [memory])
        hidden = self.cell(inputs, state)
        return torch.log_softmax(hidden @ self.output, -1), hidden


def select_row(state: NestedTensors, row: int) -> NestedTensors:
    """Row ``row`` of every tensor of a nested state, kept as a batch of one."""
    if isinstance(state, Tensor):
        return state[row : row + 1]
    return type(state)(select_row(part, row) for part in state)


def sequence_log_prob(model, state: NestedTensors, bos: int, tokens: list[int]) -> float:
    """log P(tokens | x) by teacher forcing: feed bos, tokens[0], ... and add the log-probs."""
    total, previous = 0.0, bos
    for token in tokens:
        log_probs, state = model.step(torch.tensor([previous]), state)
        total += float(log_probs[0, token])
        previous = token
    return total


def all_outputs(vocab_size: int, eos: int, max_len: int) -> Iterator[list[int]]:
    """Every output a search can return: ending with eos (eos nowhere else), or max_len tokens
    without eos.
    """
    others = [token for token in range(vocab_size) if token != eos]
    for length in range(1, max_len + 1):
        for prefix in itertools.product(others, repeat=length - 1):
            yield [*prefix, eos]
    yield from (list(tokens) for tokens in itertools.product(others, repeat=max_len))


def gnmt_score(log_prob: float, length: int, alpha: float) -> float:
    """GNMT's normalised score, log P / ((5 + |Y|) / 6) ** alpha, written out independently."""
    return log_prob / ((5 + length) / 6) ** alpha


class MarkovChain:
    """P(next | previous token) from a fixed table: tokens 0 = bos (also "a"), 1 = eos, 2 = "b".
    From bos: eos or "b" with probability 1/2 each; from "b": "b" 0.9, eos 0.1. So [eos] has
    the largest probability but long runs of "b" cost little per token.
    """

    table = torch.tensor(
        [[0.0, 0.5, 0.5], [0.0, 1.0, 0.0], [0.0, 0.1, 0.9]], dtype=torch.float64
    ).log()

    def __init__(self) -> None:
        self.calls: list[int] = []

    def step(self, tokens: Tensor, state: Tensor) -> tuple[Tensor, Tensor]:
        self.calls.append(tokens.shape[0])
        return self.table[tokens], state


def log(probability: float) -> float:
    return math.log(probability)
