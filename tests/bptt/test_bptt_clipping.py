"""Gradient clipping by global norm from scratch equals torch.nn.utils.clip_grad_norm_."""

from __future__ import annotations

import math

import pytest
import torch
from torch import nn

from coursekit.train.clipping import clip_grad_norm, clip_gradients, global_grad_norm

SHAPES = [(3,), (4, 5), (2, 3, 4), ()]


def random_parameters(seed: int, dtype: torch.dtype, scale: float) -> list[nn.Parameter]:
    """Parameters of several shapes with random gradients; the third one has no gradient."""
    generator = torch.Generator().manual_seed(seed)
    parameters = []
    for index, shape in enumerate([*SHAPES, (6,)]):
        parameter = nn.Parameter(torch.zeros(shape, dtype=dtype))
        if index != 2:
            parameter.grad = scale * torch.randn(shape, generator=generator, dtype=dtype)
        parameters.append(parameter)
    return parameters


def copies(parameters: list[nn.Parameter]) -> list[nn.Parameter]:
    duplicates = []
    for parameter in parameters:
        duplicate = nn.Parameter(parameter.detach().clone())
        duplicate.grad = None if parameter.grad is None else parameter.grad.clone()
        duplicates.append(duplicate)
    return duplicates


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("max_norm", [0.01, 1.0, 2.5, 1e3])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_clip_grad_norm_equals_torch(seed: int, max_norm: float, dtype: torch.dtype) -> None:
    ours = random_parameters(seed, dtype, scale=1.0 + seed)
    reference = copies(ours)
    norm = clip_grad_norm(ours, max_norm)
    expected = torch.nn.utils.clip_grad_norm_(reference, max_norm)
    assert isinstance(norm, float)
    assert norm == pytest.approx(float(expected), rel=1e-6)
    for mine, theirs in zip(ours, reference, strict=True):
        if theirs.grad is None:
            assert mine.grad is None
        else:
            torch.testing.assert_close(mine.grad, theirs.grad)


def test_clipping_rescales_to_the_threshold_and_keeps_the_direction() -> None:
    parameters = random_parameters(3, torch.float64, scale=10.0)
    before = torch.cat([p.grad.flatten() for p in parameters if p.grad is not None])
    norm = clip_grad_norm(parameters, 1.0, eps=0.0)
    after = torch.cat([p.grad.flatten() for p in parameters if p.grad is not None])
    assert norm == pytest.approx(float(before.norm()), rel=1e-12)
    assert float(after.norm()) == pytest.approx(1.0, rel=1e-12)
    torch.testing.assert_close(after, before / norm)


def test_gradients_below_the_threshold_are_unchanged() -> None:
    parameters = random_parameters(4, torch.float64, scale=0.01)
    before = [None if p.grad is None else p.grad.clone() for p in parameters]
    norm = clip_grad_norm(parameters, 5.0)
    assert norm < 5.0
    for parameter, gradient in zip(parameters, before, strict=True):
        assert (parameter.grad is None) == (gradient is None)
        if gradient is not None:
            assert torch.equal(parameter.grad, gradient)


def test_a_single_tensor_and_a_generator_are_accepted() -> None:
    weight = nn.Parameter(torch.zeros(2))
    weight.grad = torch.tensor([3.0, 4.0])
    assert clip_grad_norm(weight, 1.0) == pytest.approx(5.0)
    torch.testing.assert_close(weight.grad, torch.tensor([0.6, 0.8]))
    model = nn.Linear(3, 2)
    model(torch.randn(4, 3)).sum().backward()
    expected_norm = global_grad_norm(list(model.parameters()))
    assert clip_grad_norm(model.parameters(), 1e-3) == pytest.approx(expected_norm)
    assert global_grad_norm(model.parameters()) == pytest.approx(1e-3, rel=1e-5)


def test_no_gradient_at_all_has_norm_zero() -> None:
    parameters = [nn.Parameter(torch.ones(3)), nn.Parameter(torch.ones(2))]
    assert clip_grad_norm(parameters, 1.0) == 0.0
    assert float(torch.nn.utils.clip_grad_norm_(parameters, 1.0)) == 0.0
    assert all(p.grad is None for p in parameters)


@pytest.mark.parametrize("max_norm", [0.0, -1.0, math.nan])
def test_a_non_positive_threshold_is_rejected(max_norm: float) -> None:
    with pytest.raises(ValueError, match="max_norm must be a finite number > 0"):
        clip_grad_norm(random_parameters(0, torch.float32, 1.0), max_norm)


@pytest.mark.parametrize("bad_value", [math.inf, math.nan])
def test_a_non_finite_norm_is_an_error_as_with_torch_error_if_nonfinite(
    bad_value: float,
) -> None:
    ours = random_parameters(5, torch.float32, scale=1.0)
    ours[0].grad[1] = bad_value
    before = [None if p.grad is None else p.grad.clone() for p in ours]
    with pytest.raises(RuntimeError, match="cannot be clipped"):
        clip_grad_norm(ours, 1.0)
    for parameter, gradient in zip(ours, before, strict=True):
        if gradient is not None:
            torch.testing.assert_close(parameter.grad, gradient, equal_nan=True)
    with pytest.raises(RuntimeError, match="non-finite"):
        torch.nn.utils.clip_grad_norm_(copies(ours), 1.0, error_if_nonfinite=True)


def test_clip_gradients_measures_without_a_threshold_and_clips_with_one() -> None:
    ours = random_parameters(6, torch.float64, scale=3.0)
    reference = copies(ours)
    unclipped = [p.grad.clone() for p in ours if p.grad is not None]
    norm = clip_gradients(ours, None)
    assert norm == pytest.approx(float(torch.cat([g.flatten() for g in unclipped]).norm()))
    assert all(
        torch.equal(p.grad, g)
        for p, g in zip([p for p in ours if p.grad is not None], unclipped, strict=True)
    )
    assert clip_gradients(ours, 0.5) == pytest.approx(norm)
    torch.nn.utils.clip_grad_norm_(reference, 0.5)
    for mine, theirs in zip(ours, reference, strict=True):
        if theirs.grad is not None:
            torch.testing.assert_close(mine.grad, theirs.grad)
