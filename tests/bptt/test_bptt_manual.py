"""Backpropagation through time by hand equals autograd on the same linear RNN (Chapter 2)."""

from __future__ import annotations

import pytest
import torch

from coursekit.bptt import BPTTResult, linear_rnn_forward, manual_bptt

SIZES = [(1, 3, 4, 2), (2, 1, 1, 1), (7, 3, 5, 2), (12, 4, 6, 3), (20, 2, 3, 4)]  # T, d, h, q


def random_problem(
    steps: int, d: int, h: int, q: int, seed: int, with_h0: bool
) -> dict[str, torch.Tensor | None]:
    generator = torch.Generator().manual_seed(seed)

    def normal(*shape: int, scale: float = 1.0) -> torch.Tensor:
        return scale * torch.randn(*shape, generator=generator, dtype=torch.float64)

    return {
        "X": normal(steps, d),
        "Y": normal(steps, q),
        "W_hx": normal(h, d, scale=0.5),
        "W_hh": normal(h, h, scale=0.9 / h**0.5),
        "W_qh": normal(q, h, scale=0.5),
        "h0": normal(h) if with_h0 else None,
    }


def autograd_bptt(
    X: torch.Tensor,
    Y: torch.Tensor,
    W_hx: torch.Tensor,
    W_hh: torch.Tensor,
    W_qh: torch.Tensor,
    h0: torch.Tensor | None,
    truncation: int | None = None,
) -> BPTTResult:
    """The same loss written directly, differentiated by autograd (truncation by .detach())."""
    weights = [w.clone().requires_grad_() for w in (W_qh, W_hx, W_hh)]
    w_qh, w_hx, w_hh = weights
    h = torch.zeros(W_hh.shape[0], dtype=X.dtype) if h0 is None else h0
    hidden_states = []
    loss = torch.zeros((), dtype=X.dtype)
    for t in range(1, X.shape[0] + 1):
        h = w_hx @ X[t - 1] + w_hh @ h
        h.retain_grad()
        hidden_states.append(h)
        loss = loss + 0.5 * ((w_qh @ h - Y[t - 1]) ** 2).sum()
        if truncation is not None and t % truncation == 0:
            h = h.detach()
    loss = loss / X.shape[0]
    loss.backward()
    return BPTTResult(
        loss=float(loss.detach()),
        grad_W_qh=w_qh.grad,
        grad_W_hx=w_hx.grad,
        grad_W_hh=w_hh.grad,
        grad_h=torch.stack([state.grad for state in hidden_states]),
    )


def assert_same_result(actual: BPTTResult, expected: BPTTResult) -> None:
    assert actual.loss == pytest.approx(expected.loss, rel=1e-12)
    for name in ("grad_W_qh", "grad_W_hx", "grad_W_hh", "grad_h"):
        torch.testing.assert_close(getattr(actual, name), getattr(expected, name), msg=name)


@pytest.mark.parametrize("with_h0", [False, True])
@pytest.mark.parametrize(("steps", "d", "h", "q"), SIZES)
def test_manual_bptt_equals_autograd(steps: int, d: int, h: int, q: int, with_h0: bool) -> None:
    problem = random_problem(steps, d, h, q, seed=steps * 10 + h, with_h0=with_h0)
    result = manual_bptt(**problem)
    assert_same_result(result, autograd_bptt(**problem))
    assert result.grad_h.shape == (steps, h)
    assert result.grad_W_hh.shape == (h, h)


@pytest.mark.parametrize("truncation", [1, 2, 3, 5, 12, 40])
def test_truncated_bptt_equals_autograd_on_the_detached_graph(truncation: int) -> None:
    problem = random_problem(12, 3, 4, 2, seed=truncation, with_h0=True)
    assert_same_result(
        manual_bptt(**problem, truncation=truncation),
        autograd_bptt(**problem, truncation=truncation),
    )


def test_truncation_at_least_T_is_full_bptt_and_shorter_truncation_differs() -> None:
    problem = random_problem(9, 3, 4, 2, seed=3, with_h0=False)
    full = manual_bptt(**problem)
    assert_same_result(manual_bptt(**problem, truncation=9), full)
    assert_same_result(manual_bptt(**problem, truncation=100), full)
    truncated = manual_bptt(**problem, truncation=4)
    assert truncated.loss == full.loss  # truncation changes the gradient, never the loss
    assert not torch.allclose(truncated.grad_W_hh, full.grad_W_hh)


def test_truncation_one_keeps_only_the_direct_gradient() -> None:
    problem = random_problem(6, 2, 3, 2, seed=4, with_h0=False)
    result = manual_bptt(**problem, truncation=1)
    _, outputs = linear_rnn_forward(problem["X"], problem["W_hx"], problem["W_hh"], problem["W_qh"])
    direct = (outputs - problem["Y"]) / 6 @ problem["W_qh"]  # rows W_qh^T dL/do_t
    torch.testing.assert_close(result.grad_h, direct)


def test_the_forward_pass_follows_the_recurrence() -> None:
    problem = random_problem(5, 3, 4, 2, seed=5, with_h0=True)
    H, outputs = linear_rnn_forward(
        problem["X"], problem["W_hx"], problem["W_hh"], problem["W_qh"], problem["h0"]
    )
    previous = problem["h0"]
    for t in range(5):
        expected = problem["W_hx"] @ problem["X"][t] + problem["W_hh"] @ previous
        torch.testing.assert_close(H[t], expected)
        torch.testing.assert_close(outputs[t], problem["W_qh"] @ expected)
        previous = expected


def test_a_single_step_has_closed_form_gradients() -> None:
    problem = random_problem(1, 3, 4, 2, seed=6, with_h0=True)
    X, Y, W_hx, W_hh, W_qh, h0 = (problem[k] for k in ("X", "Y", "W_hx", "W_hh", "W_qh", "h0"))
    h1 = W_hx @ X[0] + W_hh @ h0
    residual = W_qh @ h1 - Y[0]
    result = manual_bptt(X, Y, W_hx, W_hh, W_qh, h0=h0)
    assert result.loss == pytest.approx(0.5 * float(residual @ residual))
    torch.testing.assert_close(result.grad_W_qh, torch.outer(residual, h1))
    torch.testing.assert_close(result.grad_h[0], W_qh.T @ residual)
    torch.testing.assert_close(result.grad_W_hh, torch.outer(W_qh.T @ residual, h0))


def test_inputs_that_require_grad_are_left_alone() -> None:
    problem = random_problem(4, 2, 3, 2, seed=7, with_h0=False)
    problem["W_hh"].requires_grad_()
    result = manual_bptt(**problem)
    assert not result.grad_W_hh.requires_grad
    assert problem["W_hh"].grad is None


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"X": torch.zeros(5)}, "X must have shape"),
        ({"X": torch.zeros(0, 3)}, "T >= 1"),
        ({"W_hx": torch.zeros(4, 2)}, "W_hx must have shape"),
        ({"W_hh": torch.zeros(4, 3)}, "W_hh must have shape"),
        ({"W_qh": torch.zeros(2, 3)}, "W_qh must have shape"),
        ({"h0": torch.zeros(3)}, "h0 must have shape"),
        ({"Y": torch.zeros(4, 2)}, "Y must have shape"),
        ({"Y": torch.zeros(5, 3)}, "W_qh produces outputs of size q = 2"),
        ({"truncation": 0}, "truncation must be a positive"),
    ],
)
def test_shape_mismatches_are_explained(changes: dict[str, object], message: str) -> None:
    arguments: dict[str, object] = {
        "X": torch.zeros(5, 3),
        "Y": torch.zeros(5, 2),
        "W_hx": torch.zeros(4, 3),
        "W_hh": torch.zeros(4, 4),
        "W_qh": torch.zeros(2, 4),
        "h0": None,
    }
    arguments.update(changes)
    with pytest.raises(ValueError, match=message):
        manual_bptt(**arguments)  # type: ignore[arg-type]
