"""Chapter 2's questions: the references agree with torch and autograd, the solutions score full
marks, and classic mistakes lose points with a message that says what differs."""

from __future__ import annotations

import math
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


def test_one_step_equals_torch_rnn_cell() -> None:
    question = get_question("ch02.q1")
    for case in generate_cases(question):
        x, h, W_hx, W_hh, b = case.args
        cell = torch.nn.RNNCell(W_hx.shape[1], W_hx.shape[0]).double()
        with torch.no_grad():
            cell.weight_ih.copy_(W_hx)
            cell.weight_hh.copy_(W_hh)
            cell.bias_ih.copy_(b)
            cell.bias_hh.zero_()
            torch.testing.assert_close(question.expected(case), cell(x, h))


def autograd_of_linear_rnn(
    X: torch.Tensor,
    Y: torch.Tensor,
    W_hx: torch.Tensor,
    W_hh: torch.Tensor,
    W_qh: torch.Tensor,
    h0: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor]:
    """dL/dW_hh and dL/dh_t (stacked [T, h]) of the linear RNN, by torch.autograd."""
    W_hh = W_hh.clone().requires_grad_()
    states = []
    h = h0
    for x in X:
        h = W_hx @ x + W_hh @ h
        h.retain_grad()
        states.append(h)
    outputs = torch.stack(states) @ W_qh.T
    loss = 0.5 * ((outputs - Y) ** 2).sum() / X.shape[0]
    loss.backward()
    return W_hh.grad, torch.stack([state.grad for state in states])


@pytest.mark.parametrize(("question_id", "which"), [("ch02.q2", 0), ("ch02.q5", 1)])
def test_the_hand_gradients_equal_autograd(question_id: str, which: int) -> None:
    question = get_question(question_id)
    for case in generate_cases(question):
        torch.testing.assert_close(
            question.expected(case), autograd_of_linear_rnn(*case.args)[which]
        )


def test_the_single_step_case_without_initial_state_has_zero_gradient() -> None:
    question = get_question("ch02.q2")
    (case,) = [case for case in generate_cases(question) if "W_hh never acts" in case.description]
    assert torch.count_nonzero(question.expected(case)) == 0


def test_clipping_equals_torch_clip_grad_norm() -> None:
    question = get_question("ch02.q3")
    clipped_somewhere = False
    for case in generate_cases(question):
        gradients, max_norm = case.args
        parameters = [torch.nn.Parameter(torch.zeros_like(g)) for g in gradients]
        for parameter, gradient in zip(parameters, gradients, strict=True):
            parameter.grad = gradient.clone()
        norm_before = torch.nn.utils.clip_grad_norm_(parameters, max_norm)
        expected = question.expected(case)
        torch.testing.assert_close(expected, [parameter.grad for parameter in parameters])
        norm_after = torch.linalg.vector_norm(torch.cat([g.flatten() for g in expected]))
        assert norm_after <= max_norm + 1e-9
        clipped_somewhere |= bool(norm_before > max_norm)
    assert clipped_somewhere


def test_the_clipping_cases_cover_every_regime() -> None:
    """Clipped, unchanged, and clipped only because the norms add up (per-tensor clipping fails)."""
    regimes = set()
    for case in generate_cases(get_question("ch02.q3")):
        gradients, max_norm = case.args
        norms = [float(torch.linalg.vector_norm(gradient)) for gradient in gradients]
        if math.hypot(*norms) <= max_norm:
            regimes.add("unchanged")
        elif all(norm < max_norm for norm in norms):
            regimes.add("clipped, each gradient alone below max_norm")
        else:
            regimes.add("clipped")
    assert regimes == {"unchanged", "clipped, each gradient alone below max_norm", "clipped"}


def test_the_low_temperature_case_overflows_a_naive_softmax() -> None:
    cases = generate_cases(get_question("ch02.q4"))
    (case,) = [case for case in cases if "overflows" in case.description]
    logits, temperature = case.args
    assert torch.isinf(torch.exp(logits / temperature)).any()


def test_temperature_probabilities_are_distributions_that_sharpen_as_tau_falls() -> None:
    question = get_question("ch02.q4")
    for case in generate_cases(question):
        probabilities = question.expected(case)
        assert torch.isfinite(probabilities).all()
        torch.testing.assert_close(
            probabilities.sum(dim=-1), torch.ones(probabilities.shape[:-1], dtype=torch.float64)
        )
    logits = generate_cases(question)[0].args[0]
    largest = [question.reference(logits, tau).max() for tau in (5.0, 1.0, 0.2)]
    assert largest[0] < largest[1] < largest[2]


# Classic mistakes lose points, and the report says why -------------------------------------------


def step_without_tanh(x: Any, h: Any, W_hx: Any, W_hh: Any, b: Any) -> torch.Tensor:
    return x @ W_hx.T + h @ W_hh.T + b


def step_with_untransposed_weights(x: Any, h: Any, W_hx: Any, W_hh: Any, b: Any) -> torch.Tensor:
    return torch.tanh(x @ W_hx + h @ W_hh + b)


def gradients_without_recursion(
    X: Any, Y: Any, W_hx: Any, W_hh: Any, W_qh: Any, h0: Any
) -> tuple[torch.Tensor, torch.Tensor]:
    """dL/dh_t = W_qh^T dL/do_t only: the path through later states is forgotten."""
    states = [h0]
    for x in X:
        states.append(W_hx @ x + W_hh @ states[-1])
    H = torch.stack(states)
    grad_outputs = (H[1:] @ W_qh.T - Y) / X.shape[0]
    grad_h = grad_outputs @ W_qh
    return grad_h.T @ H[:-1], grad_h


def grad_W_hh_without_recursion(*args: Any) -> torch.Tensor:
    return gradients_without_recursion(*args)[0]


def grad_h_without_recursion(*args: Any) -> torch.Tensor:
    return gradients_without_recursion(*args)[1]


def clip_each_tensor_alone(gradients: list[torch.Tensor], max_norm: float) -> list[torch.Tensor]:
    return [g * min(1.0, max_norm / (float(g.norm()) + 1e-6)) for g in gradients]


def always_rescale(gradients: list[torch.Tensor], max_norm: float) -> list[torch.Tensor]:
    total = float(torch.sqrt(sum((g**2).sum() for g in gradients)))
    return [g * max_norm / (total + 1e-6) for g in gradients]


def softmax_without_shift(logits: torch.Tensor, temperature: float) -> torch.Tensor:
    weights = torch.exp(logits / temperature)
    return weights / weights.sum(dim=-1, keepdim=True)


def softmax_ignoring_temperature(logits: torch.Tensor, temperature: float) -> torch.Tensor:
    return torch.softmax(logits, dim=-1)


@pytest.mark.parametrize(
    ("question_id", "wrong_answer", "status", "reported"),
    [
        ("ch02.q1", step_without_tanh, "failed", "elements differ"),
        ("ch02.q1", step_with_untransposed_weights, "error", "RuntimeError"),
        ("ch02.q2", grad_W_hh_without_recursion, "failed", "elements differ"),
        ("ch02.q3", clip_each_tensor_alone, "failed", "elements differ"),
        ("ch02.q3", always_rescale, "failed", "elements differ"),
        ("ch02.q4", softmax_without_shift, "failed", "got nan"),
        ("ch02.q4", softmax_ignoring_temperature, "failed", "elements differ"),
        ("ch02.q5", grad_h_without_recursion, "failed", "elements differ"),
    ],
)
def test_a_classic_mistake_loses_points(
    question_id: str, wrong_answer: Callable[..., Any], status: str, reported: str
) -> None:
    question = get_question(question_id)
    result = run_question(question, wrong_answer)
    assert result.status == status
    assert result.points_earned < question.points
    report = format_report(result)
    assert reported in report
    failing = next(case for case in result.cases if not case.passed)
    assert f"test {failing.number} " in report and failing.description in report
