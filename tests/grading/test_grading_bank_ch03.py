"""Chapter 3's questions: the references agree with torch's LSTM and GRU (the paper's GRU through
torch's cell with forced gates), with brute force and with closed forms; the solutions score full
marks; each classic mistake loses most of the points, and ignoring a mask earns almost
nothing."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest
import torch
from test_grading_bank_ch01 import (
    ROOT,
    assert_check_names_the_mistake,
    assert_full_marks,
    assert_loses_most_points,
    cases_of,
    notebook_functions,
)
from torch import Tensor
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from coursekit.grading import get_question
from coursekit.models import LSTM

CHAPTER_3 = [f"ch03.q{number}" for number in range(1, 7)]
#: sigmoid(SATURATED) == 1.0 and sigmoid(-SATURATED) == 0.0 exactly in float64.
SATURATED = 1000.0


def test_the_solutions_score_full_marks() -> None:
    """(Registration, case data and stubs: test_grading_banks.py checks every chapter.)"""
    solutions = notebook_functions(ROOT / "solutions/03-lstm-gru.ipynb")
    for question_id in CHAPTER_3:
        assert_full_marks(question_id, solutions)


# The references equal independent implementations ------------------------------------------


def torch_cell(
    cell_class: type[torch.nn.Module], W_ih: Tensor, W_hh: Tensor, b_ih: Tensor, b_hh: Tensor
) -> torch.nn.Module:
    """A float64 torch cell holding the given weights."""
    cell = cell_class(W_ih.shape[1], W_hh.shape[1]).double()
    cell.load_state_dict({"weight_ih": W_ih, "weight_hh": W_hh, "bias_ih": b_ih, "bias_hh": b_hh})
    return cell


def test_lstm_step_equals_torch_lstm_cell() -> None:
    question = get_question("ch03.q1")
    for case in cases_of("ch03.q1"):
        x, h, c, *weights = case.args
        with torch.no_grad():
            expected = torch_cell(torch.nn.LSTMCell, *weights)(x, (h, c))
        torch.testing.assert_close(question.expected(case), expected)


def paper_gru_by_torch_cell(
    x: Tensor, h: Tensor, W_ih: Tensor, W_hh: Tensor, b_ih: Tensor, b_hh: Tensor
) -> Tensor:
    """The paper's GRU with its candidate from torch.nn.GRUCell: R_t and Z_t written out, and
    N_t = tanh(W_in x + b_in + W_hn (R_t * h) + b_hn) is torch's own candidate for the state
    R_t * h once its reset gate is forced open (R = 1) and its update gate shut (Z = 0), so that
    the cell returns N_t itself."""
    size = h.shape[1]

    def gate(block: int) -> torch.Tensor:
        rows = slice(block * size, (block + 1) * size)
        return torch.sigmoid(x @ W_ih[rows].T + b_ih[rows] + h @ W_hh[rows].T + b_hh[rows])

    reset, update = gate(0), gate(1)
    forced = b_ih.clone()
    forced[:size], forced[size : 2 * size] = SATURATED, -SATURATED
    with torch.no_grad():
        candidate = torch_cell(torch.nn.GRUCell, W_ih, W_hh, forced, b_hh)(x, reset * h)
    return update * h + (1 - update) * candidate


def test_paper_gru_step_equals_torch_gru_cell_with_forced_gates() -> None:
    question = get_question("ch03.q2")
    for case in cases_of("ch03.q2"):
        torch.testing.assert_close(question.expected(case), paper_gru_by_torch_cell(*case.args))


def test_the_bidirectional_final_state_is_torchs_h_n_over_a_packed_batch() -> None:
    """The reference read from the padded outputs of a real bidirectional LSTM equals the top
    layer's final states h_n, which torch computes from the packed sequence."""
    question = get_question("ch03.q3")
    for case in cases_of("ch03.q3"):
        padded, lengths = case.args
        batch, steps, width = padded.shape
        torch.manual_seed(steps)
        lstm = torch.nn.LSTM(3, width // 2, num_layers=2, bidirectional=True, batch_first=True)
        lstm = lstm.double()
        inputs = torch.randn(batch, steps, 3, dtype=torch.float64)
        packed = pack_padded_sequence(inputs, lengths, batch_first=True, enforce_sorted=False)
        with torch.no_grad():
            output, (h_n, _) = lstm(packed)
        outputs, _ = pad_packed_sequence(output, True, padding_value=1000.0, total_length=steps)
        expected = torch.cat([h_n[-2], h_n[-1]], dim=-1)
        torch.testing.assert_close(question.reference(outputs, lengths), expected)


@pytest.mark.parametrize("question_id", ["ch03.q3", "ch03.q4"])
def test_masked_cases_are_mostly_padded_with_large_values(question_id: str) -> None:
    cases = cases_of(question_id)
    padded = [case for case in cases if int(case.args[1].min()) < case.args[0].shape[1]]
    assert len(padded) >= 2 * (len(cases) - len(padded)) + 1
    zero_padded = 0
    for case in padded:
        outputs, lengths = case.args
        steps = torch.arange(outputs.shape[1])
        padding = steps.unsqueeze(0) >= lengths.unsqueeze(1)
        if bool((outputs[padding] == 0.0).all()):  # the case that isolates the count
            zero_padded += 1
            assert "padding holds 0" in case.description
        else:
            assert bool((outputs[padding] == 1000.0).all())
    assert zero_padded <= 1


def test_masked_mean_equals_the_mean_of_each_sequences_real_steps() -> None:
    question = get_question("ch03.q4")
    for case in cases_of("ch03.q4"):
        outputs, lengths = case.args
        expected = torch.stack(
            [outputs[b, :length].mean(dim=0) for b, length in enumerate(lengths.tolist())]
        )
        torch.testing.assert_close(question.expected(case), expected)


def documented_lstm_parameter_count(
    input_size: int, hidden_size: int, layers: int, bias: bool, bidirectional: bool, proj_size: int
) -> int:
    """The shapes of torch.nn.LSTM's documentation, summed: weight_ih_l[k] [4H, I_k],
    weight_hh_l[k] [4H, P], bias_ih/bias_hh [4H], weight_hr_l[k] [P, H], I_k = D * P for k > 0
    (P = H and no weight_hr without projections)."""
    directions = 2 if bidirectional else 1
    state = proj_size or hidden_size
    shapes = []
    for layer in range(layers):
        layer_input = input_size if layer == 0 else directions * state
        shapes += [(4 * hidden_size, layer_input), (4 * hidden_size, state)]
        shapes += [(4 * hidden_size,), (4 * hidden_size,)] if bias else []
        shapes += [(proj_size, hidden_size)] if proj_size else []
    return directions * sum(math.prod(shape) for shape in shapes)


def test_parameter_count_equals_the_documented_shapes_and_coursekits_lstm() -> None:
    question = get_question("ch03.q5")
    for case in cases_of("ch03.q5"):
        input_size, hidden_size, num_layers, bias, bidirectional, proj_size = case.args
        count = question.expected(case)
        assert count == documented_lstm_parameter_count(*case.args)
        if proj_size == 0:
            ours = LSTM(input_size, hidden_size, num_layers, bias, bidirectional=bidirectional)
            assert count == sum(parameter.numel() for parameter in ours.parameters())


def test_most_parameter_cases_use_projections() -> None:
    cases = cases_of("ch03.q5")
    assert sum(case.args[5] > 0 for case in cases) >= len(cases) - 1


def brute_force_half_life(forget_gates: torch.Tensor) -> list[int]:
    steps, units = forget_gates.shape
    half_lives = []
    for unit in range(units):
        kept, found = 1.0, steps + 1
        for k in range(1, steps + 1):
            kept *= float(forget_gates[k - 1, unit])
            if kept < 0.5:
                found = k
                break
        half_lives.append(found)
    return half_lives


def test_half_life_equals_a_loop_and_the_closed_form_for_constant_gates() -> None:
    question = get_question("ch03.q6")
    cases = cases_of("ch03.q6")
    for case in cases:
        (forget_gates,) = case.args
        half_life = question.expected(case)
        assert half_life.dtype == torch.long
        assert half_life.tolist() == brute_force_half_life(forget_gates)
    (constant,) = cases[0].args
    steps = constant.shape[0]
    closed_form = [math.floor(math.log(2) / -math.log(f)) + 1 for f in constant[0].tolist()]
    assert question.expected(cases[0]).tolist() == [min(k, steps + 1) for k in closed_form]


def test_the_half_life_cases_have_units_that_never_drop_and_units_that_drop_at_once() -> None:
    results = [get_question("ch03.q6").expected(case) for case in cases_of("ch03.q6")]
    steps = [case.args[0].shape[0] for case in cases_of("ch03.q6")]
    assert all(bool((result == T + 1).any()) for result, T in zip(results, steps, strict=True))
    assert sum(bool((result == 1).any()) for result in results) >= 2


# Classic mistakes lose most of the points -----------------------------------------------------


def lstm_step_with(order: str = "ifgo", hidden_bias: bool = True, tanh_of_memory: bool = True):
    """An LSTM step with one mistake: another gate order, one bias, or H_t = O_t * C_t."""

    def answer(x, h, c, W_ih, W_hh, b_ih, b_hh):
        gates = x @ W_ih.T + b_ih + h @ W_hh.T + (b_hh if hidden_bias else 0)
        blocks = dict(zip(order, gates.chunk(4, dim=-1), strict=True))
        memory = torch.sigmoid(blocks["f"]) * c
        memory = memory + torch.sigmoid(blocks["i"]) * torch.tanh(blocks["g"])
        shown = torch.tanh(memory) if tanh_of_memory else memory
        return torch.sigmoid(blocks["o"]) * shown, memory

    return answer


def gru_step_with(reset: str = "paper", update_keeps: bool = True, order: str = "rzn"):
    """A GRU step with one mistake: PyTorch's reset-gate placement (after the product), the
    update gate read as 'how much to write', or the blocks in another order."""

    def answer(x, h, W_ih, W_hh, b_ih, b_hh):
        inputs = dict(zip(order, (x @ W_ih.T + b_ih).chunk(3, dim=-1), strict=True))
        weights = dict(zip(order, W_hh.chunk(3), strict=True))
        biases = dict(zip(order, b_hh.chunk(3), strict=True))
        r = torch.sigmoid(inputs["r"] + h @ weights["r"].T + biases["r"])
        z = torch.sigmoid(inputs["z"] + h @ weights["z"].T + biases["z"])
        if reset == "paper":
            n = torch.tanh(inputs["n"] + (r * h) @ weights["n"].T + biases["n"])
        else:
            n = torch.tanh(inputs["n"] + r * (h @ weights["n"].T + biases["n"]))
        return z * h + (1 - z) * n if update_keeps else (1 - z) * h + z * n

    return answer


def gru_by_torch_cell(x, h, W_ih, W_hh, b_ih, b_hh):
    with torch.no_grad():
        return torch_cell(torch.nn.GRUCell, W_ih, W_hh, b_ih, b_hh)(x, h)


def final_state_at_the_last_step(outputs, lengths):
    return outputs[:, -1]


def final_state_reading(forward_step: str, backward_step: str):
    """The halves read at the steps named: 'T-1', 'n-1' or '0'."""

    def answer(outputs, lengths):
        half = outputs.shape[-1] // 2
        rows = torch.arange(outputs.shape[0])
        step = {"T-1": outputs.shape[1] - 1, "n-1": lengths - 1, "0": 0}
        forward = outputs[rows, step[forward_step], :half]
        backward = outputs[rows, step[backward_step], half:]
        return torch.cat([forward, backward], dim=-1)

    return answer


def mean_over_all_steps(outputs, lengths):
    return outputs.mean(dim=1)


def masked_sum_divided_by_T(outputs, lengths):
    is_real = torch.arange(outputs.shape[1]).unsqueeze(0) < lengths.unsqueeze(1)
    return (outputs * is_real.unsqueeze(-1)).sum(dim=1) / outputs.shape[1]


def parameter_count_with(mistake: str):
    """The LSTM count with one mistake: projections ignored, W_hh [4H, H], upper layers reading
    D * H inputs, W_hr forgotten, or bias=False ignored."""

    def answer(input_size, hidden_size, num_layers, bias, bidirectional, proj_size):
        directions = 2 if bidirectional else 1
        projection = 0 if mistake == "no projection" else proj_size
        state = projection or hidden_size
        total = 0
        for layer in range(num_layers):
            upper = hidden_size if mistake == "upper layers read H" else state
            layer_input = input_size if layer == 0 else directions * upper
            recurrent = hidden_size if mistake == "square W_hh" else state
            count = 4 * hidden_size * (layer_input + recurrent)
            count += 8 * hidden_size if bias or mistake == "bias ignored" else 0
            count += projection * hidden_size if mistake != "no W_hr" else 0
            total += directions * count
        return total

    return answer


def half_life_with(mistake: str):
    """The half-life with one mistake: counted from 0, a unit that never drops given T or -1,
    the first gate below 1/2 instead of the product, the product kept in float32, or a product
    at 1/2 counted as dropped."""

    def answer(forget_gates):
        steps = forget_gates.shape[0]
        if mistake == "first gate":
            below = forget_gates < 0.5
            return torch.where(below.any(0), below.int().argmax(0) + 1, steps + 1)
        dtype = torch.float32 if mistake == "float32" else forget_gates.dtype
        kept = torch.cumprod(forget_gates.to(dtype), dim=0)
        still_kept = kept > 0.5 if mistake == "at or below" else kept >= 0.5
        half_life = still_kept.sum(dim=0) + (0 if mistake == "from 0" else 1)
        if mistake == "never is T":
            return half_life.clamp(max=steps)
        if mistake == "never is -1":
            return torch.where(half_life > steps, -1, half_life)
        return half_life

    return answer


@pytest.mark.parametrize(
    ("question_id", "wrong_answer", "at_most"),
    [
        ("ch03.q1", lstm_step_with(order="ifog"), 0.0),
        ("ch03.q1", lstm_step_with(hidden_bias=False), 0.0),
        ("ch03.q1", lstm_step_with(tanh_of_memory=False), 0.0),
        ("ch03.q2", gru_step_with(reset="pytorch"), 0.0),
        ("ch03.q2", gru_by_torch_cell, 0.0),
        ("ch03.q2", gru_step_with(update_keeps=False), 0.0),
        ("ch03.q2", gru_step_with(order="zrn"), 0.0),
        ("ch03.q3", final_state_at_the_last_step, 0.0),
        ("ch03.q3", final_state_reading("T-1", "0"), 0.15),
        ("ch03.q3", final_state_reading("n-1", "n-1"), 0.0),
        ("ch03.q3", final_state_reading("0", "n-1"), 0.0),
        ("ch03.q4", mean_over_all_steps, 0.15),
        ("ch03.q4", masked_sum_divided_by_T, 0.15),
        ("ch03.q5", parameter_count_with("no projection"), 0.15),
        ("ch03.q5", parameter_count_with("square W_hh"), 0.15),
        ("ch03.q5", parameter_count_with("upper layers read H"), 0.3),
        ("ch03.q5", parameter_count_with("no W_hr"), 0.15),
        ("ch03.q6", half_life_with("from 0"), 0.0),
        ("ch03.q6", half_life_with("never is T"), 0.0),
        ("ch03.q6", half_life_with("never is -1"), 0.0),
        ("ch03.q6", half_life_with("first gate"), 0.2),
    ],
)
def test_a_classic_mistake_loses_most_points(
    question_id: str, wrong_answer: Callable[..., Any], at_most: float
) -> None:
    assert_loses_most_points(question_id, wrong_answer, at_most)


#: Classic mistakes written apart from the bank, and words of the note each must earn.
NAMED_MISTAKES = [
    ("ch03.q4", mean_over_all_steps, "all T steps"),
    ("ch03.q4", masked_sum_divided_by_T, "divided by T"),
    ("ch03.q5", parameter_count_with("no projection"), "proj_size is ignored"),
    ("ch03.q5", parameter_count_with("square W_hh"), "[4H, H]"),
    ("ch03.q5", parameter_count_with("upper layers read H"), "D * H inputs"),
    ("ch03.q5", parameter_count_with("no W_hr"), "W_hr [P, H] is left out"),
    ("ch03.q5", parameter_count_with("bias ignored"), "bias=False"),
    ("ch03.q6", half_life_with("from 0"), "counted from 0"),
    ("ch03.q6", half_life_with("never is T"), "gets T;"),
    ("ch03.q6", half_life_with("never is -1"), "gets -1"),
    ("ch03.q6", half_life_with("first gate"), "whose gate"),
    ("ch03.q6", half_life_with("float32"), "float32"),
    ("ch03.q6", half_life_with("at or below"), "exactly 1/2"),
]


@pytest.mark.parametrize(("question_id", "wrong_answer", "words"), NAMED_MISTAKES)
def test_check_names_a_classic_mistake_written_apart_from_the_bank(
    question_id: str, wrong_answer: Callable[..., Any], words: str
) -> None:
    assert_check_names_the_mistake(question_id, wrong_answer, words)
