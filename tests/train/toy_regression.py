"""A tiny regression problem that trains in milliseconds, and ``fit`` set up to train on it."""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from coursekit.train import History, fit

Batch = tuple[torch.Tensor, torch.Tensor]


def make_batches(seed: int, num_batches: int, batch_size: int = 8) -> list[Batch]:
    """Batches of ``y = x @ w + noise`` with fixed true weights ``w``."""
    generator = torch.Generator().manual_seed(seed)
    true_weights = torch.tensor([[2.0], [-3.0], [0.5]])
    batches = []
    for _ in range(num_batches):
        x = torch.randn(batch_size, 3, generator=generator)
        noise = 0.1 * torch.randn(batch_size, 1, generator=generator)
        batches.append((x, x @ true_weights + noise))
    return batches


def mse(model: nn.Module, batch: Batch) -> torch.Tensor:
    """The loss_fn of the regression problem."""
    x, y = batch
    return nn.functional.mse_loss(model(x), y)


def fit_toy(model: nn.Module, batches: Any, *, lr: float = 0.1, **options: Any) -> History:
    """``fit`` on the regression problem: MSE, SGD at ``lr``, one epoch, no progress bar;
    ``options`` add or override any argument of ``fit``."""
    arguments: dict[str, Any] = {
        "loss_fn": mse,
        "optimizer": torch.optim.SGD(model.parameters(), lr=lr),
        "epochs": 1,
        "progress": False,
        **options,
    }
    return fit(model, batches, **arguments)
