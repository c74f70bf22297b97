"""Vanishing and exploding gradients: Jacobian products and input-gradient norms (Chapter 2)."""

from __future__ import annotations

import pytest
import torch
from torch import nn
from torch.nn.utils.rnn import PackedSequence, pack_padded_sequence, pad_packed_sequence

from coursekit.bptt import input_gradient_norms, jacobian_product_norms


def random_orthogonal(size: int, seed: int) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    q, _ = torch.linalg.qr(torch.randn(size, size, generator=generator, dtype=torch.float64))
    return q


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_jacobian_product_norms_are_spectral_norms_of_matrix_powers(seed: int) -> None:
    generator = torch.Generator().manual_seed(seed)
    W = torch.randn(5, 5, generator=generator, dtype=torch.float64) / 2
    norms = jacobian_product_norms(W, steps=8)
    expected = torch.stack(
        [torch.linalg.matrix_norm(torch.linalg.matrix_power(W.T, k), ord=2) for k in range(8)]
    )
    assert norms.shape == (8,)
    torch.testing.assert_close(norms, expected)


@pytest.mark.parametrize("rho", [0.5, 0.9, 1.0, 1.1, 1.5])
def test_scaled_orthogonal_matrices_give_exactly_rho_to_the_k(rho: float) -> None:
    norms = jacobian_product_norms(rho * random_orthogonal(6, seed=3), steps=20)
    torch.testing.assert_close(norms, rho ** torch.arange(20, dtype=torch.float64))
    differences = norms.diff()
    if rho < 1:
        assert bool((differences < 0).all())  # vanishing
    elif rho > 1:
        assert bool((differences > 0).all())  # exploding
    else:
        torch.testing.assert_close(norms, torch.ones(20, dtype=torch.float64))


@pytest.mark.parametrize(
    ("W", "steps", "message"),
    [
        (torch.zeros(3, 4), 5, "square matrix"),
        (torch.zeros(3), 5, "square matrix"),
        (torch.eye(3), 0, "steps must be a positive"),
    ],
)
def test_jacobian_product_norms_rejects_bad_input(
    W: torch.Tensor, steps: int, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        jacobian_product_norms(W, steps)


def per_sequence_gradient_norms(
    model: nn.Module, inputs: torch.Tensor, lengths: list[int]
) -> torch.Tensor:
    """Run each sequence alone, unpadded, and combine ||dS/dx_t|| over the batch by hand."""
    squared = torch.zeros(inputs.shape[0], dtype=inputs.dtype)
    for b, length in enumerate(lengths):
        sequence = inputs[:length, b : b + 1].detach().requires_grad_()
        output, _ = model(sequence)
        (gradient,) = torch.autograd.grad(output[length - 1].sum(), sequence)
        squared[:length] += gradient.pow(2).sum(dim=(1, 2))
    return squared.sqrt()


def random_inputs(steps: int, batch: int, size: int, seed: int) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(steps, batch, size, generator=generator, dtype=torch.float64)


@pytest.mark.parametrize(
    "options",
    [
        {"num_layers": 1},
        {"num_layers": 2, "nonlinearity": "relu"},
        {"num_layers": 2, "bidirectional": True},
    ],
)
@pytest.mark.parametrize("lengths", [None, [9, 4, 1, 6]])
def test_input_gradient_norms_match_autograd_on_torch_rnn(
    options: dict[str, object], lengths: list[int] | None
) -> None:
    torch.manual_seed(0)
    rnn = nn.RNN(3, 5, **options).double()
    inputs = random_inputs(9, 4, 3, seed=1)
    expected = per_sequence_gradient_norms(rnn, inputs, lengths or [9] * 4)
    torch.testing.assert_close(input_gradient_norms(rnn, inputs, lengths), expected)
    if lengths is not None:
        torch.testing.assert_close(
            input_gradient_norms(rnn, inputs, torch.tensor(lengths)), expected
        )
    assert all(parameter.grad is None for parameter in rnn.parameters())


def test_batch_first_models_get_their_own_layout() -> None:
    torch.manual_seed(0)
    time_major = nn.LSTM(3, 4).double()
    batch_major = nn.LSTM(3, 4, batch_first=True).double()
    batch_major.load_state_dict(time_major.state_dict())
    inputs = random_inputs(7, 2, 3, seed=2)
    torch.testing.assert_close(
        input_gradient_norms(batch_major, inputs), input_gradient_norms(time_major, inputs)
    )


class LeakyAccumulator(nn.Module):
    """o_t = a o_{t-1} + W x_t, so that dS/do_T = 1 gives dS/dx_t = a^(T-t) W^T 1."""

    def __init__(self, weight: torch.Tensor, decay: float) -> None:
        super().__init__()
        self.weight = nn.Parameter(weight)
        self.decay = decay

    def forward(
        self, inputs: torch.Tensor | PackedSequence
    ) -> tuple[torch.Tensor | PackedSequence, None]:
        if isinstance(inputs, PackedSequence):
            padded, lengths = pad_packed_sequence(inputs)
            return pack_padded_sequence(self.run(padded), lengths, enforce_sorted=False), None
        return self.run(inputs), None

    def run(self, inputs: torch.Tensor) -> torch.Tensor:
        state = inputs.new_zeros(inputs.shape[1], self.weight.shape[0])
        outputs = []
        for x in inputs:
            state = self.decay * state + x @ self.weight.T
            outputs.append(state)
        return torch.stack(outputs)


@pytest.mark.parametrize("decay", [0.5, 1.0, 2.0])
def test_input_gradient_norms_of_a_hand_made_model_follow_the_closed_form(decay: float) -> None:
    weight = torch.tensor([[1.0, 2.0], [0.0, -1.0], [3.0, 1.0]], dtype=torch.float64)
    model = LeakyAccumulator(weight, decay)
    lengths = [6, 3, 5]
    inputs = random_inputs(6, 3, 2, seed=4)
    one_step = float(torch.linalg.vector_norm(weight.T @ torch.ones(3, dtype=torch.float64)))
    expected = torch.zeros(6, dtype=torch.float64)
    for length in lengths:
        for t in range(1, length + 1):
            expected[t - 1] += (decay ** (length - t) * one_step) ** 2
    torch.testing.assert_close(input_gradient_norms(model, inputs, lengths), expected.sqrt())
    full_length = one_step * 3**0.5 * decay ** torch.arange(5, -1, -1, dtype=torch.float64)
    torch.testing.assert_close(input_gradient_norms(model, inputs), full_length)


@pytest.mark.parametrize(
    ("inputs", "lengths", "message"),
    [
        (torch.zeros(5, 3), None, r"inputs must have shape \[T, B, I\]"),
        (torch.zeros(5, 2, 3), [5], "lengths must hold 2 values"),
        (torch.zeros(5, 2, 3), [6, 2], "between 1 and T = 5"),
        (torch.zeros(5, 2, 3), [0, 2], "between 1 and T = 5"),
    ],
)
def test_input_gradient_norms_rejects_bad_input(
    inputs: torch.Tensor, lengths: list[int] | None, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        input_gradient_norms(nn.RNN(3, 4), inputs, lengths)


class ReturnsPaddedOutput(LeakyAccumulator):
    """A model that forgets to pack its output again when it is given a PackedSequence."""

    def forward(self, inputs: torch.Tensor | PackedSequence) -> tuple[torch.Tensor, None]:
        padded = pad_packed_sequence(inputs)[0] if isinstance(inputs, PackedSequence) else inputs
        return self.run(padded), None


def test_a_model_that_cannot_read_packed_sequences_is_explained() -> None:
    model = ReturnsPaddedOutput(torch.eye(3, dtype=torch.float64), decay=1.0)
    with pytest.raises(TypeError, match="must return a PackedSequence"):
        input_gradient_norms(model, random_inputs(4, 2, 3, seed=5), [4, 2])
