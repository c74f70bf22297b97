"""The recurrent models explain a wrong dtype, a dropout outside [0, 1) and bad token ids, each
with the fix of the case at hand."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch
from torch import nn

from coursekit.models import (
    GRU,
    LSTM,
    RNN,
    GRUCell,
    LSTMCell,
    RecurrentClassifier,
    RecurrentLanguageModel,
    RNNCell,
    recurrent_layer,
)

NETWORKS = [RNN, LSTM, GRU]
CELLS = [RNNCell, LSTMCell, GRUCell]


@pytest.mark.parametrize("network", NETWORKS, ids=lambda kind: kind.__name__)
def test_a_float64_input_to_a_float32_network_names_both_dtypes_and_the_fix(
    network: type[nn.Module],
) -> None:
    with pytest.raises(TypeError) as error:
        network(3, 4)(torch.randn(5, 2, 3, dtype=torch.float64))
    assert str(error.value) == (
        f"{network.__name__} has torch.float32 weights but its input is torch.float64: convert "
        "the module with .double() or the input with .float()"
    )


@pytest.mark.parametrize("network", NETWORKS, ids=lambda kind: kind.__name__)
def test_a_float32_input_to_a_float64_network_and_a_state_of_another_dtype(
    network: type[nn.Module],
) -> None:
    with pytest.raises(TypeError, match=r"float64 weights but its input is torch.float32: .*"):
        network(3, 4).double()(torch.randn(5, 2, 3))
    state = torch.zeros(1, 2, 4, dtype=torch.float64)
    hx = (state, state) if network is LSTM else state
    with pytest.raises(
        TypeError, match=r"its h_0 is torch.float64: .* or the h_0 with \.float\(\)"
    ):
        network(3, 4)(torch.randn(5, 2, 3), hx)


@pytest.mark.parametrize("cell", CELLS, ids=lambda kind: kind.__name__)
def test_a_cell_names_the_dtypes_of_its_input_and_state(cell: type[nn.Module]) -> None:
    with pytest.raises(TypeError, match=r"float32 weights but its input is torch.float64: "):
        cell(3, 4)(torch.randn(2, 3, dtype=torch.float64))
    state = torch.zeros(2, 4, dtype=torch.float64)
    with pytest.raises(TypeError, match=r"but its h is torch.float64: convert the module with"):
        cell(3, 4)(torch.randn(2, 3), (state, state) if cell is LSTMCell else state)


def test_token_ids_given_to_a_network_are_sent_to_an_embedding() -> None:
    with pytest.raises(TypeError, match=r"got input of dtype torch.int64: embed token ids first"):
        LSTM(3, 4)(torch.ones(5, 2, 3, dtype=torch.long))


BUILDERS: list[tuple[str, Callable[[float], object]]] = [
    ("LSTM", lambda p: LSTM(3, 4, num_layers=2, dropout=p)),
    ("GRU", lambda p: GRU(3, 4, num_layers=2, dropout=p)),
    ("recurrent_layer", lambda p: recurrent_layer("lstm", 3, 4, num_layers=2, dropout=p)),
    ("one layer", lambda p: recurrent_layer("gru", 3, 4, num_layers=1, dropout=p)),
    ("classifier", lambda p: RecurrentClassifier(10, 3, 4, 2, dropout=p)),
]


@pytest.mark.parametrize("dropout", [1.0, -0.1, 1.5])
@pytest.mark.parametrize("build", [b[1] for b in BUILDERS], ids=[b[0] for b in BUILDERS])
def test_every_recurrent_model_obeys_one_dropout_rule(
    build: Callable[[float], object], dropout: float
) -> None:
    with pytest.raises(ValueError) as error:
        build(dropout)
    assert str(error.value) == f"dropout is a dropout probability in [0, 1), got {dropout!r}"


def test_a_dropout_just_below_one_is_accepted() -> None:
    assert LSTM(3, 4, num_layers=2, dropout=0.99).dropout == 0.99


@pytest.mark.parametrize(
    ("tokens", "fix"),
    [
        (torch.zeros(2, 3), r"got dtype torch.float32 \(shape \(2, 3\)\); convert them with "),
        (torch.zeros(3), r"dtype torch.float32 \(shape \(3,\)\); convert them with tokens.long"),
        (torch.zeros(3, dtype=torch.long), r"one sequence of shape \(3,\); add a batch dimension"),
        (torch.zeros(2, 3, 1, dtype=torch.long), r"one row per sequence, got shape \(2, 3, 1\)$"),
        (torch.tensor([[1, 10]]), r"from 1 to 10: were they made with another vocabulary\?"),
    ],
    ids=["float ids", "float sequence", "one sequence", "3-D ids", "out of range"],
)
def test_bad_token_ids_get_the_fix_of_their_case(tokens: torch.Tensor, fix: str) -> None:
    model = RecurrentLanguageModel(10, 4, 8)
    with pytest.raises(ValueError, match=fix) as error:
        model(tokens)
    if tokens.is_floating_point():
        assert "unsqueeze" not in str(error.value)  # the problem is the dtype, not the shape
