"""Chapter 3's questions: the references agree with torch's LSTM and GRU, the solutions score full
marks, and classic mistakes lose points with a message that says what differs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import torch

from coursekit.grading import (
    format_report,
    generate_cases,
    get_question,
    run_question,
)


def torch_cell(
    cell_class: type[torch.nn.Module],
    W_ih: torch.Tensor,
    W_hh: torch.Tensor,
    b_ih: torch.Tensor,
    b_hh: torch.Tensor,
) -> torch.nn.Module:
    """A float64 torch cell holding the given weights."""
    cell = cell_class(W_ih.shape[1], W_hh.shape[1]).double()
    cell.load_state_dict({"weight_ih": W_ih, "weight_hh": W_hh, "bias_ih": b_ih, "bias_hh": b_hh})
    return cell


def test_lstm_step_equals_torch_lstm_cell() -> None:
    question = get_question("ch03.q1")
    for case in generate_cases(question):
        x, h, c, *weights = case.args
        with torch.no_grad():
            expected = torch_cell(torch.nn.LSTMCell, *weights)(x, (h, c))
        torch.testing.assert_close(question.expected(case), expected)


def test_gru_step_equals_torch_gru_cell() -> None:
    question = get_question("ch03.q2")
    for case in generate_cases(question):
        x, h, *weights = case.args
        with torch.no_grad():
            expected = torch_cell(torch.nn.GRUCell, *weights)(x, h)
        torch.testing.assert_close(question.expected(case), expected)


@pytest.mark.parametrize("num_layers", [1, 3])
def test_bidirectional_final_state_equals_the_top_layers_outputs(num_layers: int) -> None:
    """The forward state is the output at the last step, the backward one the output at the first."""
    hidden_size = 4
    gru = torch.nn.GRU(3, hidden_size, num_layers=num_layers, bidirectional=True).double()
    with torch.no_grad():
        output, h_n = gru(torch.randn(6, 2, 3, dtype=torch.float64))
    expected = torch.cat([output[-1, :, :hidden_size], output[0, :, hidden_size:]], dim=-1)
    torch.testing.assert_close(get_question("ch03.q3").reference(h_n), expected)


def test_masked_mean_equals_the_mean_of_each_sequences_real_steps() -> None:
    question = get_question("ch03.q4")
    for case in generate_cases(question):
        outputs, lengths = case.args
        expected = torch.stack(
            [outputs[b, :length].mean(dim=0) for b, length in enumerate(lengths.tolist())]
        )
        torch.testing.assert_close(question.expected(case), expected)


def test_parameter_count_equals_torch_lstm() -> None:
    question = get_question("ch03.q5")
    for case in generate_cases(question):
        input_size, hidden_size, num_layers, bidirectional = case.args
        lstm = torch.nn.LSTM(
            input_size, hidden_size, num_layers=num_layers, bidirectional=bidirectional
        )
        assert question.expected(case) == sum(p.numel() for p in lstm.parameters())


# Classic mistakes lose points, and the report says why -------------------------------------------


def lstm_gates_in_order_ifog(
    x: Any, h: Any, c: Any, W_ih: Any, W_hh: Any, b_ih: Any, b_hh: Any
) -> tuple[torch.Tensor, torch.Tensor]:
    """The order i, f, o, g of some texts, instead of torch's i, f, g, o."""
    gates = x @ W_ih.T + b_ih + h @ W_hh.T + b_hh
    i, f, o, g = gates.chunk(4, dim=-1)
    c_new = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
    return torch.sigmoid(o) * torch.tanh(c_new), c_new


def gru_reset_before_the_product(
    x: Any, h: Any, W_ih: Any, W_hh: Any, b_ih: Any, b_hh: Any
) -> torch.Tensor:
    """N_t = tanh(W_in x + b_in + W_hn (R_t * h) + b_hn): the other GRU variant."""
    hidden_size = h.shape[1]
    input_r, input_z, input_n = (x @ W_ih.T + b_ih).chunk(3, dim=-1)
    hidden_r, hidden_z, _ = (h @ W_hh.T + b_hh).chunk(3, dim=-1)
    reset = torch.sigmoid(input_r + hidden_r)
    update = torch.sigmoid(input_z + hidden_z)
    W_hn, b_hn = W_hh[2 * hidden_size :], b_hh[2 * hidden_size :]
    candidate = torch.tanh(input_n + (reset * h) @ W_hn.T + b_hn)
    return update * h + (1 - update) * candidate


def gru_update_gate_swapped(
    x: Any, h: Any, W_ih: Any, W_hh: Any, b_ih: Any, b_hh: Any
) -> torch.Tensor:
    """H_t = (1 - Z_t) * H_{t-1} + Z_t * N_t: Z_t read as 'how much to write'."""
    input_r, input_z, input_n = (x @ W_ih.T + b_ih).chunk(3, dim=-1)
    hidden_r, hidden_z, hidden_n = (h @ W_hh.T + b_hh).chunk(3, dim=-1)
    reset = torch.sigmoid(input_r + hidden_r)
    update = torch.sigmoid(input_z + hidden_z)
    candidate = torch.tanh(input_n + reset * hidden_n)
    return (1 - update) * h + update * candidate


def final_state_of_the_first_layer(h_n: torch.Tensor) -> torch.Tensor:
    return torch.cat([h_n[0], h_n[1]], dim=-1)


def final_state_backward_first(h_n: torch.Tensor) -> torch.Tensor:
    return torch.cat([h_n[-1], h_n[-2]], dim=-1)


def mean_over_all_steps(outputs: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    return outputs.mean(dim=1)


def masked_sum_divided_by_T(outputs: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    is_real = torch.arange(outputs.shape[1]).unsqueeze(0) < lengths.unsqueeze(1)
    return (outputs * is_real.unsqueeze(-1)).sum(dim=1) / outputs.shape[1]


def count_with_one_bias(
    input_size: int, hidden_size: int, num_layers: int, bidirectional: bool
) -> int:
    directions = 2 if bidirectional else 1
    total = 0
    for layer in range(num_layers):
        layer_input = input_size if layer == 0 else directions * hidden_size
        total += directions * (4 * hidden_size * (layer_input + hidden_size) + 4 * hidden_size)
    return total


def count_with_layer_input_H(
    input_size: int, hidden_size: int, num_layers: int, bidirectional: bool
) -> int:
    """Upper layers read H inputs, forgetting the 2H of a bidirectional layer below."""
    directions = 2 if bidirectional else 1
    per_direction = 4 * hidden_size * (input_size + hidden_size) + 8 * hidden_size
    upper = (num_layers - 1) * (4 * hidden_size * 2 * hidden_size + 8 * hidden_size)
    return directions * (per_direction + upper)


@pytest.mark.parametrize(
    ("question_id", "wrong_answer", "reported"),
    [
        ("ch03.q1", lstm_gates_in_order_ifog, "elements differ"),
        ("ch03.q2", gru_reset_before_the_product, "elements differ"),
        ("ch03.q2", gru_update_gate_swapped, "elements differ"),
        ("ch03.q3", final_state_of_the_first_layer, "elements differ"),
        ("ch03.q3", final_state_backward_first, "elements differ"),
        ("ch03.q4", mean_over_all_steps, "elements differ"),
        ("ch03.q4", masked_sum_divided_by_T, "elements differ"),
        ("ch03.q5", count_with_one_bias, "expected"),
        ("ch03.q5", count_with_layer_input_H, "expected"),
    ],
)
def test_a_classic_mistake_loses_points(
    question_id: str, wrong_answer: Callable[..., Any], reported: str
) -> None:
    question = get_question(question_id)
    result = run_question(question, wrong_answer)
    assert result.status == "failed"
    assert result.points_earned < question.points
    report = format_report(result)
    assert reported in report
    failing = next(case for case in result.cases if not case.passed)
    assert f"test {failing.number} " in report and failing.description in report
