"""Gradient clipping by global norm: the pre-clip norm is recorded and the update is clipped."""

from __future__ import annotations

import math

import pytest
import torch
from torch import nn
from toy_regression import Batch, fit_toy, mse

from coursekit.train import clip_gradients, global_grad_norm


def manual_training(
    model: nn.Module, batches: list[Batch], epochs: int, max_norm: float
) -> list[float]:
    """The textbook loop with torch.nn.utils.clip_grad_norm_; returns the pre-clip norms."""
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    norms = []
    for _ in range(epochs):
        for batch in batches:
            optimizer.zero_grad()
            mse(model, batch).backward()
            norms.append(float(torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)))
            optimizer.step()
    return norms


def test_fit_clips_like_clip_grad_norm(train_batches: list[Batch]) -> None:
    torch.manual_seed(0)
    ours = nn.Linear(3, 1)
    reference = nn.Linear(3, 1)
    reference.load_state_dict(ours.state_dict())
    history = fit_toy(ours, train_batches, epochs=2, max_grad_norm=0.5, device="cpu")
    expected_norms = manual_training(reference, train_batches, epochs=2, max_norm=0.5)
    assert history.grad_norm == pytest.approx(expected_norms, rel=1e-6)
    assert sum(norm > 0.5 for norm in history.grad_norm) >= 3  # clipping was active
    for name, tensor in ours.state_dict().items():
        torch.testing.assert_close(tensor, reference.state_dict()[name])


def test_clipping_changes_the_result(train_batches: list[Batch]) -> None:
    def train(max_norm: float | None) -> torch.Tensor:
        torch.manual_seed(0)
        model = nn.Linear(3, 1)
        fit_toy(model, train_batches, max_grad_norm=max_norm)
        return model.weight.detach().clone()

    assert not torch.equal(train(0.1), train(None))


def test_global_grad_norm_is_the_norm_of_all_gradients_concatenated() -> None:
    torch.manual_seed(1)
    model = nn.Sequential(nn.Linear(4, 5), nn.Tanh(), nn.Linear(5, 2))
    model(torch.randn(7, 4)).pow(2).sum().backward()
    flat = torch.cat([p.grad.flatten() for p in model.parameters()])
    before = [p.grad.clone() for p in model.parameters()]
    assert global_grad_norm(model.parameters()) == pytest.approx(
        math.sqrt(float(flat @ flat)), rel=1e-6
    )
    assert clip_gradients(model.parameters(), None) == pytest.approx(float(flat.norm()), rel=1e-6)
    assert all(torch.equal(p.grad, g) for p, g in zip(model.parameters(), before, strict=True))


def test_clip_gradients_rescales_to_the_threshold() -> None:
    weight = nn.Parameter(torch.zeros(2))
    weight.grad = torch.tensor([3.0, 4.0])
    assert clip_gradients([weight], 1.0) == pytest.approx(5.0)
    torch.testing.assert_close(weight.grad, torch.tensor([0.6, 0.8]), rtol=1e-5, atol=1e-6)
    assert global_grad_norm([nn.Parameter(torch.zeros(1))]) == 0.0
