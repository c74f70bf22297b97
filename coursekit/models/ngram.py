"""Count-based n-gram language models (Chapter 1, Text as sequences).

The chain rule factorises a sequence's probability exactly,

    P(x_1, ..., x_T) = prod_t P(x_t | x_1, ..., x_{t-1}),

and the Markov assumption of order n-1 keeps only the last n-1 tokens of the context,

    P(x_t | x_1, ..., x_{t-1}) ~= P(x_t | x_{t-n+1}, ..., x_{t-1}).

Estimated by counting with add-k (Laplace, k = 1) smoothing over a vocabulary V:

    P(w | c) = (count(c, w) + k) / (count(c) + k |V|).

n = 1 is the unigram model (no context), n = 2 the bigram model.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence

import torch

from coursekit.arguments import require_positive_int, require_positive_number

Context = tuple[int, ...]


class NGramLanguageModel:
    """An add-k smoothed n-gram model over token ids ``0 .. vocab_size - 1``.

    Every sequence is framed as ``[sos] * (n - 1) + tokens + [eos]``: the model predicts each
    token and the end of the sequence, never the start markers.
    """

    def __init__(
        self, order: int, vocab_size: int, sos_index: int, eos_index: int, add_k: float = 1.0
    ):
        require_positive_int("order", order)
        require_positive_number("add_k", add_k)
        if not (0 <= sos_index < vocab_size and 0 <= eos_index < vocab_size):
            raise ValueError(f"sos_index and eos_index must be ids below vocab_size={vocab_size}")
        self.order = order
        self.vocab_size = vocab_size
        self.sos_index = sos_index
        self.eos_index = eos_index
        self.add_k = add_k
        self.ngram_counts: Counter[tuple[Context, int]] = Counter()
        self.context_counts: Counter[Context] = Counter()

    def events(self, tokens: Sequence[int]) -> Iterable[tuple[Context, int]]:
        """The (context, next token) pairs of one framed sequence."""
        framed = [self.sos_index] * (self.order - 1) + list(tokens) + [self.eos_index]
        for t in range(self.order - 1, len(framed)):
            yield tuple(framed[t - self.order + 1 : t]), framed[t]

    def fit(self, sequences: Iterable[Sequence[int]]) -> NGramLanguageModel:
        """Count every n-gram and every context in the training sequences."""
        for tokens in sequences:
            for context, token in self.events(tokens):
                if not 0 <= token < self.vocab_size:
                    raise ValueError(
                        f"token id {token} is outside the vocabulary of size {self.vocab_size}"
                    )
                self.ngram_counts[context, token] += 1
                self.context_counts[context] += 1
        return self

    def probability(self, context: Sequence[int], token: int) -> float:
        """P(token | context) = (count(context, token) + k) / (count(context) + k |V|)."""
        context = tuple(context)[-(self.order - 1) :] if self.order > 1 else ()
        numerator = self.ngram_counts[context, token] + self.add_k
        return numerator / (self.context_counts[context] + self.add_k * self.vocab_size)

    def next_token_distribution(self, context: Sequence[int]) -> torch.Tensor:
        """The whole distribution P(. | context) as a float64 tensor of size |V| that sums to 1."""
        return torch.tensor(
            [self.probability(context, token) for token in range(self.vocab_size)],
            dtype=torch.float64,
        )

    def negative_log_likelihood(self, sequences: Iterable[Sequence[int]]) -> tuple[float, int]:
        """Total -log P over every predicted token, and how many tokens were predicted."""
        total, count = 0.0, 0
        for tokens in sequences:
            for context, token in self.events(tokens):
                total -= math.log(self.probability(context, token))
                count += 1
        return total, count

    def sample(self, max_tokens: int, generator: torch.Generator | None = None) -> list[int]:
        """Draw x_t ~ P(. | x_{t-n+1..t-1}) until ``eos`` or ``max_tokens`` tokens."""
        context = [self.sos_index] * (self.order - 1)
        tokens: list[int] = []
        while len(tokens) < max_tokens:
            distribution = self.next_token_distribution(context)
            token = int(torch.multinomial(distribution, 1, generator=generator))
            if token == self.eos_index:
                break
            tokens.append(token)
            context = (context + [token])[1:] if self.order > 1 else []
        return tokens
