"""The recurrent network of a model, built by the name of its cell (Chapters 2 and 3).

The language model, the classifiers, the tagger and the encoder-decoder read a batch of token
ids ``[B, T]`` and run one of the course's own recurrent networks over its embeddings; the cell
is chosen by name, so one line of a chapter switches a model from a plain RNN (Chapter 2) to an
LSTM or a GRU (Chapter 3).
"""

from __future__ import annotations

from torch import nn

from coursekit.models.recurrent.network import GRU, LSTM, RNN, require_dropout

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

    ``cell="rnn"`` gives H_t = tanh(W_ih x_t + b_ih + W_hh H_{t-1} + b_hh) (Chapter 2); ``"lstm"``
    and ``"gru"`` the gated cells of Chapter 3. ``dropout`` acts between stacked layers, so a
    single layer, which has no layer above it inside the network, gets none; its value obeys the
    networks' rule (:func:`coursekit.models.recurrent.network.require_dropout`) either way.
    """
    if cell not in RECURRENT_LAYERS:
        raise ValueError(f"unknown cell {cell!r}: choose one of {sorted(RECURRENT_LAYERS)}")
    require_dropout(dropout)
    return RECURRENT_LAYERS[cell](
        input_size,
        hidden_size,
        num_layers=num_layers,
        dropout=dropout if num_layers > 1 else 0.0,
        bidirectional=bidirectional,
        batch_first=batch_first,
    )
