"""bias_keep_gates: the forget gate of an LSTM and the update gate of a GRU start at sigma(b)."""

from __future__ import annotations

import math

import pytest
import torch
from torch import nn

from coursekit.models import GRU, LSTM, RNN, GRUCell, LSTMCell
from coursekit.models.recurrent.initialisation import bias_keep_gates


@pytest.mark.parametrize("bidirectional", [False, True])
def test_the_lstm_forget_gate_starts_at_sigma_of_the_bias(bidirectional: bool) -> None:
    torch.manual_seed(0)
    lstm = LSTM(3, 4, num_layers=2, bidirectional=bidirectional)
    with torch.no_grad():
        for name, weight in lstm.named_parameters():
            if name.startswith("weight"):
                weight.zero_()  # the gates then depend on the biases alone
    bias_keep_gates(lstm, 2.0)
    for name, bias in lstm.named_parameters():
        if name.startswith("bias"):
            expected = 2.0 if name.startswith("bias_ih") else 0.0
            assert torch.all(bias[4:8] == expected), name
    first_layer = {
        name.removesuffix("_l0"): value
        for name, value in lstm.state_dict().items()
        if name.endswith("_l0")
    }
    cell = LSTMCell(3, 4)
    cell.load_state_dict(first_layer)
    gates = cell.gates(torch.randn(5, 3))
    torch.testing.assert_close(gates["forget"], torch.full((5, 4), 1 / (1 + math.exp(-2.0))))
    input_bias = first_layer["bias_ih"][:4] + first_layer["bias_hh"][:4]
    torch.testing.assert_close(gates["input"], torch.sigmoid(input_bias).expand(5, 4))


def test_the_gru_update_gate_starts_at_sigma_of_the_bias() -> None:
    gru = GRUCell(3, 4)
    with torch.no_grad():
        gru.weight_ih.zero_()
        gru.weight_hh.zero_()
    bias_keep_gates(gru, 1.0)
    update = gru.gates(torch.randn(2, 3))["update"]
    torch.testing.assert_close(update, torch.full((2, 4), 1 / (1 + math.exp(-1.0))))


def test_torch_networks_get_the_same_biases_as_ours() -> None:
    torch.manual_seed(0)
    theirs = nn.GRU(3, 5, num_layers=2, bidirectional=True)
    ours = GRU.from_torch(theirs)
    bias_keep_gates(theirs, 1.5)
    bias_keep_gates(ours, 1.5)
    for (name, a), (_, b) in zip(ours.named_parameters(), theirs.named_parameters(), strict=True):
        torch.testing.assert_close(a, b, msg=name)
    assert torch.all(theirs.bias_ih_l1_reverse[5:10] == 1.5)
    assert torch.all(theirs.bias_hh_l1_reverse[5:10] == 0.0)
    assert not torch.all(theirs.bias_ih_l1_reverse[:5] == 1.5)  # the reset gate is left alone


def test_networks_without_a_keep_gate_or_a_bias_are_refused() -> None:
    with pytest.raises(TypeError, match="only an LSTM or a GRU"):
        bias_keep_gates(RNN(3, 4))
    with pytest.raises(ValueError, match="bias=False"):
        bias_keep_gates(LSTM(3, 4, bias=False))
