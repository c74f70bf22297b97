"""Text classifiers: a recurrent one and a bag-of-words baseline (Chapter 3, LSTM and GRU).

Both read a padded batch ``tokens [B, T]`` with the true ``lengths [B]`` (a
:class:`coursekit.text.ClassificationBatch`) and return class logits ``[B, C]``; the padding
never changes a prediction. The recurrent classifier reads the words in order, so it can learn
that "not" flips what follows; the bag of words averages them and cannot.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor, nn

from coursekit.models.recurrent.factory import recurrent_layer
from coursekit.models.token_ids import require_token_ids
from coursekit.text.masks import padding_mask


def require_lengths(lengths: Tensor | Sequence[int], tokens: Tensor) -> Tensor:
    """The lengths as a LongTensor ``[B]`` on the tokens' device, each in ``1 .. T``."""
    lengths = torch.as_tensor(lengths, dtype=torch.long, device=tokens.device)
    batch_size, max_len = tokens.shape
    if lengths.shape != (batch_size,):
        raise ValueError(
            f"lengths must have one entry per sequence, shape [{batch_size}], "
            f"got shape {tuple(lengths.shape)}"
        )
    if batch_size and not 1 <= int(lengths.min()) <= int(lengths.max()) <= max_len:
        raise ValueError(
            f"every length must be between 1 and the padded length T={max_len}, "
            f"got {lengths.tolist()}"
        )
    return lengths


class RecurrentClassifier(nn.Module):
    """Classify a text from the recurrent network's final state (Chapter 3, LSTM and GRU).

    For a text x_1..x_n (n = its own length, padding excluded) the top layer's final state is
    h = H_n, or h = [H_n (forward) ; H_1 (backward)] when ``bidirectional``, since the backward
    direction reads the text from x_n back to x_1; then ``logits = W h + b``. ``cell`` is
    ``"rnn"``, ``"lstm"`` or ``"gru"``; dropout acts on the embeddings, between stacked layers
    and on h.
    """

    def __init__(
        self,
        vocab_size: int,
        embedding_dim: int,
        hidden_size: int,
        num_classes: int,
        cell: str = "lstm",
        num_layers: int = 1,
        bidirectional: bool = False,
        dropout: float = 0.0,
        pad_index: int = 0,
    ) -> None:
        super().__init__()
        self.vocab_size = vocab_size
        self.num_layers = num_layers
        self.num_directions = 2 if bidirectional else 1
        self.embedding = nn.Embedding(vocab_size, embedding_dim, padding_idx=pad_index)
        self.recurrent = recurrent_layer(
            cell, embedding_dim, hidden_size, num_layers, dropout, bidirectional
        )
        self.dropout = nn.Dropout(dropout)
        self.output = nn.Linear(self.num_directions * hidden_size, num_classes)

    def forward(self, tokens: Tensor, lengths: Tensor | Sequence[int]) -> Tensor:
        """Logits ``[B, C]`` for ``tokens [B, T]`` padded after each text's ``lengths [B]``."""
        require_token_ids(tokens, self.vocab_size)
        lengths = require_lengths(lengths, tokens)
        embedded = self.dropout(self.embedding(tokens))
        _, state = self.recurrent(embedded, lengths=lengths)
        final_hidden = state[0] if isinstance(state, tuple) else state  # an LSTM gives (H, C)
        batch_size = tokens.shape[0]
        per_layer = final_hidden.view(self.num_layers, self.num_directions, batch_size, -1)
        top_layer = per_layer[-1]  # [D, B, H]: forward, then backward
        features = top_layer.transpose(0, 1).reshape(batch_size, -1)
        return self.output(self.dropout(features))


class BagOfWordsClassifier(nn.Module):
    """Average the word embeddings, then a linear layer (Chapter 3's baseline).

    For a text x_1..x_n: ``v = (1/n) sum_{t=1..n} E[x_t]`` and ``logits = W v + b``. Word order
    is lost: any permutation of the words gives the same prediction.
    """

    def __init__(
        self, vocab_size: int, num_classes: int, embedding_dim: int = 64, pad_index: int = 0
    ) -> None:
        super().__init__()
        self.vocab_size = vocab_size
        self.embedding = nn.Embedding(vocab_size, embedding_dim, padding_idx=pad_index)
        self.output = nn.Linear(embedding_dim, num_classes)

    def forward(self, tokens: Tensor, lengths: Tensor | Sequence[int]) -> Tensor:
        """Logits ``[B, C]`` for ``tokens [B, T]`` padded after each text's ``lengths [B]``."""
        require_token_ids(tokens, self.vocab_size)
        lengths = require_lengths(lengths, tokens)
        is_word = ~padding_mask(lengths, max_len=tokens.shape[1])
        summed = (self.embedding(tokens) * is_word.unsqueeze(-1)).sum(dim=1)
        return self.output(summed / lengths.unsqueeze(-1))
