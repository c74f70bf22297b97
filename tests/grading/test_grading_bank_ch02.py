"""Chapter 2's questions: the references agree with torch, autograd, a closed form and Hugging
Face's top-p filter, the solutions score full marks, and each classic mistake loses most of the
points."""

from __future__ import annotations

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

from coursekit.bptt import jacobian_product_norms
from coursekit.grading import get_question
from coursekit.grading.bank.ch02 import (
    nucleus_filter_with,
    rnn_step_without_tanh,
    tanh_rnn_gradient_with,
)

CHAPTER_2 = [f"ch02.q{number}" for number in range(1, 7)]


def test_the_solutions_score_full_marks() -> None:
    """(Registration, case data and stubs: test_grading_banks.py checks every chapter.)"""
    solutions = notebook_functions(ROOT / "solutions/02-rnn-bptt.ipynb")
    for question_id in CHAPTER_2:
        assert_full_marks(question_id, solutions)


# The references equal independent implementations ------------------------------------------


def test_one_step_equals_torch_rnn_cell() -> None:
    question = get_question("ch02.q1")
    for case in cases_of("ch02.q1"):
        x, h, W_hx, W_hh, b = case.args
        cell = torch.nn.RNNCell(W_hx.shape[1], W_hx.shape[0]).double()
        cell.load_state_dict(
            {"weight_ih": W_hx, "weight_hh": W_hh, "bias_ih": b, "bias_hh": torch.zeros_like(b)}
        )
        with torch.no_grad():
            torch.testing.assert_close(question.expected(case), cell(x, h))


def autograd_of_linear_rnn(
    X: Tensor, Y: Tensor, W_hx: Tensor, W_hh: Tensor, W_qh: Tensor, h0: Tensor, k: int | None = None
) -> tuple[Tensor, Tensor]:
    """dL/dW_hh and dL/dh_t (stacked [T, h]) of the linear RNN by torch.autograd, the state
    detached after every ``k``-th step."""
    W_hh = W_hh.clone().requires_grad_()
    states, h = [], h0
    for t, x in enumerate(X, start=1):
        h = W_hx @ x + W_hh @ h
        h.retain_grad()
        states.append(h)
        if k is not None and t % k == 0:
            h = h.detach()
    outputs = torch.stack(states) @ W_qh.T
    (0.5 * ((outputs - Y) ** 2).sum() / X.shape[0]).backward()
    return W_hh.grad, torch.stack([state.grad for state in states])


def test_the_hand_gradients_equal_autograd() -> None:
    question = get_question("ch02.q2")
    for case in cases_of("ch02.q2"):
        torch.testing.assert_close(question.expected(case), autograd_of_linear_rnn(*case.args)[1])


def test_the_tanh_rnn_gradient_equals_autograd_through_torch_nn_rnn() -> None:
    question = get_question("ch02.q3")
    for case in cases_of("ch02.q3"):
        X, Y, W_hx, W_hh, W_qh, h0 = case.args
        rnn = torch.nn.RNN(W_hx.shape[1], W_hx.shape[0], bias=False).double()
        rnn.load_state_dict({"weight_ih_l0": W_hx, "weight_hh_l0": W_hh})
        states, _ = rnn(X.unsqueeze(1), h0.view(1, 1, -1))
        outputs = states.squeeze(1) @ W_qh.T
        (0.5 * ((outputs - Y) ** 2).sum() / X.shape[0]).backward()
        torch.testing.assert_close(question.expected(case), rnn.weight_hh_l0.grad)


def test_the_tanh_derivative_matters_in_every_case_with_more_than_one_step() -> None:
    """A linear-RNN answer on the tanh states is wrong wherever the tanh' factors are not ~1."""
    question = get_question("ch02.q3")
    for case in cases_of("ch02.q3"):
        if case.args[0].shape[0] > 1:
            with pytest.raises(AssertionError):
                torch.testing.assert_close(
                    tanh_rnn_gradient_with(slope="none")(*case.args), question.expected(case)
                )


def test_truncated_bptt_equals_autograd_on_the_detached_graph() -> None:
    question = get_question("ch02.q4")
    for case in cases_of("ch02.q4"):
        *arguments, k = case.args
        expected = autograd_of_linear_rnn(*arguments, k=k)[0]
        torch.testing.assert_close(question.expected(case), expected)


@pytest.mark.parametrize("question_id", ["ch02.q2", "ch02.q3", "ch02.q4"])
def test_most_gradient_cases_start_from_a_non_zero_state(question_id: str) -> None:
    cases = cases_of(question_id)
    starts = [case.args[5] for case in cases]
    assert sum(bool(h0.abs().sum() > 0) for h0 in starts) >= len(cases) - 1


def test_the_truncation_cases_cover_k_1_k_T_k_above_T_and_k_not_dividing_T() -> None:
    pairs = [(case.args[0].shape[0], case.args[-1]) for case in cases_of("ch02.q4")]
    assert (1 in {k for _, k in pairs}) and any(k == T for T, k in pairs)
    assert any(k > T for T, k in pairs)
    assert sum(T % k != 0 and k < T for T, k in pairs) >= 3


def closed_form_critical_scale(W: torch.Tensor, steps: int) -> float:
    """||(c W)^T||_2 = c^T ||W^T||_2, so the scale with norm 1 is ||W^T||_2 ** (-1 / T)."""
    power = torch.linalg.matrix_power(W, steps)
    return float(torch.linalg.matrix_norm(power, ord=2)) ** (-1 / steps)


def test_the_critical_scale_equals_the_closed_form_and_carries_norm_one() -> None:
    question = get_question("ch02.q5")
    for case in cases_of("ch02.q5"):
        W, steps = case.args
        scale = question.expected(case)
        assert scale == pytest.approx(closed_form_critical_scale(W, steps), rel=1e-9)
        assert float(jacobian_product_norms(scale * W, steps + 1)[-1]) == pytest.approx(1, 1e-8)


def test_the_naive_scale_fails_every_case_and_gelfands_formula_shows_at_large_T() -> None:
    """1/rho(W) misses every case by more than the tolerance; at T = 200 by less than 2%."""
    for case in cases_of("ch02.q5"):
        W, steps = case.args
        scale = get_question("ch02.q5").expected(case)
        naive = 1 / float(torch.linalg.eigvals(W).abs().max())
        relative = abs(naive - scale) / scale
        assert relative > 3 * case.rtol
        if steps >= 200:
            assert relative < 0.02


def test_the_first_case_is_one_over_the_spectral_norm() -> None:
    case = cases_of("ch02.q5")[0]
    W, steps = case.args
    assert steps == 1
    expected = 1 / float(torch.linalg.matrix_norm(W, ord=2))
    assert get_question("ch02.q5").expected(case) == pytest.approx(expected, rel=1e-9)


def test_the_nucleus_filter_equals_hugging_faces_top_p_warper() -> None:
    logits_process = pytest.importorskip("transformers.generation.logits_process")
    question = get_question("ch02.q6")
    for case in cases_of("ch02.q6"):
        logits, p = case.args
        warper = logits_process.TopPLogitsWarper(top_p=p)
        expected = warper(torch.zeros(logits.shape[0], 1, dtype=torch.long), logits.clone())
        torch.testing.assert_close(question.expected(case), expected)


def test_no_nucleus_case_puts_p_near_a_partial_sum_or_splits_a_tie() -> None:
    """The kept set does not hang on rounding, nor on the order in which ties are sorted."""
    for case in cases_of("ch02.q6"):
        logits, p = case.args
        kept = torch.isfinite(get_question("ch02.q6").expected(case))
        probabilities = torch.softmax(logits, dim=-1)
        for row, row_kept in zip(probabilities, kept, strict=True):
            if p < 1:
                partial_sums = row.sort(descending=True).values.cumsum(0)
                assert bool(((partial_sums - p).abs() > 1e-6).all())
            for value in row.unique():
                tied = (row - value).abs() < 1e-12
                assert bool(row_kept[tied].all()) or not bool(row_kept[tied].any())


# Classic mistakes lose most of the points -----------------------------------------------------


def step_with_untransposed_weights(x, h, W_hx, W_hh, b):
    return torch.tanh(x @ W_hx + h @ W_hh + b)


def step_with_untransposed_recurrence(x, h, W_hx, W_hh, b):
    return torch.tanh(x @ W_hx.T + h @ W_hh + b)


def step_in_float32(x, h, W_hx, W_hh, b):
    return torch.tanh(x.float() @ W_hx.float().T + h.float() @ W_hh.float().T + b.float())


def linear_rnn_backward(
    X,
    Y,
    W_hx,
    W_hh,
    W_qh,
    h0,
    *,
    recursion: bool = True,
    mean: bool = True,
    start_from_zero: bool = False,
    cut: Callable[[int, int], bool] = lambda t, steps: False,
) -> tuple[torch.Tensor, list[torch.Tensor]]:
    """dL/dh_t for every step and the states h_0..h_T, with one thing changed: no recursion,
    no 1/T, h_0 taken as 0, or the recursion cut at the steps ``cut(t, T)``."""
    steps = X.shape[0]
    states = [torch.zeros_like(h0) if start_from_zero else h0]
    for x in X:
        states.append(W_hx @ x + W_hh @ states[-1])
    grad_h = torch.zeros(steps, h0.shape[0], dtype=h0.dtype)
    after = torch.zeros_like(h0)
    for t in range(steps, 0, -1):
        grad_o = (W_qh @ states[t] - Y[t - 1]) / (steps if mean else 1)
        carried = W_hh.T @ after if recursion and not cut(t, steps) else torch.zeros_like(h0)
        after = carried + W_qh.T @ grad_o
        grad_h[t - 1] = after
    return grad_h, states


def hidden_gradients(**change: Any) -> Callable[..., torch.Tensor]:
    def answer(*args):
        return linear_rnn_backward(*args, **change)[0]

    return answer


def weight_gradient(**change: Any) -> Callable[..., torch.Tensor]:
    """sum_t dL/dh_t h_{t-1}^T of the linear RNN, with one change of ``linear_rnn_backward``."""

    def answer(*args):
        grad_h, states = linear_rnn_backward(*args, **change)
        return grad_h.T @ torch.stack(states)[:-1]

    return answer


def truncated(cut: Callable[[int, int, int], bool] | None) -> Callable[..., torch.Tensor]:
    """Truncated BPTT with the recursion cut where ``cut(t, T, k)``; None ignores k."""

    def answer(X, Y, W_hx, W_hh, W_qh, h0, k):
        rule = (lambda t, steps: False) if cut is None else (lambda t, steps: cut(t, steps, k))
        return weight_gradient(cut=rule)(X, Y, W_hx, W_hh, W_qh, h0)

    return answer


def truncated_resetting_the_state(X, Y, W_hx, W_hh, W_qh, h0, k):
    """Each chunk restarts from h = 0, as if the windows were independent sequences."""
    steps = X.shape[0]
    previous, gradient, after = [], torch.zeros_like(W_hh), torch.zeros_like(h0)
    h = h0
    for t, x in enumerate(X, start=1):
        previous.append(h)
        h = W_hx @ x + W_hh @ h
        if t % k == 0:
            h = torch.zeros_like(h0)
    states = [W_hx @ x + W_hh @ p for x, p in zip(X, previous, strict=True)]
    for t in range(steps, 0, -1):
        grad_o = (W_qh @ states[t - 1] - Y[t - 1]) / steps
        carried = torch.zeros_like(h0) if t % k == 0 else W_hh.T @ after
        after = carried + W_qh.T @ grad_o
        gradient += torch.outer(after, previous[t - 1])
    return gradient


def naive_inverse_radius(W, T):
    return 1 / float(torch.linalg.eigvals(W).abs().max())


def inverse_spectral_norm(W, T):
    return 1 / float(torch.linalg.matrix_norm(W, ord=2))


def scale_of_power(exponent: Callable[[int], int], ord: Any = 2) -> Callable[..., float]:
    """||W^n|| ** (-1/n) for n = exponent(T): the off-by-one power, or another norm. With
    n = 0 the norm is 1 for every c, and a bisection ends at c = 0."""

    def answer(W, T):
        n = exponent(T)
        if n == 0:
            return 0.0
        return float(torch.linalg.matrix_norm(torch.linalg.matrix_power(W, n), ord=ord)) ** (-1 / n)

    return answer


def nucleus_in_sorted_order(logits, p):
    ordered, order = torch.softmax(logits, dim=-1).sort(dim=-1, descending=True)
    keep = ordered.cumsum(dim=-1) - ordered < p
    return logits.gather(-1, order).masked_fill(~keep, float("-inf"))


@pytest.mark.parametrize(
    ("question_id", "wrong_answer", "at_most"),
    [
        ("ch02.q1", rnn_step_without_tanh, 0.0),
        ("ch02.q1", step_with_untransposed_weights, 0.0),
        ("ch02.q1", step_with_untransposed_recurrence, 0.2),
        ("ch02.q1", step_in_float32, 0.0),
        ("ch02.q2", hidden_gradients(recursion=False), 0.2),
        ("ch02.q2", hidden_gradients(mean=False), 0.2),
        ("ch02.q2", hidden_gradients(start_from_zero=True), 0.2),
        ("ch02.q3", tanh_rnn_gradient_with(slope="none"), 0.0),
        ("ch02.q3", tanh_rnn_gradient_with(slope="carried"), 0.0),
        ("ch02.q3", tanh_rnn_gradient_with(slope="previous"), 0.0),
        ("ch02.q3", tanh_rnn_gradient_with(current_state=True), 0.0),
        ("ch02.q3", weight_gradient(), 0.0),
        ("ch02.q4", truncated(None), 0.3),
        ("ch02.q4", truncated(lambda t, steps, k: t % k == 1 or k == 1), 0.2),
        ("ch02.q4", truncated(lambda t, steps, k: (steps - t) % k == 0 and t < steps), 0.45),
        ("ch02.q4", truncated_resetting_the_state, 0.3),
        ("ch02.q5", naive_inverse_radius, 0.0),
        ("ch02.q5", inverse_spectral_norm, 0.2),
        ("ch02.q5", scale_of_power(lambda T: T - 1), 0.4),
        ("ch02.q5", scale_of_power(lambda T: T, ord="fro"), 0.4),
        ("ch02.q6", nucleus_filter_with("drops the crossing token"), 0.2),
        ("ch02.q6", nucleus_filter_with("whole batch"), 0.3),
        ("ch02.q6", nucleus_filter_with("logits"), 0.2),
        ("ch02.q6", nucleus_in_sorted_order, 0.0),
    ],
)
def test_a_classic_mistake_loses_most_points(
    question_id: str, wrong_answer: Callable[..., Any], at_most: float
) -> None:
    assert_loses_most_points(question_id, wrong_answer, at_most)


@pytest.mark.parametrize(
    ("question_id", "wrong_answer", "words"),
    [
        ("ch02.q1", step_with_untransposed_recurrence, "not W_hh^T"),
        ("ch02.q4", truncated(None), "k is ignored"),
        ("ch02.q4", truncated(lambda t, steps, k: t % k == 1 or k == 1), "steps 1, k + 1"),
        ("ch02.q4", truncated(lambda t, steps, k: (steps - t) % k == 0), "from the end"),
        ("ch02.q4", truncated_resetting_the_state, "starts from h = 0"),
        ("ch02.q5", naive_inverse_radius, "1 / rho(W)"),
        ("ch02.q5", inverse_spectral_norm, "1 / ||W||_2"),
        ("ch02.q5", scale_of_power(lambda T: T - 1), "K - 1"),
        ("ch02.q6", nucleus_in_sorted_order, "sorted order"),
    ],
)
def test_check_names_a_classic_mistake_written_apart_from_the_bank(
    question_id: str, wrong_answer: Callable[..., Any], words: str
) -> None:
    assert_check_names_the_mistake(question_id, wrong_answer, words)
