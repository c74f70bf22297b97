"""Dropout between stacked layers behaves as torch's: a no-op in evaluation mode, random but
reproducible in training mode, applied to every layer's output except the last. Parameters are
initialised as torch initialises them.
"""

from __future__ import annotations

import math

import pytest
import torch
from recurrent_twins import KINDS, make_twins, one_torch_thread  # noqa: F401 (autouse fixture)
from torch import nn

from coursekit.models import GRU, LSTM, RNN


@pytest.mark.parametrize("kind", list(KINDS))
def test_dropout_is_a_no_op_in_evaluation_mode(kind: str) -> None:
    ours, theirs = make_twins(kind, 3, 4, num_layers=3, dropout=0.5, bidirectional=True)
    ours.eval()
    theirs.eval()
    x = torch.randn(6, 2, 3, dtype=torch.float64)
    torch.manual_seed(1)
    first = ours(x, lengths=[6, 3])
    torch.manual_seed(2)
    torch.testing.assert_close(ours(x, lengths=[6, 3]), first)
    torch.testing.assert_close(ours(x), theirs(x))


@pytest.mark.parametrize("kind", list(KINDS))
def test_training_mode_dropout_changes_the_output_and_repeats_under_a_seed(kind: str) -> None:
    ours, _ = make_twins(kind, 3, 4, num_layers=2, dropout=0.5)
    x = torch.randn(6, 2, 3, dtype=torch.float64)
    ours.eval()
    evaluation_output, _ = ours(x)
    ours.train()
    torch.manual_seed(7)
    first, _ = ours(x)
    torch.manual_seed(7)
    second, _ = ours(x)
    torch.manual_seed(8)
    third, _ = ours(x)
    assert torch.equal(first, second)
    assert not torch.allclose(first, evaluation_output)
    assert not torch.allclose(first, third)


def test_dropout_acts_on_the_output_of_each_layer_but_the_last() -> None:
    stacked, _ = make_twins("lstm", 3, 4, num_layers=2, dropout=0.5)
    lower, upper = LSTM(3, 4).double(), LSTM(4, 4).double()
    for layer, single in ((0, lower), (1, upper)):
        for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
            getattr(single, f"{name}_l0").data.copy_(getattr(stacked, f"{name}_l{layer}"))
    x = torch.randn(6, 2, 3, dtype=torch.float64)
    torch.manual_seed(3)
    output, (h_n, _) = stacked.train()(x)
    torch.manual_seed(3)
    lower_output, _ = lower(x)
    expected, (top_h, _) = upper(nn.functional.dropout(lower_output, 0.5, training=True))
    torch.testing.assert_close(output, expected)
    torch.testing.assert_close(h_n[1], top_h[0])
    torch.testing.assert_close(output[-1], h_n[1])  # the top layer's output is not dropped


@pytest.mark.parametrize("network_class", [RNN, LSTM, GRU])
def test_parameters_have_torch_names_shapes_and_initial_range(network_class: type) -> None:
    hidden = 64
    torch.manual_seed(0)
    ours = network_class(20, hidden, num_layers=2, bidirectional=True)
    theirs = network_class.torch_class(20, hidden, num_layers=2, bidirectional=True)
    shapes = [(name, p.shape) for name, p in ours.named_parameters()]
    assert shapes == [(name, p.shape) for name, p in theirs.named_parameters()]
    bound = 1 / math.sqrt(hidden)
    for parameter in ours.parameters():
        assert float(parameter.detach().abs().max()) <= bound
    values = torch.cat([parameter.detach().flatten() for parameter in ours.parameters()])
    assert float(values.min()) < -0.99 * bound and float(values.max()) > 0.99 * bound
    assert float(values.std()) == pytest.approx(bound / math.sqrt(3), rel=0.05)  # U(-a, a)


def test_a_network_without_bias_has_only_weights() -> None:
    names = [name for name, _ in GRU(3, 4, num_layers=2, bias=False).named_parameters()]
    assert names == ["weight_ih_l0", "weight_hh_l0", "weight_ih_l1", "weight_hh_l1"]
