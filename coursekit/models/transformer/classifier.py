"""A Transformer text classifier: an encoder and max-pooling over time (Chapter 5,
Transformers).

The encoder turns the tokens of a text into one vector per position; the classifier keeps, for
each feature, its largest value over the real (non-padding) positions, and a linear layer maps
that vector to class logits:

    H = Encoder(Dropout(sqrt(d) E[x] + P)),   v_k = max_{t <= n} H[t, k],   logits = W v + b.

Padding is masked out twice: no position attends to it, and it never wins the max.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from torch import Tensor, nn

from coursekit.models.recurrent.classifier import require_lengths
from coursekit.models.token_ids import require_token_ids
from coursekit.models.transformer.embedding import TransformerEmbedding
from coursekit.models.transformer.layers import TransformerEncoderLayer
from coursekit.models.transformer.model import TransformerEncoder
from coursekit.text.masks import padding_mask


class TransformerClassifier(nn.Module):
    """``logits = W max_t Encoder(h_0)[t] + b`` over the non-padding positions (Chapter 5).

    The default sizes are those of the sources' IMDB classifier: 1 layer, d_model 32, 2 heads,
    FFN 128. The sources' model differs in three ways: it adds the fixed sinusoidal encoding
    (``positional="sinusoidal"`` here; the default learns one vector per position up to
    ``max_len``, 200) followed by a LayerNorm, which this class does not add, and it max-pools
    over every position, padding included, where this class skips the padding.
    ``forward(tokens [B, T], lengths [B]) -> logits [B, C]``, like
    :class:`coursekit.models.recurrent.classifier.RecurrentClassifier`; padding never changes a
    prediction.
    """

    def __init__(
        self,
        vocab_size: int,
        num_classes: int,
        d_model: int = 32,
        nhead: int = 2,
        num_layers: int = 1,
        dim_feedforward: int = 128,
        dropout: float = 0.1,
        max_len: int = 200,
        positional: str = "learned",
        norm_first: bool = False,
        pad_index: int = 0,
    ) -> None:
        super().__init__()
        self.vocab_size = vocab_size
        self.embedding = TransformerEmbedding(
            vocab_size, d_model, max_len, positional, dropout, padding_idx=pad_index
        )
        layer = TransformerEncoderLayer(
            d_model, nhead, dim_feedforward, dropout, batch_first=True, norm_first=norm_first
        )
        self.encoder = TransformerEncoder(layer, num_layers)
        self.dropout = nn.Dropout(dropout)
        self.output = nn.Linear(d_model, num_classes)

    def forward(self, tokens: Tensor, lengths: Tensor | Sequence[int]) -> Tensor:
        """Logits ``[B, C]`` for ``tokens [B, T]`` padded after each text's ``lengths [B]``."""
        require_token_ids(tokens, self.vocab_size)
        lengths = require_lengths(lengths, tokens)
        is_padding = padding_mask(lengths, max_len=tokens.shape[1])
        hidden = self.encoder(self.embedding(tokens), src_key_padding_mask=is_padding)
        pooled = hidden.masked_fill(is_padding.unsqueeze(-1), -math.inf).amax(dim=1)
        return self.output(self.dropout(pooled))
