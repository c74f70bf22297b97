"""What the recurrent language model and classifiers share (Chapters 2 and 3).

Both wrappers read a batch of token ids ``[B, T]`` and run one of the course's own recurrent
networks over its embeddings; the cell is chosen by name, so one line of a chapter switches a
model from a plain RNN (Chapter 2) to an LSTM or a GRU (Chapter 3).
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from coursekit.models.recurrent import GRU, LSTM, RNN

RECURRENT_LAYERS: dict[str, type[nn.Module]] = {"rnn": RNN, "lstm": LSTM, "gru": GRU}


def recurrent_layer(
    cell: str,
    input_size: int,
    hidden_size: int,
    num_layers: int = 1,
    dropout: float = 0.0,
    bidirectional: bool = False,
    batch_first: bool = True,
) -> nn.Module:
    """Build coursekit's ``RNN``, ``LSTM`` or ``GRU`` by name (Chapters 2 and 3).

    ``cell="rnn"`` gives H_t = tanh(W_ih x_t + b_ih + W_hh H_{t-1} + b_hh) (Chapter 2);
    ``"lstm"`` and ``"gru"`` the gated cells of Chapter 3. ``dropout`` acts between stacked
    layers, so a single layer, which has no layer above it inside the network, gets none.
    """
    if cell not in RECURRENT_LAYERS:
        raise ValueError(f"unknown cell {cell!r}: choose one of {sorted(RECURRENT_LAYERS)}")
    if not 0.0 <= dropout < 1.0:
        raise ValueError(f"dropout is a probability in [0, 1), got {dropout}")
    return RECURRENT_LAYERS[cell](
        input_size,
        hidden_size,
        num_layers=num_layers,
        dropout=dropout if num_layers > 1 else 0.0,
        bidirectional=bidirectional,
        batch_first=batch_first,
    )


def check_token_ids(tokens: Tensor, vocab_size: int) -> None:
    """Reject anything but a ``[B, T]`` integer tensor of ids in ``0 .. vocab_size - 1``."""
    if tokens.dim() != 2 or tokens.dtype not in (torch.long, torch.int):
        raise ValueError(
            "tokens must be a [B, T] tensor of integer ids (batch first), got shape "
            f"{tuple(tokens.shape)} and dtype {tokens.dtype}; add a batch dimension with "
            "tokens.unsqueeze(0) for a single sequence"
        )
    if tokens.numel() and not 0 <= int(tokens.min()) <= int(tokens.max()) < vocab_size:
        raise ValueError(
            f"token ids must lie in 0 .. {vocab_size - 1} (the vocabulary size is {vocab_size}), "
            f"got ids from {int(tokens.min())} to {int(tokens.max())}"
        )
