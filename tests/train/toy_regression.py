"""A tiny regression problem that trains in milliseconds."""

from __future__ import annotations

import torch
from torch import nn

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
