"""Pointer networks (Vinyals et al., 2015): attention that points at an input position
(Chapter 4, Seq2seq and attention).

Sorting, copying or the convex hull output positions of the input, so the output vocabulary is
the input itself and changes with every example. A pointer network uses the attention
distribution over the input positions as its output distribution:

    u^i_j = v^T tanh(W_1 e_j + W_2 d_i),   P(C_i = j | C_<i, x) = softmax_j(u^i)   (j < n),

where e_1..e_n are the encoder states, d_i the decoder state at output step i, and the decoder
reads the input chosen at the previous step, x_{C_{i-1}}.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from coursekit.data.records import SequencePair
from coursekit.models.recurrent.classifier import require_lengths
from coursekit.models.recurrent.factory import recurrent_layer
from coursekit.models.recurrent.network import HiddenState
from coursekit.models.seq2seq.attention import AdditiveAttention
from coursekit.models.token_ids import require_token_ids
from coursekit.text.masks import padding_mask
from coursekit.text.padding import pad_batch

IGNORE_POSITION = -100  # target positions past a sequence's end (F.nll_loss's ignore_index)


def pointer_targets(source: Sequence[int], target: Sequence[int]) -> list[int]:
    """The positions C_1..C_m with target[i] = source[C_i], each source position used once
    (the earliest unused occurrence of a repeated token: a stable sort for ``sort``).
    """
    unused: dict[int, list[int]] = {}
    for position, token in enumerate(source):
        unused.setdefault(token, []).append(position)
    try:
        return [unused[token].pop(0) for token in target]
    except (KeyError, IndexError):
        raise ValueError(
            f"the target {list(target)} is not made of the source's tokens {list(source)}: a "
            "pointer network can only output positions of its input"
        ) from None


def collate_pointer_pairs(
    pairs: Sequence[SequencePair], pad_index: int = 0
) -> tuple[Tensor, Tensor, Tensor]:
    """Batch ``SequencePair``s (``copy``, ``reverse``, ``sort``) for a pointer network:
    ``src [B, S]`` padded with ``pad_index``, ``lengths [B]`` and the target positions
    ``[B, T]`` (see :func:`pointer_targets`), padded with ``IGNORE_POSITION``.
    """
    src, lengths = pad_batch([pair.source for pair in pairs], padding_value=pad_index)
    positions, _ = pad_batch(
        [pointer_targets(pair.source, pair.target) for pair in pairs],
        padding_value=IGNORE_POSITION,
    )
    return src, lengths, positions


def pointer_loss(log_probs: Tensor, target_positions: Tensor) -> Tensor:
    """-mean_i log P(C_i = c*_i | c*_<i, x) over the real output steps (Chapter 4);
    ``log_probs [B, T, S]``, ``target_positions [B, T]`` with ``IGNORE_POSITION`` on padding.
    """
    return F.nll_loss(
        log_probs.flatten(0, 1), target_positions.flatten(), ignore_index=IGNORE_POSITION
    )


class PointerNetwork(nn.Module):
    """A pointer network (Vinyals et al., 2015; Chapter 4) with a coursekit LSTM (or GRU)
    encoder and decoder:

        e_1..e_n = RNN(E x_1, .., E x_n),   d_i = RNN(d_{i-1}, E x_{C_{i-1}})  (d_0 = e_n's state,
        the first input a learned start vector),
        u^i_j = v^T tanh(W_1 e_j + W_2 d_i),   P(C_i = j | C_<i, x) = softmax_j(u^i) over j < n.
    """

    def __init__(
        self, vocab_size: int, embedding_dim: int, hidden_size: int, cell: str = "lstm"
    ) -> None:
        super().__init__()
        self.vocab_size = vocab_size
        self.embedding = nn.Embedding(vocab_size, embedding_dim)
        self.start = nn.Parameter(torch.zeros(embedding_dim))
        self.encoder = recurrent_layer(cell, embedding_dim, hidden_size)
        self.decoder = recurrent_layer(cell, embedding_dim, hidden_size)
        # u^i_j = v^T tanh(W_2 d_i + W_1 e_j): queries d_i, keys e_j
        self.pointer = AdditiveAttention(hidden_size, hidden_size, hidden_size)

    def point(self, decoder_states: Tensor, encoder_states: Tensor, padding: Tensor) -> Tensor:
        """log P(C_i = j) = log_softmax_j(u^i) ``[B, T, S]``, u^i_j = v^T tanh(W_1 e_j + W_2 d_i),
        with padding positions at probability 0.
        """
        scores = self.pointer.score(decoder_states, encoder_states)
        return scores.masked_fill(padding.unsqueeze(1), -torch.inf).log_softmax(dim=-1)

    def encode(self, src: Tensor, lengths: Tensor) -> tuple[Tensor, Tensor, Tensor, HiddenState]:
        """Embedded inputs ``[B, S, E]``, encoder states ``[B, S, H]``, padding, final state."""
        require_token_ids(src, self.vocab_size)
        lengths = require_lengths(lengths, src)
        embedded = self.embedding(src)
        encoder_states, final = self.encoder(embedded, lengths=lengths)
        return embedded, encoder_states, padding_mask(lengths, max_len=src.shape[1]), final

    def forward(self, src: Tensor, lengths: Tensor, target_positions: Tensor) -> Tensor:
        """log P(C_i = j | c*_<i, x) ``[B, T, S]`` with teacher forcing: the decoder reads the
        inputs at the true previous positions ``target_positions [B, T]``.
        """
        embedded, encoder_states, padding, final = self.encode(src, lengths)
        previous = target_positions[:, :-1].clamp(min=0)  # padding steps point anywhere
        chosen = embedded.gather(1, previous.unsqueeze(-1).expand(-1, -1, embedded.shape[-1]))
        start = self.start.expand(src.shape[0], 1, -1)
        decoder_states, _ = self.decoder(torch.cat([start, chosen], dim=1), final)
        return self.point(decoder_states, encoder_states, padding)

    @torch.no_grad()
    def decode(self, src: Tensor, lengths: Tensor) -> list[list[int]]:
        """Greedy decoding over positions: C_i = argmax_j P(C_i = j | C_<i, x), for as many
        steps as each input has tokens (the output length of copy, reverse and sort).
        """
        embedded, encoder_states, padding, state = self.encode(src, lengths)
        inputs = self.start.expand(src.shape[0], 1, -1)
        chosen = []
        for _ in range(src.shape[1]):
            decoder_states, state = self.decoder(inputs, state)
            positions = self.point(decoder_states, encoder_states, padding).argmax(dim=-1)
            chosen.append(positions[:, 0])
            inputs = embedded.gather(1, positions.unsqueeze(-1).expand(-1, -1, inputs.shape[-1]))
        rows = torch.stack(chosen, dim=1).tolist()
        real_lengths = (~padding).sum(dim=1).tolist()
        return [row[:length] for row, length in zip(rows, real_lengths, strict=True)]
