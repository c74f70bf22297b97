"""Backpropagation through time by hand (Chapter 2, RNNs and backpropagation through time).

The chapter's linear RNN reads inputs ``x_1..x_T``, keeps a hidden state and emits an output
at every step:

    h_t = W_hx x_t + W_hh h_{t-1}   (h_0 = 0 unless given),    o_t = W_qh h_t,
    L = (1/T) sum_t l(o_t, y_t),     l(o, y) = 1/2 ||o - y||^2.

Unrolled, it is a deep network with one layer per time step and the same weights in every
layer. Its gradients follow from the chain rule, backwards in time:

    dL/do_t = (o_t - y_t) / T,
    dL/dh_T = W_qh^T dL/do_T,     dL/dh_t = W_hh^T dL/dh_{t+1} + W_qh^T dL/do_t,
    dL/dW_qh = sum_t dL/do_t h_t^T,   dL/dW_hx = sum_t dL/dh_t x_t^T,
    dL/dW_hh = sum_t dL/dh_t h_{t-1}^T.

Expanding the recursion, ``dL/dh_t = sum_{i=t..T} (W_hh^T)^{T-i} W_qh^T dL/do_{T+t-i}``: powers
of ``W_hh^T`` carry the gradient back, so it vanishes or explodes with the eigenvalues of
``W_hh``. :func:`jacobian_product_norms` and :func:`input_gradient_norms` measure that.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import nn
from torch.nn.utils.rnn import PackedSequence, pack_padded_sequence, pad_packed_sequence

from coursekit.arguments import require_positive_int


@dataclass(frozen=True)
class BPTTResult:
    """The loss ``L`` of the linear RNN and its gradients (Chapter 2).

    ``grad_W_qh``, ``grad_W_hx`` and ``grad_W_hh`` have the shapes of the weights; ``grad_h``
    ``[T, h]`` holds ``dL/dh_t`` for every step, the quantity the backward recursion carries.
    """

    loss: float
    grad_W_qh: torch.Tensor
    grad_W_hx: torch.Tensor
    grad_W_hh: torch.Tensor
    grad_h: torch.Tensor


def _require_linear_rnn_shapes(
    X: torch.Tensor,
    W_hx: torch.Tensor,
    W_hh: torch.Tensor,
    W_qh: torch.Tensor,
    h0: torch.Tensor | None,
) -> None:
    """Raise a ``ValueError`` that names the offending tensor when the shapes do not fit."""
    if X.dim() != 2 or X.shape[0] == 0:
        raise ValueError(f"X must have shape [T, d] with T >= 1, got {tuple(X.shape)}")
    if W_hx.dim() != 2 or W_hx.shape[1] != X.shape[1]:
        raise ValueError(
            f"W_hx must have shape [h, d] with d = {X.shape[1]} (the width of X), "
            f"got {tuple(W_hx.shape)}"
        )
    hidden = W_hx.shape[0]
    if tuple(W_hh.shape) != (hidden, hidden):
        raise ValueError(
            f"W_hh must have shape [h, h] = {(hidden, hidden)} (h from W_hx), "
            f"got {tuple(W_hh.shape)}"
        )
    if W_qh.dim() != 2 or W_qh.shape[1] != hidden:
        raise ValueError(f"W_qh must have shape [q, h] with h = {hidden}, got {tuple(W_qh.shape)}")
    if h0 is not None and tuple(h0.shape) != (hidden,):
        raise ValueError(f"h0 must have shape [h] = [{hidden}], got {tuple(h0.shape)}")


def _require_bptt_arguments(
    X: torch.Tensor,
    Y: torch.Tensor,
    W_hx: torch.Tensor,
    W_hh: torch.Tensor,
    W_qh: torch.Tensor,
    h0: torch.Tensor | None,
    truncation: int | None,
) -> None:
    """The shapes the forward pass requires, and those of the targets and the truncation."""
    _require_linear_rnn_shapes(X, W_hx, W_hh, W_qh, h0)
    if Y.dim() != 2 or Y.shape[0] != X.shape[0]:
        raise ValueError(f"Y must have shape [T, q] with T = {X.shape[0]}, got {tuple(Y.shape)}")
    if Y.shape[1] != W_qh.shape[0]:
        raise ValueError(
            f"Y has {Y.shape[1]} columns but W_qh produces outputs of size q = {W_qh.shape[0]}"
        )
    if truncation is not None:
        require_positive_int("truncation", truncation)


def linear_rnn_forward(
    X: torch.Tensor,
    W_hx: torch.Tensor,
    W_hh: torch.Tensor,
    W_qh: torch.Tensor,
    h0: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Run ``h_t = W_hx x_t + W_hh h_{t-1}``, ``o_t = W_qh h_t`` over ``X [T, d]`` (Chapter 2).

    ``h_0 = 0`` unless ``h0 [h]`` is given. Returns the hidden states ``H [T, h]`` and the
    outputs ``O [T, q]``.
    """
    _require_linear_rnn_shapes(X, W_hx, W_hh, W_qh, h0)
    h = X.new_zeros(W_hh.shape[0]) if h0 is None else h0
    hidden_states = []
    for x in X:
        h = W_hx @ x + W_hh @ h
        hidden_states.append(h)
    H = torch.stack(hidden_states)
    return H, H @ W_qh.T


def manual_bptt(
    X: torch.Tensor,
    Y: torch.Tensor,
    W_hx: torch.Tensor,
    W_hh: torch.Tensor,
    W_qh: torch.Tensor,
    h0: torch.Tensor | None = None,
    truncation: int | None = None,
) -> BPTTResult:
    """The loss and gradients of the linear RNN by the chapter's recursions (Chapter 2).

    ``dL/do_t = (o_t - y_t) / T``, then backwards from ``t = T``:
    ``dL/dh_t = W_hh^T dL/dh_{t+1} + W_qh^T dL/do_t``, and
    ``dL/dW_hx = sum_t dL/dh_t x_t^T``, ``dL/dW_hh = sum_t dL/dh_t h_{t-1}^T``,
    ``dL/dW_qh = sum_t dL/do_t h_t^T``.

    ``truncation=k`` is truncated BPTT: the hidden state is detached after steps
    ``t = k, 2k, ...``, so the term ``W_hh^T dL/dh_{t+1}`` is dropped at those steps and no
    gradient crosses a chunk boundary. ``truncation >= T`` is full BPTT.
    """
    _require_bptt_arguments(X, Y, W_hx, W_hh, W_qh, h0, truncation)
    with torch.no_grad():
        H, outputs = linear_rnn_forward(X, W_hx, W_hh, W_qh, h0)
        steps = X.shape[0]
        loss = 0.5 * ((outputs - Y) ** 2).sum() / steps
        grad_outputs = (outputs - Y) / steps

        grad_H = torch.zeros_like(H)
        for t in range(steps, 0, -1):  # row t - 1 holds dL/dh_t: the book counts from t = 1
            grad_H[t - 1] = W_qh.T @ grad_outputs[t - 1]
            state_detached_after_t = truncation is not None and t % truncation == 0
            if t < steps and not state_detached_after_t:
                grad_H[t - 1] += W_hh.T @ grad_H[t]

        h_initial = X.new_zeros(1, W_hh.shape[0]) if h0 is None else h0.unsqueeze(0)
        H_previous = torch.cat([h_initial, H[:-1]])  # the row of step t holds h_{t-1}
        # sum_t a_t b_t^T with a_t, b_t the rows of A, B is the matrix product A^T B.
        return BPTTResult(
            loss=float(loss),
            grad_W_qh=grad_outputs.T @ H,
            grad_W_hx=grad_H.T @ X,
            grad_W_hh=grad_H.T @ H_previous,
            grad_h=grad_H,
        )


def _require_powers(W_hh: torch.Tensor, steps: int) -> None:
    """A square ``W_hh`` and a positive number of powers."""
    if W_hh.dim() != 2 or W_hh.shape[0] != W_hh.shape[1]:
        raise ValueError(f"W_hh must be a square matrix [h, h], got {tuple(W_hh.shape)}")
    require_positive_int("steps", steps)


def jacobian_product_norms(W_hh: torch.Tensor, steps: int) -> torch.Tensor:
    """The spectral norms ``||(W_hh^T)^k||_2`` for ``k = 0..steps-1`` (Chapter 2).

    In the linear RNN ``dh_{t+k}/dh_t = W_hh^k``, so ``(W_hh^T)^k`` carries ``dL/dh_{t+k}``
    back ``k`` steps: its norm decays like ``rho^k`` when the spectral radius ``rho < 1``
    (vanishing gradients) and grows like ``rho^k`` when ``rho > 1`` (exploding gradients).
    """
    _require_powers(W_hh, steps)
    with torch.no_grad():
        power = torch.eye(W_hh.shape[0], dtype=W_hh.dtype, device=W_hh.device)
        norms = []
        for _ in range(steps):
            norms.append(torch.linalg.matrix_norm(power, ord=2))
            power = W_hh.T @ power
        return torch.stack(norms)


def input_gradient_norms(
    model: nn.Module,
    inputs: torch.Tensor,
    lengths: torch.Tensor | Sequence[int] | None = None,
) -> torch.Tensor:
    """``||dS/dx_t||`` for every step ``t``, with ``S`` the sum of the last step's outputs.

    Chapter 2, RNNs and backpropagation through time (Chapter 3 compares RNN, LSTM and GRU with
    it). ``model`` has torch's recurrent interface: ``model(input) -> (output, state)`` with
    time-major ``[T, B, I]`` input (batch-major when ``model.batch_first``) or a
    ``PackedSequence``. ``inputs`` is ``[T, B, I]``; with ``lengths`` each sequence ``b`` is
    packed and its last step is its own ``lengths[b]``, so ``S = sum_b o_{lengths[b], b}``.
    The norm at step ``t`` is taken over the whole slice ``dS/dx_t [B, I]``; padded positions
    contribute zero. Computed by autograd; the model's parameter gradients are not touched.
    """
    if inputs.dim() != 3:
        raise ValueError(f"inputs must have shape [T, B, I], got {tuple(inputs.shape)}")
    inputs = inputs.detach().requires_grad_()
    if lengths is None:
        last_outputs = _time_major_output(model, inputs)[-1]
    else:
        last_outputs = _last_real_outputs(model, inputs, lengths)
    (grad_inputs,) = torch.autograd.grad(last_outputs.sum(), inputs)
    return torch.linalg.vector_norm(grad_inputs.flatten(start_dim=1), dim=1)


def _time_major_output(model: nn.Module, inputs: torch.Tensor) -> torch.Tensor:
    """``model``'s output ``[T, B, *]`` for time-major ``inputs``, whatever its ``batch_first``."""
    if getattr(model, "batch_first", False):
        output, _ = model(inputs.transpose(0, 1))
        return output.transpose(0, 1)
    output, _ = model(inputs)
    return output


def _last_real_outputs(
    model: nn.Module, inputs: torch.Tensor, lengths: torch.Tensor | Sequence[int]
) -> torch.Tensor:
    """The output ``o_{lengths[b], b}`` of each sequence at its own last step, by packing."""
    steps, batch = inputs.shape[:2]
    lengths = torch.as_tensor(lengths, dtype=torch.long).cpu()
    if lengths.shape != (batch,) or lengths.min() < 1 or lengths.max() > steps:
        raise ValueError(
            f"lengths must hold {batch} values between 1 and T = {steps}, got {lengths.tolist()}"
        )
    output, _ = model(pack_padded_sequence(inputs, lengths, enforce_sorted=False))
    if not isinstance(output, PackedSequence):
        raise TypeError("model must return a PackedSequence when given one, as torch.nn.RNN does")
    padded_output, _ = pad_packed_sequence(output, total_length=steps)
    return padded_output[lengths - 1, torch.arange(batch)]
