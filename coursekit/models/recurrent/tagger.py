"""A sequence tagger: one label for every token (Chapter 3, LSTM and GRU).

The recurrent network reads the padded batch ``tokens [B, T]`` (with the true ``lengths [B]``)
and a linear layer classifies the state at every position,

    logits_t = W H_t + b,    H_t = [H_t (forward) ; H_t (backward)] when bidirectional,

so a unidirectional tagger decides at ``t`` from ``x_1..x_t`` and a bidirectional one from the
whole sequence. Positions past a sequence's length are padding; their logits are not meaningful.
"""

from __future__ import annotations

from collections.abc import Sequence

from torch import Tensor, nn

from coursekit.models.recurrent.classifier import require_lengths
from coursekit.models.recurrent.factory import recurrent_layer
from coursekit.models.token_ids import require_token_ids


class SequenceTagger(nn.Module):
    """Embedding, coursekit's recurrent network, a linear layer at every position: ``[B, T, C]``."""

    def __init__(
        self,
        vocab_size: int,
        embedding_dim: int,
        hidden_size: int,
        num_classes: int,
        cell: str = "lstm",
        bidirectional: bool = False,
        pad_index: int = 0,
    ) -> None:
        super().__init__()
        self.vocab_size = vocab_size
        self.embedding = nn.Embedding(vocab_size, embedding_dim, padding_idx=pad_index)
        self.recurrent = recurrent_layer(
            cell, embedding_dim, hidden_size, bidirectional=bidirectional
        )
        self.output = nn.Linear((2 if bidirectional else 1) * hidden_size, num_classes)

    def forward(self, tokens: Tensor, lengths: Tensor | Sequence[int]) -> Tensor:
        """Logits ``[B, T, C]`` for ``tokens [B, T]`` padded after each sequence's ``lengths``."""
        require_token_ids(tokens, self.vocab_size)
        states, _ = self.recurrent(self.embedding(tokens), lengths=require_lengths(lengths, tokens))
        return self.output(states)
