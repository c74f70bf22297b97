"""RNN, LSTM and GRU refuse bad input and mismatched torch modules with messages that say what
was wrong.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch
from recurrent_twins import one_torch_thread  # noqa: F401 (autouse fixture)
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence

from coursekit.models import GRU, LSTM, RNN

X = torch.randn(5, 2, 3)  # [T, B, I]


def state(*shape: int) -> torch.Tensor:
    return torch.zeros(shape)


BAD_CALLS: list[tuple[str, Callable[[], object], str]] = [
    ("rank 4 input", lambda: GRU(3, 4)(torch.randn(5, 2, 3, 1)), r"\[time, batch, features\]"),
    ("rank 1 input", lambda: RNN(3, 4)(torch.randn(3)), r"\[time, batch, features\]"),
    (
        "batch_first layout named",
        lambda: RNN(3, 4, batch_first=True)(torch.randn(3)),
        r"\[batch, time, features\]",
    ),
    ("feature size", lambda: LSTM(4, 4)(X), "input_size=4, got inputs with 3 features"),
    (
        "hidden-state layers",
        lambda: GRU(3, 4, num_layers=2)(X, state(1, 2, 4)),
        r"h_0 must have shape .* = \(2, 2, 4\), got \(1, 2, 4\)",
    ),
    (
        "hidden-state directions",
        lambda: RNN(3, 4, bidirectional=True)(X, state(1, 2, 4)),
        r"= \(2, 2, 4\)",
    ),
    ("hidden-state batch", lambda: RNN(3, 4)(X, state(1, 3, 4)), r"= \(1, 2, 4\)"),
    ("hidden-state size", lambda: GRU(3, 4)(X, state(1, 2, 5)), r"= \(1, 2, 4\)"),
    ("unbatched hidden state", lambda: GRU(3, 4)(X[:, 0], state(1, 2, 4)), r"= \(1, 4\)"),
    ("LSTM given one tensor", lambda: LSTM(3, 4)(X, state(1, 2, 4)), r"tuple \('h_0', 'c_0'\)"),
    (
        "LSTM cell state",
        lambda: LSTM(3, 4)(X, (state(1, 2, 4), state(2, 2, 4))),
        r"c_0 must have shape",
    ),
    ("GRU given a tuple", lambda: GRU(3, 4)(X, (state(1, 2, 4),) * 2), "one tensor h_0"),
    ("lengths of another batch", lambda: RNN(3, 4)(X, lengths=[5, 4, 3]), r"batch \(2\)"),
    ("lengths as a matrix", lambda: RNN(3, 4)(X, lengths=[[5, 4]]), "one length per sequence"),
    ("a length beyond T", lambda: GRU(3, 4)(X, lengths=[6, 2]), "between 1 and .* T=5"),
    ("a zero length", lambda: GRU(3, 4)(X, lengths=[5, 0]), "between 1 and"),
    ("fractional lengths", lambda: GRU(3, 4)(X, lengths=[5.0, 2.5]), "must be integers"),
    ("lengths of one sequence", lambda: GRU(3, 4)(X[:, 0], lengths=[5]), "unbatched"),
    (
        "PackedSequence and lengths",
        lambda: LSTM(3, 4)(pack_padded_sequence(X, [5, 3]), lengths=[5, 3]),
        "either a PackedSequence or padded input",
    ),
    ("nonlinearity", lambda: RNN(3, 4, nonlinearity="gelu"), "'tanh' or 'relu'"),
    ("num_layers", lambda: LSTM(3, 4, num_layers=0), "num_layers must be a positive integer"),
    ("dropout", lambda: GRU(3, 4, num_layers=2, dropout=1.5), r"probability in \[0, 1\), got 1.5"),
    ("hidden_size", lambda: GRU(3, -1), "hidden_size must be a positive integer"),
]


@pytest.mark.parametrize(
    ("call", "message"), [c[1:] for c in BAD_CALLS], ids=[c[0] for c in BAD_CALLS]
)
def test_bad_input_is_explained(call: Callable[[], object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()


def test_projections_are_refused_in_the_constructor_and_from_torch() -> None:
    with pytest.raises(NotImplementedError, match="proj_size=2 is not supported"):
        LSTM(3, 4, proj_size=2)
    with pytest.raises(NotImplementedError, match="proj_size=2 is not supported"):
        LSTM.from_torch(nn.LSTM(3, 4, proj_size=2))


@pytest.mark.parametrize(
    ("ours_class", "torch_module"),
    [
        (LSTM, nn.GRU(3, 4)),
        (GRU, nn.LSTM(3, 4)),
        (RNN, nn.GRU(3, 4)),
        (GRU, nn.RNN(3, 4)),
        (LSTM, nn.LSTMCell(3, 4)),
        (RNN, nn.Linear(3, 4)),
    ],
)
def test_from_torch_rejects_another_kind_of_module(
    ours_class: type[nn.Module], torch_module: nn.Module
) -> None:
    with pytest.raises(TypeError, match=f"expects a torch.nn.{ours_class.__name__}, got"):
        ours_class.from_torch(torch_module)


def test_from_torch_copies_the_configuration() -> None:
    theirs = nn.RNN(
        3,
        4,
        num_layers=2,
        nonlinearity="relu",
        bias=False,
        batch_first=True,
        dropout=0.25,
        bidirectional=True,
    ).double()
    ours = RNN.from_torch(theirs)
    for name in (
        "input_size",
        "hidden_size",
        "num_layers",
        "nonlinearity",
        "bias",
        "batch_first",
        "dropout",
        "bidirectional",
    ):
        assert getattr(ours, name) == getattr(theirs, name), name
    assert ours.weight_ih_l1_reverse.dtype == torch.float64
    assert torch.equal(ours.weight_hh_l1_reverse, theirs.weight_hh_l1_reverse)


def test_dropout_on_a_single_layer_warns_that_it_does_nothing() -> None:
    with pytest.warns(UserWarning, match="no effect with num_layers=1"):
        LSTM(3, 4, dropout=0.5)
