"""compare_with_twin: equal twins are reported equal, and a difference in outputs, gradients or
parameter names is reported where it is."""

from __future__ import annotations

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from coursekit.models import LSTM
from coursekit.parity import compare_with_twin


def twins() -> tuple[LSTM, nn.LSTM, list[torch.Tensor]]:
    torch.manual_seed(0)
    theirs = nn.LSTM(3, 4, num_layers=2, bidirectional=True, batch_first=True).double()
    inputs = [torch.randn(3, 5, 3, dtype=torch.float64)]
    return LSTM.from_torch(theirs), theirs, inputs


def test_equal_twins_are_reported_equal() -> None:
    ours, theirs, inputs = twins()
    report = compare_with_twin(ours, theirs, inputs)
    assert report.equal and report.largest_difference < 1e-13


def test_a_padded_batch_against_a_packed_one() -> None:
    ours, theirs, inputs = twins()
    lengths = torch.tensor([5, 2, 4])

    def run_theirs(module: nn.Module, x: torch.Tensor) -> object:
        packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
        output, state = module(packed)
        return pad_packed_sequence(output, batch_first=True, total_length=5)[0], state

    report = compare_with_twin(
        ours, theirs, inputs, run_ours=lambda m, x: m(x, lengths=lengths), run_twin=run_theirs
    )
    assert report.equal


def test_a_different_weight_shows_in_outputs_and_gradients() -> None:
    ours, theirs, inputs = twins()
    with torch.no_grad():
        ours.weight_hh_l1[0, 0] += 1e-6
    report = compare_with_twin(ours, theirs, inputs)
    assert not report.outputs and not report.gradients and report.same_parameter_names
    assert 1e-9 < report.largest_difference < 1e-3


def test_different_parameter_names_are_reported() -> None:
    ours, _, inputs = twins()
    renamed = nn.Sequential(ours)  # the same computation, names prefixed by "0."
    report = compare_with_twin(ours, renamed, inputs)
    assert report.outputs and not report.same_parameter_names and not report.equal
