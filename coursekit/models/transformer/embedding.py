"""The input of a Transformer: token embeddings scaled by sqrt(d_model) plus positions
(Chapter 5, Transformers).

The paper multiplies the embedding E[x] of each token by sqrt(d_model) and adds the positional
encoding; dropout (0.1) then acts on the sum:

    h_0 = Dropout(sqrt(d_model) E[x_t] + PE(t)).

The embeddings start as N(0, 1/d_model), so the scaled ones have unit variance, the scale of
the positional encodings (as in fairseq and tensor2tensor); the matrix E can be shared with the
output layer (weight tying), whose logits are then h E^T.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from coursekit.arguments import require_dropout_probability, require_positive_int
from coursekit.models.transformer.positional_encoding import positional_encoding


class TokenEmbedding(nn.Module):
    """``sqrt(d_model) E[x]`` for token ids x (Chapter 5): the paper's scaled embedding.

    ``weight`` (E) is ``[vocab_size, d_model]``, drawn from N(0, 1/d_model); the row of
    ``padding_idx``, if given, starts at zero and gets no gradient, as in ``nn.Embedding``.
    """

    def __init__(self, vocab_size: int, d_model: int, padding_idx: int | None = None) -> None:
        super().__init__()
        require_positive_int("vocab_size", vocab_size)
        require_positive_int("d_model", d_model)
        self.vocab_size, self.d_model, self.padding_idx = vocab_size, d_model, padding_idx
        self.weight = nn.Parameter(torch.empty(vocab_size, d_model))
        nn.init.normal_(self.weight, std=d_model**-0.5)
        if padding_idx is not None:
            with torch.no_grad():
                self.weight[padding_idx].zero_()

    def extra_repr(self) -> str:
        return f"{self.vocab_size}, {self.d_model}, padding_idx={self.padding_idx}"

    def forward(self, tokens: Tensor) -> Tensor:
        """``sqrt(d_model) E[tokens]``: ``[...] -> [..., d_model]``."""
        return F.embedding(tokens, self.weight, self.padding_idx) * math.sqrt(self.d_model)


class TransformerEmbedding(nn.Module):
    """``h_0 = Dropout(sqrt(d_model) E[x_t] + PE(t))``: the input stage of every Transformer
    model of the course (Chapter 5).

    ``positional`` is "sinusoidal" (the paper's fixed encoding) or "learned" (one vector per
    position up to ``max_len``). ``forward(tokens [B, T], offset=0)`` returns ``[B, T, d_model]``
    for tokens at positions ``offset .. offset + T - 1``.
    """

    def __init__(
        self,
        vocab_size: int,
        d_model: int,
        max_len: int,
        positional: str = "sinusoidal",
        dropout: float = 0.0,
        padding_idx: int | None = None,
    ) -> None:
        super().__init__()
        require_dropout_probability("dropout", dropout)
        self.token = TokenEmbedding(vocab_size, d_model, padding_idx)
        self.position = positional_encoding(positional, d_model, max_len)
        self.dropout = nn.Dropout(dropout)

    def forward(self, tokens: Tensor, offset: int = 0) -> Tensor:
        """``Dropout(sqrt(d_model) E[tokens] + PE(offset ..))``."""
        return self.dropout(self.position(self.token(tokens), offset))
