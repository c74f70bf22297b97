"""Starting a gated network with its memory open (Chapter 3, LSTM and GRU).

At initialisation PyTorch draws every bias around 0, so each gate starts near sigma(0) = 1/2:
an LSTM keeps half of its memory C_{t-1} at every step (F_t = 1/2) and a GRU half of H_{t-1}
(Z_t = 1/2), and what was read k steps ago survives only as 2^-k. Biasing the gate that keeps
memory to ``b`` makes it start at sigma(b) instead (sigma(1) = 0.73), so that the gradient reaches
further back from the first step of training (Gers et al. 2000; Jozefowicz et al. 2015; Keras's
``unit_forget_bias``).
"""

from __future__ import annotations

from typing import cast

import torch
from torch import nn

#: Where the keep gate sits in the stacked biases: the LSTM's order is i, f, g, o and the GRU's
#: r, z, n, so the forget gate F_t and the update gate Z_t are both the second block of H rows.
KEEP_GATE_BLOCK = 1
GATED_NETWORKS = ("LSTM", "LSTMCell", "GRU", "GRUCell")


def gated_input_biases(network: nn.Module) -> list[str]:
    """The names of an LSTM's or a GRU's ``bias_ih`` parameters; refuses any other network."""
    if type(network).__name__ not in GATED_NETWORKS:
        raise TypeError(
            f"only an LSTM or a GRU has a gate that keeps memory; got {type(network).__name__}"
        )
    names = [name for name, _ in network.named_parameters() if name.startswith("bias_ih")]
    if not names:
        raise ValueError("the network was built with bias=False: it has no gate bias to set")
    return names


def bias_keep_gates(network: nn.Module, bias: float = 1.0) -> None:
    """Set ``b_i + b_h = bias`` on the forget gate of an LSTM, or the update gate of a GRU, in
    every layer and direction (coursekit's networks and cells and torch's alike share the
    parameter names): ``bias_ih`` gets ``bias`` on that block and ``bias_hh`` gets 0.
    """
    input_biases = gated_input_biases(network)
    hidden = cast(int, network.hidden_size)
    rows = slice(KEEP_GATE_BLOCK * hidden, (KEEP_GATE_BLOCK + 1) * hidden)
    biases = dict(network.named_parameters())
    with torch.no_grad():
        for name in input_biases:
            biases[name][rows] = bias
            biases[name.replace("bias_ih", "bias_hh")][rows] = 0.0
