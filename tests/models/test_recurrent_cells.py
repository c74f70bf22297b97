"""RNNCell, LSTMCell and GRUCell equal torch.nn's cells in float64 (values and gradients), and
their gate helpers give the values that the step is made of.
"""

from __future__ import annotations

import math

import pytest
import torch
from recurrent_twins import one_torch_thread, randomize  # noqa: F401 (autouse fixture)
from torch import Tensor, nn

from coursekit.models import GRUCell, LSTMCell, RNNCell

CELLS: dict[str, tuple[type[nn.Module], dict[str, str]]] = {
    "rnn_tanh": (RNNCell, {"nonlinearity": "tanh"}),
    "rnn_relu": (RNNCell, {"nonlinearity": "relu"}),
    "lstm": (LSTMCell, {}),
    "gru": (GRUCell, {}),
}
INPUT, HIDDEN, BATCH = 5, 4, 3


def cell_twins(kind: str, bias: bool = True, seed: int = 0) -> tuple[nn.Module, nn.Module]:
    """``(ours, theirs)``: a float64 torch.nn cell with random weights and coursekit's copy."""
    ours_class, extra = CELLS[kind]
    theirs = ours_class.torch_class(INPUT, HIDDEN, bias=bias, **extra).double()
    randomize(theirs, seed)
    return ours_class.from_torch(theirs), theirs


def as_list(state: Tensor | tuple[Tensor, ...]) -> list[Tensor]:
    return [state] if isinstance(state, Tensor) else list(state)


@pytest.mark.parametrize("batched", [True, False], ids=["batch", "unbatched"])
@pytest.mark.parametrize("with_state", [False, True], ids=["zero_state", "given_state"])
@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no_bias"])
@pytest.mark.parametrize("kind", list(CELLS))
def test_cell_matches_torch_with_gradients(
    kind: str, bias: bool, with_state: bool, batched: bool
) -> None:
    ours, theirs = cell_twins(kind, bias)
    generator = torch.Generator().manual_seed(1)
    batch = (BATCH,) if batched else ()
    x = torch.randn(*batch, INPUT, generator=generator, dtype=torch.float64)
    states = [
        torch.randn(*batch, HIDDEN, generator=generator, dtype=torch.float64)
        for _ in range((2 if kind == "lstm" else 1) if with_state else 0)
    ]
    weights = torch.randn(2, *batch, HIDDEN, generator=generator, dtype=torch.float64)
    results, leaves = {}, {}
    for name, cell in (("ours", ours), ("theirs", theirs)):
        x_leaf = x.clone().requires_grad_()
        state_leaves = [s.clone().requires_grad_() for s in states]
        state = None if not states else state_leaves[0] if kind != "lstm" else tuple(state_leaves)
        outputs = as_list(cell(x_leaf, state))
        sum((w * out).sum() for w, out in zip(weights, outputs, strict=False)).backward()
        results[name], leaves[name] = outputs, [x_leaf, *state_leaves]
    for ours_output, theirs_output in zip(results["ours"], results["theirs"], strict=True):
        assert ours_output.shape == (*batch, HIDDEN)
        torch.testing.assert_close(ours_output, theirs_output)
    for ours_leaf, theirs_leaf in zip(leaves["ours"], leaves["theirs"], strict=True):
        torch.testing.assert_close(ours_leaf.grad, theirs_leaf.grad)
    theirs_parameters = dict(theirs.named_parameters())
    assert set(dict(ours.named_parameters())) == set(theirs_parameters)
    for name, parameter in ours.named_parameters():
        torch.testing.assert_close(parameter.grad, theirs_parameters[name].grad, msg=name)


def torch_gate_parts(cell: nn.Module, gate: int, x: Tensor, h: Tensor) -> tuple[Tensor, Tensor]:
    """Gate ``gate``'s pre-activation parts ``(W_i x + b_i, W_h h + b_h)`` computed from the rows
    ``gate*H .. (gate+1)*H`` of the torch cell's stacked weights (torch's documented layout).
    """
    rows = slice(gate * HIDDEN, (gate + 1) * HIDDEN)
    from_input = x @ cell.weight_ih[rows].T + cell.bias_ih[rows]
    return from_input, h @ cell.weight_hh[rows].T + cell.bias_hh[rows]


def torch_gate(cell: nn.Module, gate: int, x: Tensor, h: Tensor) -> Tensor:
    """Gate ``gate``'s whole pre-activation, input and hidden parts added."""
    from_input, from_hidden = torch_gate_parts(cell, gate, x, h)
    return from_input + from_hidden


def test_lstm_gates_are_torch_layout_and_make_the_step() -> None:
    ours, theirs = cell_twins("lstm")
    generator = torch.Generator().manual_seed(2)
    x, h, c = (torch.randn(BATCH, n, generator=generator, dtype=torch.float64) for n in (5, 4, 4))
    gates = ours.gates(x, (h, c))
    assert list(gates) == ["input", "forget", "candidate", "output"]
    with torch.no_grad():
        expected = {
            "input": torch.sigmoid(torch_gate(theirs, 0, x, h)),
            "forget": torch.sigmoid(torch_gate(theirs, 1, x, h)),
            "candidate": torch.tanh(torch_gate(theirs, 2, x, h)),
            "output": torch.sigmoid(torch_gate(theirs, 3, x, h)),
        }
    for name, value in gates.items():
        torch.testing.assert_close(value, expected[name], msg=name)
    h_next, c_next = ours(x, (h, c))
    torch.testing.assert_close(c_next, gates["forget"] * c + gates["input"] * gates["candidate"])
    torch.testing.assert_close(h_next, gates["output"] * torch.tanh(c_next))


def test_gru_gates_are_torch_layout_and_make_the_step() -> None:
    ours, theirs = cell_twins("gru")
    generator = torch.Generator().manual_seed(3)
    x, h = (torch.randn(BATCH, n, generator=generator, dtype=torch.float64) for n in (5, 4))
    gates = ours.gates(x, h)
    assert list(gates) == ["reset", "update", "candidate"]
    with torch.no_grad():
        reset = torch.sigmoid(torch_gate(theirs, 0, x, h))
        x_part, h_part = torch_gate_parts(theirs, 2, x, h)
        expected = {
            "reset": reset,
            "update": torch.sigmoid(torch_gate(theirs, 1, x, h)),
            "candidate": torch.tanh(x_part + reset * h_part),
        }
    for name, value in gates.items():
        torch.testing.assert_close(value, expected[name], msg=name)
    torch.testing.assert_close(
        ours(x, h), gates["update"] * h + (1 - gates["update"]) * gates["candidate"]
    )


def test_gates_of_an_unbatched_input_from_a_zero_state() -> None:
    lstm, gru = LSTMCell(3, 2).double(), GRUCell(3, 2).double()
    x = torch.randn(3, dtype=torch.float64)
    lstm_gates = lstm.gates(x)
    assert all(value.shape == (2,) for value in lstm_gates.values())
    h, c = lstm(x)
    torch.testing.assert_close(c, lstm_gates["input"] * lstm_gates["candidate"])
    torch.testing.assert_close(h, lstm_gates["output"] * torch.tanh(c))
    gru_gates = gru.gates(x)
    torch.testing.assert_close(gru(x), (1 - gru_gates["update"]) * gru_gates["candidate"])


@pytest.mark.parametrize("kind", list(CELLS))
def test_cell_parameters_have_torch_names_shapes_and_initial_range(kind: str) -> None:
    ours_class, extra = CELLS[kind]
    hidden = 64
    torch.manual_seed(0)
    ours, theirs = ours_class(30, hidden, **extra), ours_class.torch_class(30, hidden, **extra)
    shapes = {name: p.shape for name, p in ours.named_parameters()}
    assert shapes == {name: p.shape for name, p in theirs.named_parameters()}
    bound = 1 / math.sqrt(hidden)
    for parameter in ours.parameters():
        assert float(parameter.detach().abs().max()) <= bound
    values = torch.cat([parameter.detach().flatten() for parameter in ours.parameters()])
    assert float(values.min()) < -0.99 * bound and float(values.max()) > 0.99 * bound
    assert float(values.std()) == pytest.approx(bound / math.sqrt(3), rel=0.05)  # U(-a, a)


def test_cells_without_bias_have_none_biases_like_torch() -> None:
    for ours_class in (RNNCell, LSTMCell, GRUCell):
        cell = ours_class(3, 2, bias=False)
        assert cell.bias_ih is None and cell.bias_hh is None
        assert [name for name, _ in cell.named_parameters()] == ["weight_ih", "weight_hh"]


@pytest.mark.parametrize(
    ("ours_class", "torch_cell"),
    [
        (LSTMCell, nn.GRUCell(3, 2)),
        (GRUCell, nn.LSTMCell(3, 2)),
        (RNNCell, nn.LSTMCell(3, 2)),
        (LSTMCell, nn.LSTM(3, 2)),
    ],
)
def test_cell_from_torch_rejects_another_kind_of_module(
    ours_class: type[nn.Module], torch_cell: nn.Module
) -> None:
    with pytest.raises(TypeError, match=f"expects a torch.nn.{ours_class.__name__}"):
        ours_class.from_torch(torch_cell)


def test_cell_from_torch_keeps_the_nonlinearity_dtype_and_bias() -> None:
    cell = RNNCell.from_torch(nn.RNNCell(3, 2, bias=False, nonlinearity="relu").double())
    assert cell.nonlinearity == "relu" and cell.bias_ih is None
    assert cell.weight_ih.dtype == torch.float64


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: RNNCell(3, 2)(torch.randn(4, 5)), r"input of shape \[batch, 3\]"),
        (lambda: RNNCell(3, 2)(torch.randn(1, 4, 3)), r"input of shape \[batch, 3\]"),
        (lambda: RNNCell(3, 2)(torch.randn(4, 3), torch.randn(5, 2)), r"h must have shape"),
        (lambda: GRUCell(3, 2)(torch.randn(3), torch.randn(1, 2)), r"h must have shape \(2,\)"),
        (lambda: LSTMCell(3, 2)(torch.randn(4, 3), torch.randn(4, 2)), "tuple"),
        (
            lambda: LSTMCell(3, 2)(torch.randn(4, 3), (torch.randn(4, 2), torch.randn(4, 3))),
            r"c must have shape \(4, 2\)",
        ),
        (lambda: RNNCell(3, 2, nonlinearity="sigmoid"), "nonlinearity must be 'tanh' or 'relu'"),
        (lambda: LSTMCell(0, 2), "input_size must be a positive integer"),
        (lambda: GRUCell(3, 2.5), "hidden_size must be a positive integer"),
    ],
)
def test_cells_explain_bad_input(call: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()
